"""The answers stage: generating answers, importing answers produced elsewhere, probing one model."""
