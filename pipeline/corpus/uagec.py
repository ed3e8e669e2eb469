"""UA-GEC (PyPI ``ua-gec``, 2.1.3): a real Ukrainian corpus of essays, exported as one JSON Lines shard.

The package ships its data inside the wheel (``ua_gec/data``: ``metadata.csv`` and, per annotation layer and
partition, ``annotated/<doc_id>.a<annotator>.ann`` files). :class:`ua_gec.Corpus` iterates them; a document annotated
by two annotators appears twice, so the export keeps each ``doc_id`` once (its first annotator). The text exported is
the corrected target text (``Document.target``) of the grammar-and-fluency layer, train and test partitions.
"""

from __future__ import annotations

import json
from pathlib import Path

PACKAGE = "ua-gec"


def export_uagec(dest: Path) -> Path:
    """Write ``dest`` (a directory, or a ``.jsonl`` file) with one line per document:
    ``{"id", "partition", "text"}``; returns the file written."""
    from ua_gec import AnnotationLayer, Corpus

    path = dest if dest.suffix == ".jsonl" else dest / "ua-gec.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as out:
        for doc in Corpus(partition="all", annotation_layer=AnnotationLayer.GecAndFluency):
            if doc.doc_id in seen:
                continue
            seen.add(doc.doc_id)
            row = {"id": doc.doc_id, "partition": doc.meta.partition, "text": doc.target}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    tmp.replace(path)
    return path
