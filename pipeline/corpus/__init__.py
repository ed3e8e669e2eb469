"""Corpus analytics: dish/country co-occurrence and RU/UK code mixing in text corpora (see scan.py)."""

from pipeline.corpus.scan import CorpusError, Progress, ScanSummary, scan_corpus
from pipeline.corpus.uagec import export_uagec

__all__ = ["CorpusError", "Progress", "ScanSummary", "export_uagec", "scan_corpus"]
