"""Step `similarity`: how close each generated image is to the real photos of its dish and of the other dishes.

For a generated image g of dish d, with unit vectors (cosine = dot product of normalised [CLS]):
    intra(g) = mean cosine(g, r) over the real photos r of d
    inter(g) = mean cosine(g, r) over the real photos r of every other dish in scope
The scope is the dishes of one run (same dataset and language), so `--limit N` compares N dishes
among themselves.

The frame of reference for those (§5: with DINOv2-giant, the REAL photos of one dish average 0.52, those of
different dishes 0.07): for each real photo r of dish d,
    intra(r) = mean cosine(r, r') over the OTHER real photos r' of d
    inter(r) = mean cosine(r, r') over the real photos of every other dish in scope
stored per photo with its counts, so the marts can average over photo pairs
(warehouse/marts/112_imagined_reference.sql).

Per model, the Spearman correlation between a dish's mean intra cosine and the model's QA score
on the dish (mean Jaccard of its origin_qa answers), with a percentile bootstrap 95% interval
over dishes; computed at publish (warehouse/marts/imagined_correlations.py) with the rank statistics of
`warehouse.stats` (numpy only: average ranks for ties, as scipy.stats.spearmanr).
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import numpy as np

from warehouse.io import transaction


@dataclass(frozen=True)
class ImageSimilarity:
    intra: float | None
    inter: float | None
    n_intra: int
    n_inter: int


def normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


def intra_inter(
    generated: np.ndarray, generated_dishes: list[str], real: np.ndarray, real_dishes: list[str]
) -> list[ImageSimilarity]:
    """Intra and inter mean cosine of each generated vector (rows of `generated`)."""
    if len(generated) == 0:
        return []
    if len(real) == 0:
        return [ImageSimilarity(None, None, 0, 0) for _ in generated_dishes]
    cosine = normalise(generated) @ normalise(real).T  # generated x real
    real_dishes_array = np.asarray(real_dishes)
    out = []
    for row, dish in zip(cosine, generated_dishes, strict=True):
        own = real_dishes_array == dish
        n_intra, n_inter = int(own.sum()), int((~own).sum())
        out.append(
            ImageSimilarity(
                float(row[own].mean()) if n_intra else None,
                float(row[~own].mean()) if n_inter else None,
                n_intra,
                n_inter,
            )
        )
    return out


def real_reference(real: np.ndarray, real_dishes: list[str], chunk: int = 1024) -> list[ImageSimilarity]:
    """Intra (own dish, itself left out) and inter mean cosine of each real photo (rows of `real`) among all of
    them; `chunk` rows at a time, so thousands of photos never hold the whole photo x photo matrix."""
    if len(real) == 0:
        return []
    unit = normalise(real)
    dishes = np.asarray(real_dishes)
    out = []
    for start in range(0, len(unit), chunk):
        cosine = unit[start : start + chunk] @ unit.T
        for offset, row in enumerate(cosine):
            index = start + offset
            own = dishes == dishes[index]
            own[index] = False  # a photo is not compared with itself
            other = dishes != dishes[index]
            n_intra, n_inter = int(own.sum()), int(other.sum())
            out.append(
                ImageSimilarity(
                    float(row[own].mean()) if n_intra else None,
                    float(row[other].mean()) if n_inter else None,
                    n_intra,
                    n_inter,
                )
            )
    return out


def run_reference(con: duckdb.DuckDBPyConnection, encoder: str, encoder_hash: str, real: list[tuple[str, str]]) -> int:
    """The real photos' intra/inter cosine among the (image_id, dish_key) photos of one run, from stored
    embeddings; replaces those photos' rows for this encoder (whatever its weights hash) in one transaction."""
    vectors = dict(
        con.execute(
            "SELECT image_id, embedding FROM core.image_embeddings WHERE encoder = ? AND encoder_hash = ? "
            "AND image_id IN (SELECT unnest(?))",
            [encoder, encoder_hash, [i for i, _ in real]],
        ).fetchall()
    )
    real = list(dict.fromkeys((i, d) for i, d in real if i in vectors))
    if not real:
        return 0
    results = real_reference(np.array([vectors[i] for i, _ in real]), [d for _, d in real])
    scope = len({d for _, d in real})
    rows = [
        [image_id, dish_key, encoder, encoder_hash, r.intra, r.inter, r.n_intra, r.n_inter, scope]
        for (image_id, dish_key), r in zip(real, results, strict=True)
    ]
    with transaction(con):
        con.execute(
            "DELETE FROM core.real_image_similarities WHERE encoder = ? AND image_id IN (SELECT unnest(?))",
            [encoder, [i for i, _ in real]],
        )
        con.executemany("INSERT INTO core.real_image_similarities VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    return len(rows)


def run(
    con: duckdb.DuckDBPyConnection, encoder: str, encoder_hash: str, generated: list[tuple[str, str]],
    real: list[tuple[str, str]],
) -> int:  # fmt: skip
    """Intra/inter cosine of each (image_id, dish_key) generated image against the real ones, from
    stored embeddings; replaces those images' rows for this encoder in one transaction."""
    vectors = dict(
        con.execute(
            "SELECT image_id, embedding FROM core.image_embeddings WHERE encoder = ? AND encoder_hash = ? "
            "AND image_id IN (SELECT unnest(?))",
            [encoder, encoder_hash, [i for i, _ in generated] + [i for i, _ in real]],
        ).fetchall()
    )
    generated = [(i, d) for i, d in generated if i in vectors]
    real = [(i, d) for i, d in real if i in vectors]
    if not generated:
        return 0
    results = intra_inter(
        np.array([vectors[i] for i, _ in generated]), [d for _, d in generated],
        np.array([vectors[i] for i, _ in real]) if real else np.zeros((0, 1)), [d for _, d in real],
    )  # fmt: skip
    rows = [
        [image_id, dish_key, encoder, encoder_hash, r.intra, r.inter, r.n_intra, r.n_inter]
        for (image_id, dish_key), r in zip(generated, results, strict=True)
    ]
    with transaction(con):
        con.execute(
            "DELETE FROM core.image_similarities WHERE encoder = ? AND encoder_hash = ? "
            "AND image_id IN (SELECT unnest(?))",
            [encoder, encoder_hash, [i for i, _ in generated]],
        )
        con.executemany("INSERT INTO core.image_similarities VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    return len(rows)
