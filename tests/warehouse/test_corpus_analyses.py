"""The corpus marts (warehouse/marts/090_corpus_analyses.sql) on known corpus rows.

`build_corpus_base` ingests WorldCuisines and BORSch and imports and scores the real answers of one model
(MODEL, all 30 prompt languages); `build_corpus_warehouse` copies it, writes a small English corpus about
four WorldCuisines dishes (which have those real scored answers) and a Ukrainian corpus about parallel BORSch
pairs (with a few hand-written BORSch answers), and publishes it. The counts are chosen to land in known bins:
  co-occurrence count, log10(1 + n) over 0..log10(1000) in 10 bins: 0 -> 1, 9 -> 4, 99 -> 7, 999 -> 10;
  ratio true/any in 10 bins over 0..1: 9/20 -> 5, 99/396 -> 3, 999/999 -> 10, 0/0 -> no ratio;
  code mixing, sign(d)·log10(1 + |d|) over -3..3 in 9 bins: -999 -> 1, 0 -> 5, 9 -> 7, 999 -> 9.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from tests import shared_builds
from tests.helpers import copy_warehouse, query, run_cli
from warehouse.db import Warehouse
from warehouse.queries import corpus

MODEL = "gpt-4o-2024-08-06"
EN_DISHES = {  # dish_key: (docs_with_true_country, docs_with_any_country)
    "worldcuisines:en:100": (0, 0),  # Kabsa
    "worldcuisines:en:1001": (9, 20),  # Arepa
    "worldcuisines:en:1010": (99, 396),  # Banana bread
    "worldcuisines:en:1017": (999, 999),  # Whole wheat bread
}
COUNT_BINS = {"worldcuisines:en:100": 1, "worldcuisines:en:1001": 4, "worldcuisines:en:1010": 7,
              "worldcuisines:en:1017": 10}  # fmt: skip
RATIO_BINS = {"worldcuisines:en:1001": 5, "worldcuisines:en:1010": 3, "worldcuisines:en:1017": 10}
PAIRS = {  # pair_id: (uk_name count, ru_name count) -> d = uk - ru
    8: (1000, 1),  # КУЛЕБ'ЯКА / КУЛЕБЯКА, d = 999
    9: (1, 1000),  # ЧІГ-КЕФТЕ / ЧИГ-КЁФТЕ, d = -999
    10: (5, 5),  # КНИШ / КНЫШ, d = 0
    11: (10, 1),  # СОЧНИКИ / СОЧНИК, d = 9
    2: (50, 50),  # ПЛОВ / ПЛОВ: identical names, excluded
}
PAIR_BINS = {8: 9, 9: 1, 10: 5, 11: 7}
# BORSch answers (task, dish_key, variant, metric, value): the Ukrainian dishes of pairs 8, 9, 10
BORSCH_ANSWERS = [
    ("origin_qa", "borsch:uk:134", "1", "jaccard", 1.0),
    ("origin_qa", "borsch:uk:134", "2", "jaccard", 0.5),
    ("origin_qa", "borsch:uk:147", "1", "jaccard", 0.0),
    ("origin_qa", "borsch:uk:147", "2", "jaccard", 0.0),
    ("origin_qa", "borsch:uk:148", "1", "jaccard", 1.0),
    ("origin_qa", "borsch:ru:203", "1", "jaccard", 1.0),  # the Russian dish of pair 9: not counted
    ("dish_name_vqa", "borsch:uk:134", "1", "name_match", 1.0),
    ("dish_name_vqa", "borsch:uk:147", "1", "name_match", 0.0),
    ("dish_name_vqa", "borsch:uk:147", "2", "name_match", 1.0),
]
# Fig. 5's rule as published (§4.2, Appendix I: the answer contains a gold name within one edit) beside ours: the
# first answer about dish 147 names it inside a sentence no whole candidate of ours matched
PAPER_NAME_SCORES = {("borsch:uk:134", "1"): 1.0, ("borsch:uk:147", "1"): 1.0, ("borsch:uk:147", "2"): 1.0}
SAMPLES = [  # corpus, dish_key, country, sentence
    ("uk-test", "borsch:uk:134", "FR", "Кулеб'яка по-французьки подається в Парижі."),
    ("uk-test", "borsch:uk:134", "FR", "Кулеб'яка по-французьки подається в Парижі."),  # duplicate
    ("uk-test", "borsch:uk:134", "RU", "Кулеб'яка — страва російської кухні."),  # a true origin: not a sample
    ("uk-test", "borsch:uk:148", "US", "Книш продають у Нью-Йорку."),
    ("en-test", "worldcuisines:en:1001", "US", "Arepa stands are common in Miami."),
]


def build_corpus_base(data_dir: Path, worldcuisines: Path, directory: Path) -> Path:
    """A published warehouse in `directory` without any corpus: the WorldCuisines ingest `worldcuisines` (copied),
    BORSch, and the real open-ended WorldCuisines answers of MODEL (all 30 languages), imported and scored."""
    target = copy_warehouse(worldcuisines, directory / "warehouse.duckdb")
    run_cli(target, "--no-publish", "ingest", "borsch", "--source", str(data_dir / "borsch"))
    answers = data_dir / "worldcuisines" / "predictions" / f"task2_oe_{MODEL}.jsonl"
    run_cli(target, "--no-publish", "import-responses", str(answers))
    run_cli(target, "score")
    return target


def build_corpus_warehouse(base: Path, directory: Path) -> Path:
    """A copy of `base` with the test corpora and their hand-written BORSch answers, published."""
    target = copy_warehouse(base, directory / "warehouse.duckdb")
    con = duckdb.connect(str(Warehouse(target).working_path))
    try:
        fill_corpora(con)
    finally:
        con.close()
    Warehouse(target).publish()
    return target


def clear_corpora(con: duckdb.DuckDBPyConnection) -> None:
    """Remove every corpus of a warehouse (the demo's own UA-GEC scan), so that only known test corpora count."""
    for table in (
        "corpus_samples",
        "corpus_name_counts",
        "corpus_dish_counts",
        "corpus_shards",
        "corpora",
        "corpus_shard_dish_counts",
        "corpus_shard_name_counts",
    ):
        con.execute(f"DELETE FROM core.{table}")


def fill_corpora(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(
        "INSERT INTO core.corpora VALUES ('en-test', 'en', 'test', 'text', 1000, 1), "
        "('uk-test', 'uk', 'test', 'text', 10, 1)"
    )
    for dish_key, (true, any_country) in EN_DISHES.items():
        con.execute(
            "INSERT INTO core.corpus_dish_counts (corpus_id, dish_key, docs_with_dish, docs_with_true_country, "
            "docs_with_any_country, true_country_mentions, any_country_mentions) VALUES ('en-test', ?, ?, ?, ?, ?, ?)",
            [dish_key, any_country + 5, true, any_country, true, 2 * any_country],  # two countries per document
        )
    for pair_id, (uk, ru) in PAIRS.items():
        con.execute("INSERT INTO core.corpus_name_counts VALUES ('uk-test', ?, ?, ?)", [pair_id, uk, ru])
    for index, (corpus_id, dish_key, country, sentence) in enumerate(SAMPLES):
        con.execute(
            "INSERT INTO core.corpus_samples (corpus_id, dish_key, country, sentence, shard_path, doc_index) "
            "VALUES (?, ?, ?, ?, 'shard-0.jsonl', ?)",
            [corpus_id, dish_key, country, sentence, index],
        )
    for task, kind, metrics in (
        ("origin_qa", "countries", ["jaccard", "dice", "overlap", "accuracy"]),
        ("dish_name_vqa", "dish_name", ["name_match", "name_contains_lev1"]),
    ):
        con.execute(
            "INSERT INTO core.tasks VALUES (?, 'borsch', 'text', ?, 'test', ?, NULL) ON CONFLICT DO NOTHING",
            [f"borsch.{task}", kind, metrics],
        )
    for n, (task, dish_key, variant, metric, value) in enumerate(BORSCH_ANSWERS):
        item_id = f"borsch.{task}:{dish_key}"
        generation_id = f"corpus-test-{n}"
        con.execute(
            "INSERT INTO core.ingested_items (item_id, task_id, dish_key, source_ref) VALUES (?, ?, ?, ?) "
            "ON CONFLICT DO NOTHING",
            [item_id, f"borsch.{task}", dish_key, dish_key],
        )
        con.execute(
            "INSERT INTO core.generations (generation_id, run_id, model_id, item_id, lang, variant, response, origin) "
            "VALUES (?, 'corpus-test', ?, ?, 'uk', ?, 'answer', 'import')",
            [generation_id, MODEL, item_id, variant],
        )
        con.execute(
            "INSERT INTO core.extractions (generation_id, extractor, status, countries, regions, dish_names) "
            "VALUES (?, 'test', 'ok', ['UA'], [], [])",
            [generation_id],
        )
        metrics = {metric: value}
        if metric == "jaccard":
            metrics |= {"dice": value, "overlap": value, "accuracy": float(value == 1.0)}
        if metric == "name_match":
            metrics["name_contains_lev1"] = PAPER_NAME_SCORES[dish_key, variant]
        for name, score in metrics.items():
            con.execute("INSERT INTO core.scores VALUES (?, ?, ?)", [generation_id, name, score])
    con.execute("CHECKPOINT")


def shared_corpus_warehouse(data_dir: Path, ingested_template, *, with_corpus: bool = True) -> Path:
    """The corpus warehouse (`with_corpus`) or its base without a corpus, made once per test session and read by
    several modules (none writes to them)."""
    base = shared_builds.made(
        "corpus-base", lambda folder: build_corpus_base(data_dir, ingested_template("worldcuisines"), folder)
    )
    if not with_corpus:
        return base
    return shared_builds.made("corpus", lambda folder: build_corpus_warehouse(base, folder))


@pytest.fixture(scope="module")
def corpus_warehouse(data_dir: Path, ingested_template) -> Path:
    return shared_corpus_warehouse(data_dir, ingested_template)


def test_dishes_fall_into_ten_log_spaced_count_bins_and_ten_ratio_bins(corpus_warehouse: Path):
    rows = query(
        corpus_warehouse,
        "SELECT dish_key, count_bin, ratio_bin, ratio FROM marts.cooccurrence_dishes WHERE corpus_id = 'en-test'",
    )
    assert {key: count_bin for key, count_bin, _, _ in rows} == COUNT_BINS
    assert {key: ratio_bin for key, _, ratio_bin, _ in rows if ratio_bin is not None} == RATIO_BINS
    assert [ratio for key, _, _, ratio in rows if key == "worldcuisines:en:100"] == [None]  # never next to a country


def test_count_bin_edges_are_log_spaced_between_zero_and_the_largest_count(corpus_warehouse: Path):
    edges = query(
        corpus_warehouse,
        "SELECT DISTINCT bin, bin_low, bin_high FROM marts.cooccurrence_bins "
        "WHERE corpus_id = 'en-test' AND measure = 'count' ORDER BY bin",
    )
    assert [row[0] for row in edges] == [1, 4, 7, 10]
    for bin_, low, high in edges:
        assert low == pytest.approx(10 ** ((bin_ - 1) * 0.3) - 1)
        assert high == pytest.approx(10 ** (bin_ * 0.3) - 1)
    assert edges[-1][2] == pytest.approx(999)


def test_cooccurrence_bins_average_the_real_answers_about_the_binned_dishes(corpus_warehouse: Path):
    expected = query(
        corpus_warehouse,
        "SELECT dish_key, count(*), avg(jaccard), stddev_samp(jaccard) FROM marts.origin_scores "
        "WHERE model = ? AND lang = 'en' GROUP BY dish_key",
        [MODEL],
    )
    expected = {key: (n, mean, sd) for key, n, mean, sd in expected}
    rows = query(
        corpus_warehouse,
        "SELECT bin, n_dishes, n_answers, jaccard, jaccard_low, jaccard_high, dishes FROM marts.cooccurrence_bins "
        "WHERE corpus_id = 'en-test' AND measure = 'count' AND model = ? AND lang = 'en' AND task = 'origin_vqa' "
        "ORDER BY bin",
        [MODEL],
    )
    assert [row[0] for row in rows] == [1, 4, 7, 10]
    by_bin = {row[0]: row for row in rows}
    for dish_key, bin_ in COUNT_BINS.items():
        n, mean, sd = expected[dish_key]
        _, n_dishes, n_answers, jaccard, low, high, _ = by_bin[bin_]
        assert (n_dishes, n_answers) == (1, n)
        assert jaccard == pytest.approx(mean)
        if n == 1:
            assert (low, high) == (None, None)
        else:
            half = 1.96 * sd / n**0.5
            assert (low, high) == (pytest.approx(max(mean - half, 0)), pytest.approx(min(mean + half, 1)))
    assert by_bin[4][6] == "Arepa"  # the dishes of a bin, for the hover


def test_ratio_bins_leave_out_dishes_never_seen_next_to_a_country(corpus_warehouse: Path):
    bins = query(
        corpus_warehouse,
        "SELECT DISTINCT bin, bin_low, bin_high, dishes FROM marts.cooccurrence_bins "
        "WHERE corpus_id = 'en-test' AND measure = 'ratio' AND model = ? AND lang = 'en' ORDER BY bin",
        [MODEL],
    )
    assert [(b, low, high) for b, low, high, _ in bins] == [
        (3, pytest.approx(0.2), pytest.approx(0.3)),
        (5, pytest.approx(0.4), pytest.approx(0.5)),
        (10, pytest.approx(0.9), pytest.approx(1.0)),
    ]
    assert "Kabsa" not in " ".join(dishes for *_, dishes in bins)


def test_code_mixing_pairs_fall_into_nine_symmetric_log_bins(corpus_warehouse: Path):
    rows = query(corpus_warehouse, "SELECT pair_id, d, bin, d_low, d_high FROM marts.codemix_pairs")
    assert {pair: bin_ for pair, _, bin_, _, _ in rows} == PAIR_BINS
    assert {pair: d for pair, d, *_ in rows} == {8: 999, 9: -999, 10: 0, 11: 9}
    middle = next((low, high) for pair, _, _, low, high in rows if pair == 10)
    assert middle[0] == pytest.approx(-middle[1])  # bin 5 is centred on d = 0
    assert middle[1] == pytest.approx(10 ** (3 / 9) - 1)


def test_identical_names_are_excluded_and_counted(corpus_warehouse: Path):
    [(n_parallel, n_identical, n_binned, n_not_counted)] = query(
        corpus_warehouse,
        "SELECT n_parallel, n_identical, n_binned, n_not_counted FROM marts.codemix_excluded "
        "WHERE corpus_id = 'uk-test'",
    )
    [(all_pairs, identical)] = query(
        corpus_warehouse,
        "SELECT count(*), count(*) FILTER (lower(ru_name) = lower(uk_name)) FROM core.parallel_dishes",
    )
    assert identical > 0
    assert (n_parallel, n_identical, n_binned) == (all_pairs, identical, 4)
    assert n_not_counted == all_pairs - identical - 4
    assert not query(corpus_warehouse, "SELECT * FROM marts.codemix_pairs WHERE pair_id = 2")


def test_code_mixing_bins_average_the_ukrainian_dishes_answers(corpus_warehouse: Path):
    rows = query(
        corpus_warehouse,
        "SELECT metric, bin, task, n_pairs, n_answers, mean, mean_low, mean_high FROM marts.codemix_bins "
        "WHERE corpus_id = 'uk-test' AND model = ? ORDER BY metric, bin",
        [MODEL],
    )
    got = {
        (metric, bin_): (task, n_pairs, n_answers, mean) for metric, bin_, task, n_pairs, n_answers, mean, *_ in rows
    }
    assert got == {
        ("jaccard", 1): ("origin_qa", 1, 2, 0.0),  # pair 9: only the Ukrainian dish's answers
        ("jaccard", 5): ("origin_qa", 1, 1, 1.0),
        ("jaccard", 9): ("origin_qa", 1, 2, 0.75),
        ("name_match", 1): ("dish_name_vqa", 1, 2, 0.5),
        ("name_match", 9): ("dish_name_vqa", 1, 1, 1.0),
        ("name_contains_lev1", 1): ("dish_name_vqa", 1, 2, 1.0),  # Fig. 5 as published: both answers contain it
        ("name_contains_lev1", 9): ("dish_name_vqa", 1, 1, 1.0),
    }
    intervals = {(metric, bin_): (low, high) for metric, bin_, *_, low, high in rows}
    # values 1.0 and 0.5: sd = √0.125, half width 1.96·sd/√2 = 0.49, clipped to the scores' range 0..1
    assert intervals[("jaccard", 9)] == (pytest.approx(0.75 - 0.49), 1.0)
    assert intervals[("jaccard", 5)] == (None, None)  # one answer: no interval


def test_name_scores_mart_holds_the_dish_name_answers(corpus_warehouse: Path):
    rows = query(
        corpus_warehouse,
        "SELECT dataset, task, model, lang, dish_key, name_match FROM marts.name_scores WHERE dataset = 'borsch'",
    )
    assert sorted(rows) == sorted(
        ("borsch", "dish_name_vqa", MODEL, "uk", key, value)
        for task, key, _, _, value in BORSCH_ANSWERS
        if task == "dish_name_vqa"
    )


def test_samples_keep_incorrect_cooccurrences_once_with_a_stable_id(corpus_warehouse: Path):
    rows = query(
        corpus_warehouse,
        "SELECT sample_id, corpus_id, lang, dish_key, name, country, country_name, origins FROM marts.corpus_samples",
    )
    assert sorted((r[1], r[3], r[5]) for r in rows) == [
        ("en-test", "worldcuisines:en:1001", "US"),
        ("uk-test", "borsch:uk:134", "FR"),
        ("uk-test", "borsch:uk:148", "US"),
    ]
    assert len({r[0] for r in rows}) == 3 and all(len(r[0]) == 16 for r in rows)
    kulebyaka = next(r for r in rows if r[3] == "borsch:uk:134")
    assert kulebyaka[2] == "uk" and kulebyaka[6] == "France" and kulebyaka[7] == "RU"
    again = query(corpus_warehouse, "SELECT sample_id FROM marts.corpus_samples ORDER BY sample_id")
    assert sorted(r[0] for r in rows) == [r[0] for r in again]


def test_queries_pool_prompt_languages_and_list_corpora(corpus_warehouse: Path):
    from warehouse.queries.answers import Filters

    corpora = corpus.corpora(corpus_warehouse)
    assert corpora["corpus_id"].tolist() == ["en-test", "uk-test"]
    filters = Filters(dataset="worldcuisines", task="origin_vqa", models=(MODEL,))
    pooled = corpus.cooccurrence_bins(corpus_warehouse, filters, "en-test", "count", "model")
    assert pooled["bin"].tolist() == [1, 4, 7, 10]
    [(n, mean, sd)] = query(
        corpus_warehouse,
        "SELECT count(*), avg(jaccard), stddev_samp(jaccard) FROM marts.origin_scores "
        "WHERE model = ? AND dish_key = 'worldcuisines:en:1001'",
        [MODEL],
    )
    arepa = pooled[pooled["bin"] == 4].iloc[0]
    assert (arepa["n_answers"], arepa["jaccard"]) == (n, pytest.approx(mean))  # 30 prompt languages pooled
    half = 1.96 * sd / n**0.5
    assert arepa["jaccard_low"] == pytest.approx(max(mean - half, 0))
    assert arepa["jaccard_high"] == pytest.approx(min(mean + half, 1))
    assert arepa["dishes"] == "Arepa"
    by_lang = corpus.cooccurrence_bins(corpus_warehouse, filters, "en-test", "count", "lang")
    assert by_lang["line"].nunique() == 30


def test_an_empty_corpus_gives_empty_marts(data_dir: Path, ingested_template):
    path = shared_corpus_warehouse(data_dir, ingested_template, with_corpus=False)
    for mart in ("corpora", "cooccurrence_dishes", "cooccurrence_bins", "codemix_pairs", "codemix_excluded",
                 "codemix_bins", "corpus_samples"):  # fmt: skip
        assert query(path, f"SELECT count(*) FROM marts.{mart}") == [(0,)]
    assert corpus.corpora(path).empty
