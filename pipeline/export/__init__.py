"""Exports of the published snapshot (their column contracts live beside the marts)."""
