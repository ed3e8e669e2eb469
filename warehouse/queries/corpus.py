"""Queries for the corpus pages (co-occurrence, code mixing, review) over the marts of
warehouse/marts/090_corpus_analyses.sql, which documents the bins and intervals.

The bin marts keep n, sum and sum of squares per model and prompt language, so these queries pool
the selected rows and recompute the mean and its normal-approximation 95% interval (clipped to 0..1).
"""

from __future__ import annotations

import pandas as pd

from warehouse.queries import Source, _frame
from warehouse.queries.answers import Filters
from warehouse.queries.linked import OWN, AnswerSource

MEASURES = ("count", "ratio", "mention_ratio")  # mention_ratio: BORSch §4.3 as published (log-spaced bins)
LINES = ("model", "lang")  # one line per model (pooled over prompt languages) or per prompt language

_POOLED = """
    sum(n_answers)::BIGINT AS n_answers,
    sum({s}) / sum(n_answers) AS {m},
    CASE WHEN sum(n_answers) > 1 THEN 1.96 * sqrt(greatest(sum({ss}) - sum({s}) * sum({s}) / sum(n_answers), 0)
                                                 / (sum(n_answers) - 1) / sum(n_answers)) END AS half_width
"""


def corpora(source: Source, dataset: str | None = None) -> pd.DataFrame:
    """Scanned corpora; with `dataset`, those that counted some of its dishes."""
    return _frame(
        source,
        """
        SELECT corpus_id, lang, source, n_docs, n_bytes, n_shards, n_corrupt_shards, n_dishes_counted, datasets,
               n_pairs_binned, n_samples
        FROM marts.corpora
        WHERE $dataset IS NULL OR list_contains(string_split(coalesce(datasets, ''), ','), $dataset)
        ORDER BY lang, corpus_id
        """,
        {"dataset": dataset},
    )


def cooccurrence_bins(
    source: Source, filters: Filters, corpus_id: str, measure: str, by: str, answers: AnswerSource = OWN
) -> pd.DataFrame:
    """Mean origin-QA Jaccard per bin and line (`by` = model or lang), pooled over the other, of the
    dataset's own answers or (`answers`) the linked ones scored against one dataset's gold.

    `n_dishes` is the most dishes any pooled row had answers about (all of them when every model
    answered every dish); `dishes` lists that row's dishes (at most 30 names)."""
    if measure not in MEASURES or by not in LINES:
        raise ValueError(f"measure must be one of {MEASURES} and by one of {LINES}")
    where, params = filters.where()
    kind, kind_params = answers.where()
    where, params = f"{where} AND {kind}", params | kind_params
    pooled = _POOLED.format(s="jaccard_sum", ss="jaccard_sumsq", m="jaccard")
    return _frame(
        source,
        f"""
        WITH pooled AS (
            SELECT {by} AS line, bin, any_value(bin_low) AS bin_low, any_value(bin_high) AS bin_high,
                   max(n_dishes) AS n_dishes, {pooled}, arg_max(dishes, n_dishes) AS dishes
            FROM marts.cooccurrence_bins
            WHERE {where} AND corpus_id = $corpus_id AND measure = $measure
            GROUP BY {by}, bin
        )
        SELECT line, bin, bin_low, bin_high, n_dishes, n_answers, jaccard,
               CASE WHEN half_width IS NOT NULL THEN greatest(jaccard - half_width, 0) END AS jaccard_low,
               CASE WHEN half_width IS NOT NULL THEN least(jaccard + half_width, 1) END AS jaccard_high,
               dishes
        FROM pooled
        ORDER BY line, bin
        """,
        params | {"corpus_id": corpus_id, "measure": measure},
    )


def cooccurrence_dishes(source: Source, corpus_id: str, dataset: str) -> pd.DataFrame:
    """The corpus's counts per dish of the dataset, with the dish's count and ratio bins."""
    return _frame(
        source,
        """
        SELECT dish_key, name, origins, docs_with_dish, docs_with_true_country, docs_with_any_country, ratio,
               count_bin, ratio_bin, true_country_mentions, any_country_mentions, mention_ratio, mention_ratio_bin,
               min_log_mention_ratio
        FROM marts.cooccurrence_dishes
        WHERE corpus_id = $corpus_id AND dataset = $dataset
        ORDER BY docs_with_true_country DESC, dish_key
        """,
        {"corpus_id": corpus_id, "dataset": dataset},
    )


def frequency_by_rank(source: Source, corpus_id: str, dataset: str) -> pd.DataFrame:
    """BORSch Fig. 2a: each counted dish's documents in the corpus against its frequency rank among the dataset's
    dishes (1 = most frequent), with where the dataset found it (`wikidata` or `bootstrapped`, from `source`)."""
    return _frame(
        source,
        """
        SELECT c.dish_key, c.name, c.docs_with_dish,
               row_number() OVER (ORDER BY c.docs_with_dish DESC, c.dish_key) AS rank,
               CASE WHEN d.source = 'wikidata' THEN 'wikidata'
                    WHEN d.source LIKE 'bootstrap%' THEN 'bootstrapped' ELSE coalesce(d.source, 'unknown') END
                   AS found_by,
               d.source
        FROM marts.cooccurrence_dishes c
        LEFT JOIN marts.dishes d USING (dish_key)
        WHERE c.corpus_id = $corpus_id AND c.dataset = $dataset
        ORDER BY rank
        """,
        {"corpus_id": corpus_id, "dataset": dataset},
    )


def surzhyk(source: Source, corpus_id: str) -> pd.DataFrame:
    """BORSch §4.2's surzhyk statistics: how close the pairs' names are (edit distance, share distinct) and, in
    this corpus, the share of the distinct-name pairs' occurrences written with the other language's name."""
    return _frame(
        source,
        """
        SELECT s.n_pairs, s.n_distinct_names, s.share_distinct_names, s.mean_edit_distance,
               s.mean_edit_distance_distinct, c.corpus_lang, c.docs_own_name, c.docs_other_name, c.code_mixed_share
        FROM marts.surzhyk_names s
        LEFT JOIN marts.surzhyk_corpora c ON c.corpus_id = $corpus_id
        WHERE s.dataset = 'borsch'
        """,
        {"corpus_id": corpus_id},
    )


def codemix_corpora(source: Source) -> pd.DataFrame:
    """Corpora with RU/UK name counts, with the pairs binned and excluded."""
    return _frame(
        source,
        """
        SELECT corpus_id, corpus_lang, n_parallel, n_identical, n_binned, n_not_counted
        FROM marts.codemix_excluded
        ORDER BY corpus_lang = 'uk' DESC, corpus_id
        """,
    )


def codemix_bins(source: Source, filters: Filters, corpus_id: str, answers: AnswerSource = OWN) -> pd.DataFrame:
    """Per bin and metric, pooled over the selected models and prompt languages: mean origin-QA
    Jaccard (answers of the selected task about the pair's Ukrainian dish) and mean dish-name VQA
    match, as published (name_contains_lev1) and ours (name_match), of the dish_name_vqa answers whatever the
    selected task; the dataset's own answers or
    (`answers`) the linked ones scored against one dataset's gold."""
    where, params = Filters(dataset=filters.dataset, models=filters.models, langs=filters.langs).where()
    kind, kind_params = answers.where()
    where, params = f"{where} AND {kind}", params | kind_params
    pooled = _POOLED.format(s="value_sum", ss="value_sumsq", m="mean")
    return _frame(
        source,
        f"""
        WITH pooled AS (
            SELECT metric, any_value(task) AS task, bin, any_value(d_low) AS d_low, any_value(d_high) AS d_high,
                   max(n_pairs) AS n_pairs, {pooled}, arg_max(dishes, n_pairs) AS dishes
            FROM marts.codemix_bins
            WHERE {where} AND corpus_id = $corpus_id
              AND (metric IN ('name_match', 'name_contains_lev1') OR task = $task)
            GROUP BY metric, bin
        )
        SELECT metric, task, bin, d_low, d_high, n_pairs, n_answers, mean,
               CASE WHEN half_width IS NOT NULL THEN greatest(mean - half_width, 0) END AS mean_low,
               CASE WHEN half_width IS NOT NULL THEN least(mean + half_width, 1) END AS mean_high, dishes
        FROM pooled
        ORDER BY metric, bin
        """,
        params | {"corpus_id": corpus_id, "task": filters.task},
    )


def codemix_pairs(source: Source, corpus_id: str) -> pd.DataFrame:
    """The binned parallel pairs of a corpus, most Ukrainian-leaning first."""
    return _frame(
        source,
        """
        SELECT pair_id, uk_name, ru_name, uk_dish_key, ru_dish_key, origins, docs_uk_name, docs_ru_name, d, bin,
               d_low, d_high
        FROM marts.codemix_pairs
        WHERE corpus_id = $corpus_id
        ORDER BY d DESC, pair_id
        """,
        {"corpus_id": corpus_id},
    )


def sample_langs(source: Source) -> pd.DataFrame:
    """Corpus languages with review samples, and how many."""
    return _frame(
        source,
        "SELECT lang, count(*) AS n_samples, count(DISTINCT dish_key) AS n_dishes FROM marts.corpus_samples "
        "GROUP BY lang ORDER BY lang",
    )


def corpus_samples(source: Source, lang: str, search: str | None = None) -> pd.DataFrame:
    """Review samples of one corpus language; `search`: a substring of the dish name or sentence."""
    search = (search or "").strip() or None
    return _frame(
        source,
        """
        SELECT sample_id, corpus_id, lang, dish_key, dataset, name, country, country_name, origins, sentence,
               shard_path, doc_index
        FROM marts.corpus_samples
        WHERE lang = $lang
          AND ($search IS NULL OR strpos(lower(name || ' ' || sentence), lower($search)) > 0)
        ORDER BY name, dish_key, country, sample_id
        """,
        {"lang": lang, "search": search},
    )


def cooccurrence_bin_dishes(
    source: Source,
    filters: Filters,
    corpus_id: str,
    measure: str,
    bin: int,
    by: str | None = None,
    line: str | None = None,
    answers: AnswerSource = OWN,
) -> pd.DataFrame:
    """The dishes behind one point of the co-occurrence chart: the corpus's dishes in `bin` of
    `measure` with the origin-QA answers the point pools (the selection, and `by` = `line`, e.g. one
    model), as marts.cooccurrence_bins counts them: per dish its counts, n_answers and mean jaccard;
    most documents with a true origin first. Their n_answers add up to the point's. With linked
    `answers`, the answers borrowed from linked records, their Jaccard against `answers.gold`."""
    if measure not in MEASURES or (by is not None and by not in LINES):
        raise ValueError(f"measure must be one of {MEASURES} and by one of {LINES}")
    where, params = filters.where("s")
    if by is not None and line is not None:
        where += f" AND s.{by} = $line"
        params = params | {"line": line}
    table, score = "marts.origin_scores", "s.jaccard"
    if answers.answers_from == "linked":
        table = "marts.linked_origin_answers"
        score = (
            "CASE WHEN s.dataset = $gold THEN s.jaccard_dish_gold "
            "WHEN s.answer_dataset = $gold THEN s.jaccard_answer_gold END"
        )
        params = params | {"gold": answers.gold}
    return _frame(
        source,
        f"""
        SELECT d.dish_key, any_value(d.name) AS name, any_value(d.origins) AS origins,
               any_value(d.docs_with_dish) AS docs_with_dish,
               any_value(d.docs_with_true_country) AS docs_with_true_country,
               any_value(d.docs_with_any_country) AS docs_with_any_country, any_value(d.ratio) AS ratio,
               count(*)::BIGINT AS n_answers, avg({score}) AS jaccard
        FROM marts.cooccurrence_dishes d
        JOIN {table} s ON s.dish_key = d.dish_key
        WHERE d.corpus_id = $corpus_id AND d.{measure}_bin = $bin AND {where}
          AND s.task IN ('origin_qa', 'origin_vqa') AND {score} IS NOT NULL
        GROUP BY d.dish_key
        ORDER BY docs_with_true_country DESC, d.dish_key
        """,
        params | {"corpus_id": corpus_id, "bin": int(bin)},
    )
