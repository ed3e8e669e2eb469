"""Linked answers (warehouse/marts/035_linked_origin_answers.sql) and the linked rows of the corpus
and language-pull marts, against naive recounts in Python.

BORSch ships no model answers; its dishes linked to answered WorldCuisines dishes borrow those
answers, scored against BORSch's gold for the dish and against WorldCuisines' gold for the question.
`build_linked_warehouse` copies the real demo warehouse and adds a small Ukrainian corpus about three
linked BORSch pairs, with counts that land in known bins:
  co-occurrence count over 0..log10(1000): 0 -> 1, 9 -> 4, 999 -> 10;
  code mixing d = uk - ru over -3..3 in 9 bins: -999 -> 1, 9 -> 7, 999 -> 9.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import duckdb
import pytest

from pipeline.score.metrics import first_in_gold, jaccard
from tests import shared_builds
from tests.helpers import copy_warehouse, query
from tests.warehouse.test_corpus_analyses import clear_corpora
from warehouse.db import Warehouse
from warehouse.queries import corpus, language
from warehouse.queries.answers import Filters
from warehouse.queries.linked import OWN, AnswerSource, summary

MODEL = "gpt-4o-2024-08-06"
CORPUS = "uk-linked"
# pair_id: (uk name docs, ru name docs); the pairs' dishes are the same dish as answered WorldCuisines dishes
PAIRS = {85: (1, 1000), 141: (10, 1), 135: (1000, 1)}  # ВУХА/УХА (Ukha), ВЕРГУНИ (Verhuny), РОЗСОЛЬНИК (Rassolnik)
PAIR_BINS = {85: 1, 141: 7, 135: 9}
DISHES = {"borsch:uk:588": (0, 0), "borsch:uk:470": (9, 20), "borsch:uk:460": (999, 999)}  # (true, any)
COUNT_BINS = {"borsch:uk:588": 1, "borsch:uk:470": 4, "borsch:uk:460": 10}
VINEGRET = "borsch:uk:543"  # ВІНЕГРЕТ, the same dish as WorldCuisines' Vinegret (worldcuisines:en:1198)


def build_linked_warehouse(published: Path, directory: Path) -> Path:
    target = copy_warehouse(published, directory / "warehouse.duckdb")  # its snapshot too: an incremental publish
    con = duckdb.connect(str(Warehouse(target).working_path))
    try:
        clear_corpora(con)
        con.execute(f"INSERT INTO core.corpora VALUES ('{CORPUS}', 'uk', 'test', 'text', 2000, 1)")
        for pair_id, (uk, ru) in PAIRS.items():
            con.execute("INSERT INTO core.corpus_name_counts VALUES (?, ?, ?, ?)", [CORPUS, pair_id, uk, ru])
        for dish_key, (true, any_country) in DISHES.items():
            con.execute(
                "INSERT INTO core.corpus_dish_counts (corpus_id, dish_key, docs_with_dish, docs_with_true_country, "
                "docs_with_any_country, true_country_mentions, any_country_mentions) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [CORPUS, dish_key, any_country + 5, true, any_country, true, any_country],  # one country a document
            )
        con.execute("CHECKPOINT")
    finally:
        con.close()
    Warehouse(target).publish()
    return target


def shared_linked_warehouse(real_warehouse: Path) -> Path:
    """`build_linked_warehouse` made once per test session and read by several modules (none writes to it)."""
    return shared_builds.made("linked", lambda folder: build_linked_warehouse(real_warehouse, folder))


@pytest.fixture(scope="module")
def linked_warehouse(real_warehouse: Path) -> Path:
    return shared_linked_warehouse(real_warehouse)


def dish_gold(path: Path, dish_key: str) -> list[str]:
    return [c for (c,) in query(path, "SELECT country FROM core.dish_origins WHERE dish_key = ?", [dish_key])]


def test_linked_answers_are_the_linked_records_answers_scored_against_both_golds(linked_warehouse: Path):
    rows = query(
        linked_warehouse,
        """SELECT l.dataset, l.answer_dataset, l.answer_dish_key, l.via, l.task, l.generation_id,
                  l.jaccard_dish_gold, l.accuracy_dish_gold, l.jaccard_answer_gold, l.dish_gold, e.countries,
                  s.jaccard
        FROM marts.linked_origin_answers l
        JOIN core.extractions e USING (generation_id)
        JOIN marts.origin_scores s USING (generation_id)
        WHERE l.dish_key = ?""",
        [VINEGRET],
    )
    assert len(rows) == 12 * 30  # every model, every prompt language, once
    gold = dish_gold(linked_warehouse, VINEGRET)
    assert gold == ["RU"]
    for dataset, asked, record, via, task, _, j_dish, a_dish, j_asked, shown_gold, countries, own in rows:
        assert (dataset, asked, record, via, task) == ("borsch", "worldcuisines", "worldcuisines:en:1198", "exact",
                                                       "origin_vqa")  # fmt: skip
        assert shown_gold == "RU"
        assert j_dish == pytest.approx(jaccard(countries, gold))
        assert a_dish == (float(countries[0] in gold) if countries else 0.0)
        assert j_asked == own  # WorldCuisines' own score of the answer
    # Vinegret is Russian for both datasets here; where they differ the two scores differ too
    assert query(
        linked_warehouse,
        """SELECT count(*) > 0 FROM marts.linked_origin_answers
        WHERE dish_gold <> answer_gold AND jaccard_dish_gold <> jaccard_answer_gold""",
    ) == [(True,)]


def test_scores_against_the_dish_s_own_gold_are_the_score_stage_s_metrics(linked_warehouse: Path):
    """The mart scores a borrowed answer against the linked dish's gold in SQL (the links change after the answers
    are scored); every row is what pipeline/score/metrics.py gives: jaccard, and accuracy = first_in_gold."""
    rows = query(
        linked_warehouse,
        """SELECT countries, string_split(dish_gold, ','), jaccard_dish_gold, accuracy_dish_gold
        FROM marts.linked_origin_answers WHERE dish_gold <> ''""",
    )
    assert len(rows) > 1000
    wrong = [row for row in rows if (row[2], row[3]) != (jaccard(row[0], row[1]), first_in_gold(row[0], row[1]))]
    assert wrong == []
    assert query(
        linked_warehouse,
        "SELECT count(*) FROM marts.linked_origin_answers WHERE dish_gold = '' AND jaccard_dish_gold IS NOT NULL",
    ) == [(0,)]  # no gold origin: no score


def test_summary_names_the_asking_dataset_its_models_and_prompt_languages(linked_warehouse: Path):
    frame = summary(linked_warehouse, "borsch")
    top = frame.iloc[0]
    assert (top["answer_dataset"], top["task"]) == ("worldcuisines", "origin_vqa")
    assert len(top["models"]) == 12 and len(top["langs"]) == 30
    assert top["n_dishes"] >= 100 and top["n_answers"] == top["n_linked_records"] * 360
    assert summary(linked_warehouse, "worldcuisines").empty  # BORSch has no answers to lend


def test_cooccurrence_bins_of_linked_answers_under_each_gold(linked_warehouse: Path):
    for gold, column in (("borsch", "jaccard_dish_gold"), ("worldcuisines", "jaccard_answer_gold")):
        rows = query(
            linked_warehouse,
            """SELECT bin, n_dishes, n_answers, jaccard, answer_dataset, task, dishes FROM marts.cooccurrence_bins
            WHERE corpus_id = ? AND measure = 'count' AND dataset = 'borsch' AND model = ? AND lang = 'en'
              AND answers_from = 'linked' AND gold = ? ORDER BY bin""",
            [CORPUS, MODEL, gold],
        )
        assert [r[0] for r in rows] == sorted(COUNT_BINS.values())
        for dish_key, bin_ in COUNT_BINS.items():
            values = [
                v
                for (v,) in query(
                    linked_warehouse,
                    f"SELECT {column} FROM marts.linked_origin_answers "
                    "WHERE dish_key = ? AND model = ? AND lang = 'en'",
                    [dish_key, MODEL],
                )
            ]
            [(_, n_dishes, n_answers, mean, asked, task, _)] = [r for r in rows if r[0] == bin_]
            assert (n_dishes, n_answers, asked, task) == (1, len(values), "worldcuisines", "origin_vqa")
            assert mean == pytest.approx(sum(values) / len(values))
    assert query(
        linked_warehouse,
        "SELECT count(*) FROM marts.cooccurrence_bins WHERE corpus_id = ? AND answers_from = 'own'",
        [CORPUS],
    ) == [(0,)]  # no native BORSch answers: nothing is passed off as its own


def test_cooccurrence_query_reads_one_kind_of_answers_and_one_gold(linked_warehouse: Path):
    filters = Filters(dataset="borsch", task="origin_vqa", models=(MODEL,))
    assert corpus.cooccurrence_bins(linked_warehouse, filters, CORPUS, "count", "model").empty  # OWN by default
    pooled = corpus.cooccurrence_bins(
        linked_warehouse, filters, CORPUS, "count", "model", AnswerSource("linked", "borsch")
    )
    assert pooled["bin"].tolist() == [1, 4, 10]
    assert pooled["n_answers"].tolist() == [30, 30, 30]  # 30 prompt languages pooled, one gold only
    [(mean,)] = query(
        linked_warehouse,
        "SELECT avg(jaccard_dish_gold) FROM marts.linked_origin_answers WHERE dish_key = 'borsch:uk:460' AND model = ?",
        [MODEL],
    )
    assert pooled.loc[pooled["bin"] == 10, "jaccard"].iloc[0] == pytest.approx(mean)
    with pytest.raises(ValueError, match="gold dataset"):
        AnswerSource("linked")
    # the dishes behind a point hold exactly the point's answers, under the same gold
    for gold in ("borsch", "worldcuisines"):
        source = AnswerSource("linked", gold)
        point = corpus.cooccurrence_bins(linked_warehouse, filters, CORPUS, "count", "model", source)
        behind = corpus.cooccurrence_bin_dishes(linked_warehouse, filters, CORPUS, "count", 10, "model", MODEL, source)
        assert behind["dish_key"].tolist() == ["borsch:uk:460"]
        top = point[point["bin"] == 10].iloc[0]
        assert behind["n_answers"].sum() == top["n_answers"]
        assert behind["jaccard"].iloc[0] == pytest.approx(top["jaccard"])


def naive_pairs(path: Path) -> dict[tuple[str, int, str], list[float]]:
    """(metric, bin, gold) -> the per-answer values of the linked answers about each pair."""
    out: dict[tuple[str, int, str], list[float]] = defaultdict(list)
    for pair_id, bin_ in PAIR_BINS.items():
        [(ru_key, uk_key)] = query(
            path, "SELECT ru_dish_key, uk_dish_key FROM core.parallel_dishes WHERE pair_id = ?", [pair_id]
        )
        gold = dish_gold(path, uk_key)
        origin = query(
            path,
            """SELECT DISTINCT generation_id, countries, jaccard_answer_gold FROM marts.linked_origin_answers
            WHERE dish_key IN (?, ?) AND model = ?""",
            [ru_key, uk_key, MODEL],
        )
        for _, countries, own in origin:
            out["jaccard", bin_, "borsch"].append(jaccard(countries, gold) if countries else 0.0)
            out["jaccard", bin_, "worldcuisines"].append(own)
        names = query(
            path,
            """SELECT DISTINCT generation_id, score_own_gold FROM marts.linked_answers
            WHERE kind = 'name' AND dish_key IN (?, ?) AND model = ?""",
            [ru_key, uk_key, MODEL],
        )
        out["name_match", bin_, "worldcuisines"].extend(value for _, value in names)
    return {key: values for key, values in out.items() if values}


def test_codemix_bins_of_linked_answers_per_pair_under_each_gold(linked_warehouse: Path):
    rows = query(
        linked_warehouse,
        """SELECT metric, bin, gold, sum(n_answers), sum(value_sum), max(n_pairs) FROM marts.codemix_bins
        WHERE corpus_id = ? AND dataset = 'borsch' AND model = ? AND answers_from = 'linked'
        GROUP BY metric, bin, gold""",
        [CORPUS, MODEL],
    )
    got = {(metric, bin_, gold): (n, total, pairs) for metric, bin_, gold, n, total, pairs in rows}
    expected = naive_pairs(linked_warehouse)
    assert set(got) == set(expected)
    assert ("name_match", 1, "worldcuisines") in got  # Ukha's dish-name answers, by WorldCuisines' names
    for key, values in expected.items():
        n, total, pairs = got[key]
        assert (n, pairs) == (len(values), 1)
        assert total == pytest.approx(sum(values))


def naive_pull(path: Path, gold_kind: str) -> dict[str, tuple[int, int]]:
    """Prompt language -> (wrong answers, of them naming a country where the language is spoken),
    for MODEL's linked answers about BORSch dishes, each answer once."""
    column = "accuracy_dish_gold" if gold_kind == "dish" else "accuracy_answer_gold"
    rows = query(
        path,
        f"""SELECT generation_id, any_value(lang), any_value(status), any_value(countries), max({column})
        FROM marts.linked_origin_answers WHERE dataset = 'borsch' AND model = ? AND {column} IS NOT NULL
        GROUP BY generation_id""",
        [MODEL],
    )
    spoken: dict[str, set[str]] = defaultdict(set)
    for lang, country in query(path, "SELECT lang, country FROM core.language_countries"):
        spoken[lang].add(country)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for _, lang, status, countries, right in rows:
        if status != "ok" or right != 0:
            continue
        base = {"zh_cn": "zh", "tl": "fil"}.get(lang, "nan" if lang.startswith("nan") else lang.split("_")[0])
        counts[lang][0] += 1
        counts[lang][1] += bool(spoken[base] & set(countries))
    return {lang: (n, pulled) for lang, (n, pulled) in counts.items()}


@pytest.mark.parametrize(("gold", "kind"), [("borsch", "dish"), ("worldcuisines", "answer")])
def test_language_pull_of_linked_answers_counts_each_answer_once(linked_warehouse: Path, gold: str, kind: str):
    rows = query(
        linked_warehouse,
        """SELECT lang, n_wrong, n_pulled, answer_dataset, task FROM marts.language_pull
        WHERE dataset = 'borsch' AND model = ? AND answers_from = 'linked' AND gold = ?""",
        [MODEL, gold],
    )
    assert {lang: (n, pulled) for lang, n, pulled, *_ in rows} == naive_pull(linked_warehouse, kind)
    assert {(asked, task) for *_, asked, task in rows} == {("worldcuisines", "origin_vqa")}
    filters = Filters(dataset="borsch", task="origin_vqa", models=(MODEL,))
    frame = language.language_pull(linked_warehouse, filters, AnswerSource("linked", gold))
    assert dict(zip(frame["lang"], frame["n_wrong"], strict=True)) == {lang: n for lang, n, *_ in rows}
    assert language.language_pull(linked_warehouse, filters, OWN).empty


def test_russia_vs_ukraine_of_linked_answers_uses_the_dishs_own_gold(linked_warehouse: Path):
    both = {
        key
        for (key,) in query(
            linked_warehouse,
            """SELECT dish_key FROM core.dish_origins o JOIN core.dishes d USING (dish_key)
            WHERE d.dataset = 'borsch' AND country IN ('RU', 'UA') GROUP BY dish_key HAVING count(*) = 2""",
        )
    }
    answers = query(
        linked_warehouse,
        """SELECT DISTINCT generation_id, lang, countries FROM marts.linked_origin_answers
        WHERE model = ? AND list_contains(?, dish_key)""",
        [MODEL, sorted(both)],
    )
    expected: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for _, lang, countries in answers:
        expected[lang][0] += 1
        expected[lang][1] += "RU" in countries
        expected[lang][2] += "UA" in countries
    rows = query(
        linked_warehouse,
        """SELECT lang, n_answers, n_ru, n_ua FROM marts.ru_ua_pull
        WHERE dataset = 'borsch' AND model = ? AND answers_from = 'linked' AND gold = 'borsch'""",
        [MODEL],
    )
    assert {lang: [n, ru, ua] for lang, n, ru, ua in rows} == dict(expected)
    assert len(rows) == 30
