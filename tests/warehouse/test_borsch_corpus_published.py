"""BORSch's corpus analyses as published (issue 35): the co-occurrence ratio by mentions (§4.3: correct
mentions over all mentions of the dish with any country) in 10 log-spaced bins beside ours, the surzhyk
statistics of §4.2, and Fig. 2a's frequency against rank. One small Ukrainian corpus is scanned once,
with `corpus scan` as a user runs it, on the real BORSch data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rapidfuzz.distance import Levenshtein

from tests.helpers import copy_warehouse, query, run_cli
from warehouse.queries import corpus as queries

# (document, what it names): each dish's true origin mentions over all its country mentions
DOCUMENTS = [
    "Паелья з Іспанії.",  # ПАЕЛЬЯ (ES): 1 of 1
    "Суші з Японії, а не з Китаю.",  # СУШІ (JP): 1 of 2
    "Хінкалі: Грузія, Вірменія, Азербайджан, Туреччина, Іран.",  # ХІНКАЛІ (GE): 1 of 5 ...
    "Хінкалі: Росія, Україна, Польща, Казахстан, Франція.",  # ... and 0 of 5: 1 of 10
    "Хачапурі: Вірменія.",  # ХАЧАПУРІ (GE): 0 of 1
    "Хачапури смачні.",  # the Russian name in a Ukrainian text (surzhyk)
]
EXPECTED = {"ПАЕЛЬЯ": (1, 1), "СУШІ": (1, 2), "ХІНКАЛІ": (1, 10), "ХАЧАПУРІ": (0, 1)}


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory, ingested_template) -> Path:
    folder = tmp_path_factory.mktemp("borsch-corpus")
    warehouse = copy_warehouse(ingested_template("borsch"), folder / "wh" / "warehouse.duckdb")
    corpus = folder / "uk.jsonl"
    corpus.write_text("".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in DOCUMENTS), encoding="utf-8")
    run_cli(warehouse, "corpus", "scan", "--lang", "uk", "--source", str(corpus))
    return warehouse


def test_the_ratio_counts_mentions_as_published(scanned: Path) -> None:
    rows = query(
        scanned,
        """SELECT name, true_country_mentions, any_country_mentions, mention_ratio, ratio
           FROM marts.cooccurrence_dishes WHERE docs_with_dish > 0 AND upper(name) IN (SELECT unnest(?))""",
        [list(EXPECTED)],
    )
    got = {name.upper(): (true, any_) for name, true, any_, _, _ in rows}
    assert got == EXPECTED
    ratios = {name.upper(): (mention, documents) for name, _, _, mention, documents in rows}
    assert ratios["ХІНКАЛІ"] == (pytest.approx(0.1), pytest.approx(0.5))  # ours counts documents: 1 of 2
    export = run_cli(scanned, "export", "cooccurrence").stdout.splitlines()[0].split(",")
    contract = ["lang", "dataset", "dish_id", "name", "docs_with_dish", "docs_with_true_country"]
    assert export[:7] == [*contract, "docs_with_any_country"]
    assert export[-3:] == ["true_country_mentions", "any_country_mentions", "mention_ratio"]


def test_ten_log_spaced_bins_from_the_smallest_positive_ratio_to_one(scanned: Path) -> None:
    bins = dict(
        query(
            scanned,
            "SELECT upper(name), mention_ratio_bin FROM marts.cooccurrence_dishes WHERE mention_ratio IS NOT NULL",
        )
    )
    # lo = log10(0.1) = -1: 1 -> bin 10, 0.5 -> floor(10 * 0.699) + 1 = 7, 0.1 -> 1, 0 -> 1
    assert {name: bins[name] for name in EXPECTED} == {"ПАЕЛЬЯ": 10, "СУШІ": 7, "ХІНКАЛІ": 1, "ХАЧАПУРІ": 1}
    edges = query(
        scanned,
        "SELECT DISTINCT bin, bin_low, bin_high FROM marts.cooccurrence_bins WHERE measure = 'mention_ratio'",
    )
    for bin_, low, high in edges:  # only bins with answers appear; BORSch has none of its own here
        assert high == pytest.approx(10 ** (-1 + bin_ / 10))
        assert low == (0 if bin_ == 1 else pytest.approx(10 ** (-1 + (bin_ - 1) / 10)))


def test_surzhyk_statistics(scanned: Path) -> None:
    pairs = query(scanned, "SELECT ru_name, uk_name FROM core.parallel_dishes")
    distances = [Levenshtein.distance(ru.strip().lower(), uk.strip().lower()) for ru, uk in pairs]
    ((n, distinct, share, mean, mean_distinct),) = query(
        scanned,
        "SELECT n_pairs, n_distinct_names, share_distinct_names, mean_edit_distance, mean_edit_distance_distinct "
        "FROM marts.surzhyk_names",
    )
    assert n == len(pairs) == 433
    assert distinct == sum(d > 0 for d in distances) and share == pytest.approx(distinct / n)
    assert mean == pytest.approx(sum(distances) / n)
    assert mean_distinct == pytest.approx(sum(distances) / distinct)
    assert round(mean, 1) == 2.3 and round(share, 3) == 0.665  # §4.2: "average edit distance of 2.3 characters"
    ((own, other, mixed),) = query(scanned, "SELECT docs_own_name, docs_other_name, code_mixed_share FROM "
                                   "marts.surzhyk_corpora")  # fmt: skip
    per_pair = query(
        scanned,
        "SELECT sum(docs_uk_name), sum(docs_ru_name) FROM marts.codemix WHERE NOT identical_names",
    )
    assert (own, other) == per_pair[0] and other >= 1  # "Хачапури" in a Ukrainian text
    assert mixed == pytest.approx(other / (own + other))


def test_frequency_against_rank_as_fig_2a(scanned: Path) -> None:
    corpus_id = query(scanned, "SELECT corpus_id FROM core.corpora")[0][0]
    ranked = queries.frequency_by_rank(scanned, corpus_id, "borsch")
    counted = ranked[ranked["docs_with_dish"] > 0]
    assert list(ranked["rank"]) == list(range(1, len(ranked) + 1))
    assert counted["docs_with_dish"].is_monotonic_decreasing and counted.iloc[0]["docs_with_dish"] == 2  # ХІНКАЛІ
    assert set(ranked["found_by"]) <= {"wikidata", "bootstrapped"}
    sources = dict(query(scanned, "SELECT dish_key, source FROM marts.dishes WHERE dataset = 'borsch'"))
    for key, found_by in ranked[["dish_key", "found_by"]].itertuples(index=False):
        assert (found_by == "wikidata") == (sources[key] == "wikidata")
