"""Ingestion: read a dataset's files as they are published, report their quirks, load raw + core."""
