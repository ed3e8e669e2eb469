"""BORSch's human evaluation, from the ratings imported with `import-responses --format borsch-ratings`
(core.human_ratings, pipeline/answers/ratings.py):

- marts.borsch_human_ratings (Fig. 15): one point per describer model, prompt language, encoder and dish: the mean
  rating of its description over the annotators who rated it, beside the dish's mean intra cosine of the images
  drawn from that description (marts.imagined; §5: DINOv2 [CLS] cosine of generated against real photos);
- marts.borsch_table3 (§5 and Appendix J.2, Table 3): per describer, language and encoder, Pearson r, Spearman ρ,
  Kendall τ and Lin's concordance ρc between those ratings and cosines (scipy's statistics; Lin's from its
  definition, population moments), with the dish count, or no value and why;
- marts.borsch_table3_published: Table 3 as printed. The extracted text labels no column; §5 prints Pearson's r
  as 0.78 (RU) and 0.82 (UK) for Qwen and 0.81 (RU) and 0.82 (UK) for Llama, so columns 3 and 4 are Qwen RU and
  Llama RU; columns 1 and 2 are the UK pair, in the same order as assumed (both 0.82: unconfirmed);
- marts.human_agreement (§3.2: Cohen's κ 0.73 Russian, 0.77 Ukrainian, dish filtering): per kind, language and pair
  of annotators, Cohen's kappa over the items both rated, by its equation written out (κ = (p_o − p_e) / (1 − p_e),
  p_e from each annotator's own label shares); ratings are compared as the labels they are (0/1 for dish filtering)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

import duckdb
import polars as pl

CORRELATIONS = ("pearson", "spearman", "kendall", "lin")
MIN_DISHES = 3
# Table 3 as printed (Appendix J.2); columns as inferred above.
PUBLISHED_COLUMNS = ("UK · Qwen2 (assumed)", "UK · Llama-3.1 (assumed)", "RU · Qwen2", "RU · Llama-3.1")
PUBLISHED = {
    "pearson": (0.82, 0.82, 0.78, 0.81),
    "spearman": (0.84, 0.83, 0.80, 0.81),
    "kendall": (0.68, 0.67, 0.63, 0.65),
    "lin": (0.79, 0.76, 0.74, 0.79),
}
TABLE3_SCHEMA = {  # n_dishes: rated dishes with a cosine, the pairs correlated
    "model": pl.String,
    "lang": pl.String,
    "encoder": pl.String,
    "correlation": pl.String,
    "value": pl.Float64,
    "n_dishes": pl.Int64,
    "note": pl.String,
}
AGREEMENT_SCHEMA = {
    "kind": pl.String,
    "lang": pl.String,
    "annotator_a": pl.String,
    "annotator_b": pl.String,
    "n_items": pl.Int64,
    "agreement": pl.Float64,
    "kappa": pl.Float64,
    "method": pl.String,
}


def lins_concordance(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Lin's concordance correlation ρc = 2·cov(x, y) / (var x + var y + (mean x − mean y)²), population moments;
    None when both columns are constant and equal (0/0)."""
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    vx = sum((a - mx) ** 2 for a in x) / n
    vy = sum((b - my) ** 2 for b in y) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True)) / n
    denominator = vx + vy + (mx - my) ** 2
    return None if denominator == 0 else 2 * cov / denominator


def cohens_kappa_exact(a: Sequence, b: Sequence) -> float | None:
    """Cohen's κ = (p_o − p_e) / (1 − p_e): p_o the share of items labelled alike, p_e = Σ_k p_a(k)·p_b(k) from each
    annotator's own label shares; None when p_e = 1 (both gave one and the same label throughout: undefined)."""
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    shares_a, shares_b = Counter(a), Counter(b)
    expected = sum(shares_a[k] * shares_b[k] for k in shares_a) / (n * n)
    return None if expected == 1 else (observed - expected) / (1 - expected)


def cohens_kappa(a: Sequence, b: Sequence) -> tuple[float | None, str]:
    """Cohen's kappa by its equation (no kept dependency of the project computes it: scikit-learn is not one), and
    which computed it."""
    return cohens_kappa_exact(a, b), "exact (Cohen 1960: (p_o - p_e) / (1 - p_e))"


def _correlate(name: str, x: list[float], y: list[float]) -> tuple[float | None, str | None]:
    if len(x) < MIN_DISHES:
        return None, f"fewer than {MIN_DISHES} rated dishes with a cosine"
    if len(set(x)) < 2 or len(set(y)) < 2:
        return None, "a constant column: no correlation is defined"
    if name == "lin":
        return lins_concordance(x, y), None
    from scipy import stats

    test = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}[name]
    return float(test(x, y).statistic), None


def build(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(
        """
        CREATE OR REPLACE TABLE marts.borsch_human_ratings AS
        WITH rated AS (
            SELECT model, lang, item AS dish_id, avg(rating) AS rating, count(*)::BIGINT AS n_annotators
            FROM core.human_ratings WHERE kind = 'description' GROUP BY ALL
        ), cosines AS (
            SELECT model, lang, dish_id, encoder, avg(intra_cosine) AS cosine, any_value(display_name) AS dish_name
            FROM marts.imagined WHERE dataset = 'borsch' AND intra_cosine IS NOT NULL GROUP BY ALL
        )
        SELECT r.model, r.lang, c.encoder, r.dish_id, c.dish_name, r.rating, c.cosine, r.n_annotators
        FROM rated r LEFT JOIN cosines c USING (model, lang, dish_id)
        ORDER BY r.model, r.lang, c.encoder, try_cast(r.dish_id AS BIGINT) NULLS LAST, r.dish_id
        """
    )
    points = con.sql("SELECT * FROM marts.borsch_human_ratings").pl()
    rows = []
    for (model, lang), group in points.group_by(["model", "lang"], maintain_order=True):
        encoders = [e for e in group["encoder"].unique(maintain_order=True).to_list() if e is not None] or [None]
        for encoder in encoders:
            paired = group.filter(pl.col("encoder") == encoder) if encoder is not None else group.clear()
            x, y = paired["rating"].to_list(), paired["cosine"].to_list()
            for name in CORRELATIONS:
                value, note = _correlate(name, x, y)
                if encoder is None:
                    note = "no image was drawn from these descriptions (imagine) and compared with real photos"
                rows.append({"model": model, "lang": lang, "encoder": encoder, "correlation": name, "value": value,
                             "n_dishes": len(x), "note": note})  # fmt: skip
    _replace(con, "marts.borsch_table3", pl.DataFrame(rows, schema=TABLE3_SCHEMA))
    published = [
        {"correlation": name, "column": column, "value": value}
        for name, values in PUBLISHED.items()
        for column, value in zip(PUBLISHED_COLUMNS, values, strict=True)
    ]
    _replace(con, "marts.borsch_table3_published", pl.DataFrame(published))
    _replace(con, "marts.human_agreement", agreement(con))


def agreement(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Cohen's kappa per kind, language and pair of annotators, over the items both rated."""
    ratings = con.sql("SELECT kind, lang, model, item, annotator, rating FROM core.human_ratings ORDER BY ALL").pl()
    rows = []
    for (kind, lang), group in ratings.group_by(["kind", "lang"], maintain_order=True):
        by_annotator = {
            name: dict(zip(zip(part["model"], part["item"], strict=True), part["rating"], strict=True))
            for (name,), part in group.group_by(["annotator"], maintain_order=True)
        }
        for first, second in itertools.combinations(sorted(by_annotator), 2):
            shared = sorted(set(by_annotator[first]) & set(by_annotator[second]))
            if not shared:
                continue
            a = [by_annotator[first][key] for key in shared]
            b = [by_annotator[second][key] for key in shared]
            kappa, method = cohens_kappa(a, b)
            rows.append({"kind": kind, "lang": lang, "annotator_a": first, "annotator_b": second,
                         "n_items": len(shared), "agreement": sum(x == y for x, y in zip(a, b, strict=True)) / len(a),
                         "kappa": kappa, "method": method})  # fmt: skip
    return pl.DataFrame(rows, schema=AGREEMENT_SCHEMA)


def _replace(con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame) -> None:
    con.register("_human_eval", frame)
    con.execute(f"CREATE OR REPLACE TABLE {table} AS SELECT * FROM _human_eval")
    con.unregister("_human_eval")
