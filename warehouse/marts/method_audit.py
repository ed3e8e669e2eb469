"""marts.method_audit, marts.method_disagreements, marts.method_gold_checks: the paper's scoring rule
against ours, for the Method audit page.

- method_audit: per (dataset, task, model, prompt language) the paper's accuracy and ours (percent),
  the gap (ours minus paper), how many answers each credits alone, and the commonest reason;
- method_disagreements: every open answer the two methods score differently, with a reason;
- method_gold_checks: per prompt language, how many gold strings name the item's country, another
  country, or none (what the paper's substring rule inherits).

Reasons, in the order they are tried. Ours credits, the paper's rule does not:
  `gold string wrong` (the gold string, read by our extractor, names another country or none),
  `answer in English` (the answer left the prompt's language for English),
  `adjective` / `inflection` (the answer names the country in another form of the gold word),
  `place in the country` (a city, island or region of the gold country: "Beijing", "Bali"; issue 38),
  `older name` ("Persia", "Siam", "the Ottoman Empire": see pipeline/extract/historic.py),
  `alias` (another name altogether: "Holland", "ROK", a region of the country).
The paper's rule credits, ours does not:
  `named second` (ours scores the first country named, the gold comes later),
  `dropped as negated or spread` (we named it but read it as "not from" or "popular in"),
  `inside another word` (the gold string occurs inside a longer word: "Oman" in "Romania"),
  `extractor missed it` (our extractor found no country there).
"""

from __future__ import annotations

import re

import duckdb
import polars as pl

OURS_ONLY = "ours only"
PAPER_ONLY = "paper only"

# Endings that turn a country's name into an adjective, per language family (heuristic, documented):
# "italiana", "chinois", "Italian", "украинский", "italská".
_ADJECTIVE_ENDING = re.compile(
    r"(?:ano|ana|anos|anas|ese|esa|és|ino|ina|ico|ica|eño|eña|ense|ais|aise|ois|oise|ien|ienne|ian|ese|ish|an|"
    r"ск\w*|цк\w*|ськ\w*|ský|ská|ské|ští|yano|ya|i|î|ي|ية)$",
    re.IGNORECASE,
)
_NO_SPACE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\u0e00-\u0e7f]")


# How the extractor found the mention (core.extraction_spans.via) -> the reason it gives.
_VIA_REASON = {"place": "place in the country", "subnational": "place in the country", "historic": "older name"}


def classify_ours_only(
    gold_status: str | None, switched_to_english: bool, span: str | None, gold: str | None, via: str | None = None
) -> str:
    if gold_status in ("names_other", "names_none"):
        return "gold string wrong"
    if switched_to_english:
        return "answer in English"
    if via in _VIA_REASON:
        return _VIA_REASON[via]
    if span and gold and not _NO_SPACE.search(gold):  # CJK and Thai: no inflection, another name is an alias
        s, g = span.casefold(), gold.casefold()
        stem = g[: max(3, len(g) - 3)]
        if s.startswith(stem) or g.startswith(s[: max(3, len(s) - 3)]):
            return "adjective" if _ADJECTIVE_ENDING.search(s) and not _ADJECTIVE_ENDING.search(g) else "inflection"
        if _ADJECTIVE_ENDING.search(s) and s[:3] == g[:3]:
            return "adjective"
    return "alias"


def classify_paper_only(
    status: str | None, predicted: list[str], gold_countries: list[str], negated: bool, response: str, gold: str
) -> str:
    if any(c in gold_countries for c in predicted[1:]):
        return "named second"
    if negated:
        return "dropped as negated or spread"
    if gold and not _NO_SPACE.search(gold):
        text = response.casefold()
        hit = text.find(gold.casefold())
        before = text[hit - 1] if hit > 0 else " "
        end = hit + len(gold)
        after = text[end] if end < len(text) else " "
        if hit >= 0 and (before.isalpha() or after.isalpha()):
            return "inside another word"
    return "extractor missed it" if status != "ok" or not predicted else "named another country"


def build(con: duckdb.DuckDBPyConnection) -> None:
    rows = con.sql(
        """
        WITH paper AS (SELECT generation_id, value FROM core.scores WHERE metric = 'paper_substring'),
        spans AS (
            SELECT generation_id, country, bool_or(negated) AS negated, arg_min(text, span_start) AS text,
                   arg_min(via, span_start) AS via
            FROM core.extraction_spans GROUP BY ALL
        )
        SELECT s.dataset, s.task, s.model, s.lang, s.item_id, s.item_key, s.generation_id, s.response,
               s.accuracy AS ours, p.value AS paper, s.status, string_split(s.predicted, ',') AS predicted,
               string_split(s.gold, ',') AS gold_countries, t.text AS gold_text, c.status AS gold_status,
               c.countries AS gold_text_countries, a.answer_lang, a.prompt_lang, sp.text AS span, sp.via,
               coalesce(neg.negated, false) AS negated
        FROM marts.origin_scores s
        JOIN paper p USING (generation_id)
        LEFT JOIN core.item_gold_text t ON t.item_id = s.item_key AND t.lang = s.lang
        LEFT JOIN core.gold_text_checks c ON c.item_id = s.item_key AND c.lang = s.lang
        LEFT JOIN core.answer_languages a USING (generation_id)
        LEFT JOIN spans sp ON sp.generation_id = s.generation_id AND sp.country = string_split(s.gold, ',')[1]
        LEFT JOIN spans neg ON neg.generation_id = s.generation_id AND neg.negated
                           AND list_contains(string_split(s.gold, ','), neg.country)
        WHERE p.value IS NOT NULL AND NOT isnan(p.value) AND (s.accuracy > 0.5) <> (p.value > 0.5)
        """
    ).pl()
    reasons = []
    for row in rows.iter_rows(named=True):
        if row["ours"] > 0.5:
            english = row["answer_lang"] == "en" and row["prompt_lang"] != "en"
            reason = classify_ours_only(row["gold_status"], english, row["span"], row["gold_text"], row["via"])
            reasons.append((OURS_ONLY, reason))
        else:
            predicted = [c for c in (row["predicted"] or []) if c]
            reasons.append(
                (
                    PAPER_ONLY,
                    classify_paper_only(
                        row["status"],
                        predicted,
                        row["gold_countries"] or [],
                        bool(row["negated"]),
                        row["response"] or "",
                        row["gold_text"] or "",
                    ),
                )
            )
    disagreements = rows.select(
        "dataset", "task", "model", "lang", "item_id", "response", "gold_text", "gold_countries", "predicted",
        "gold_status", "answer_lang", "generation_id",
    ).with_columns(
        pl.Series("direction", [d for d, _ in reasons], dtype=pl.String),
        pl.Series("reason", [r for _, r in reasons], dtype=pl.String),
        pl.col("gold_countries").list.join(","),
        pl.col("predicted").list.join(","),
    )  # fmt: skip
    con.register("_disagreements", disagreements)
    con.execute(
        "CREATE OR REPLACE TABLE marts.method_disagreements AS SELECT * FROM _disagreements "
        "ORDER BY dataset, task, model, lang, direction, reason, try_cast(item_id AS BIGINT)"
    )
    con.unregister("_disagreements")
    con.execute(AUDIT_SQL)
    con.execute(GOLD_CHECKS_SQL)


AUDIT_SQL = """
CREATE OR REPLACE TABLE marts.method_audit AS
WITH both_methods AS (
    SELECT p.dataset, p.task, p.model, p.lang, p.n, p.accuracy AS paper_accuracy, a.accuracy AS atlas_accuracy
    FROM marts.accuracy p JOIN marts.accuracy a USING (dataset, task, model, lang)
    WHERE p.method = 'paper' AND a.method = 'atlas'
), counted AS (
    SELECT dataset, task, model, lang,
           count(*) FILTER (direction = 'ours only') AS n_ours_only,
           count(*) FILTER (direction = 'paper only') AS n_paper_only
    FROM marts.method_disagreements GROUP BY ALL
), reasons AS (
    SELECT dataset, task, model, lang, reason, count(*) AS n FROM marts.method_disagreements GROUP BY ALL
), top_reason AS (
    SELECT dataset, task, model, lang, arg_max(reason, n) AS top_reason, max(n) AS top_reason_n
    FROM reasons GROUP BY ALL
)
SELECT b.*, round(b.atlas_accuracy - b.paper_accuracy, 2) AS gap,
       coalesce(c.n_ours_only, 0) AS n_ours_only, coalesce(c.n_paper_only, 0) AS n_paper_only,
       r.top_reason, coalesce(r.top_reason_n, 0) AS top_reason_n
FROM both_methods b
LEFT JOIN counted c USING (dataset, task, model, lang)
LEFT JOIN top_reason r USING (dataset, task, model, lang)
ORDER BY abs(b.atlas_accuracy - b.paper_accuracy) DESC, b.model, b.lang
"""

GOLD_CHECKS_SQL = """
CREATE OR REPLACE TABLE marts.method_gold_checks AS
SELECT d.dataset, split_part(i.task_id, '.', 2) AS task, c.lang, count(*) AS n_items,
       count(*) FILTER (c.status = 'names_gold') AS names_gold,
       count(*) FILTER (c.status = 'names_other') AS names_other,
       count(*) FILTER (c.status = 'names_none') AS names_none
FROM core.gold_text_checks c
JOIN core.items i USING (item_id)
JOIN core.tasks d ON d.task_id = i.task_id
GROUP BY ALL
ORDER BY d.dataset, task, c.lang
"""
