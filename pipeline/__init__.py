"""Dish Atlas batch pipeline: ingest -> generate -> extract -> score -> aggregate -> publish."""
