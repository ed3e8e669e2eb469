"""The score stage on the real imported answers: every answer extracted and scored once, the
origin-scores export contract, and re-scoring without any model run."""

from __future__ import annotations

import io
import itertools
import shutil
from pathlib import Path

import duckdb
import polars as pl
import pytest

from tests.helpers import query, run_cli

CONTRACT = [
    "dataset",
    "model",
    "task",
    "lang",
    "item_id",
    "variant",
    "gold",
    "predicted",
    "jaccard",
    "dice",
    "overlap",
    "status",
]


def test_every_imported_answer_is_extracted_and_scored(real_warehouse: Path) -> None:
    # 180,000 origin answers (task 2) and 108,000 dish-name answers (task 1) of the 12 models, and the
    # 360 answers of the tiny test model to the CultureMix sample that the demo generates
    assert query(real_warehouse, "SELECT count(*) FROM core.extractions") == [(288360,)]
    per_metric = dict(query(real_warehouse, "SELECT metric, count(*) FROM core.scores GROUP BY ALL"))
    # Open answers: ours and the paper's substring rule; multiple-choice answers: ours and the paper's;
    # dish-name answers (task 1): the five name rules.
    assert per_metric == {
        "jaccard": 180000,
        "dice": 180000,
        "overlap": 180000,
        "accuracy": 180360,  # the CultureMix answers are scored by country accuracy too
        "paper_substring": 180000,
        "choice_accuracy": 180000,
        "paper_choice_accuracy": 180000,
        **dict.fromkeys(["name_exact", "name_lev1", "name_stem", "name_similarity", "name_paper"], 108000),
        # nation level: only the answers to the 10 questions whose gold is England, Scotland or Wales,
        # and the tiny model's 3 answers (base, direct, cot) to each of CultureMix's 2 English targets
        "uk_nation_match": 10 * 30 * 12 + 2 * 3,
        # BORSch's own rule (§4.1) on every country named: every answer the countries extractor reads
        **dict.fromkeys(["paper_jaccard", "paper_dice", "paper_overlap", "paper_exact"], 180360),
    }
    assert query(real_warehouse, "SELECT count(*) FROM core.choice_extractions") == [(180000,)]
    statuses = {s for (s,) in query(real_warehouse, "SELECT DISTINCT status FROM core.extractions")}
    assert statuses == {"ok", "no_country", "refusal", "empty"}


def test_the_paper_rule_s_scores_are_its_named_countries_against_the_gold(real_warehouse: Path) -> None:
    """paper_* (pipeline/score/metrics.py) score every country the answer names (core.extractions.paper_countries),
    not the extractor's reading: the stored values are the set measures of those two sets."""
    from pipeline.score.metrics import get_metric

    paper = "('paper_dice', 'paper_exact', 'paper_jaccard', 'paper_overlap')"
    rows = query(
        real_warehouse,
        f"""SELECT e.paper_countries,
                  coalesce((SELECT list(DISTINCT c.country) FROM core.item_gold_countries c
                            WHERE c.item_id = g.item_id), []),
                  (SELECT list(s.metric ORDER BY s.metric) FROM core.scores s
                   WHERE s.generation_id = e.generation_id AND s.metric IN {paper}),
                  (SELECT list(s.value ORDER BY s.metric) FROM core.scores s
                   WHERE s.generation_id = e.generation_id AND s.metric IN {paper})
           FROM core.extractions e JOIN core.generations g USING (generation_id)
           WHERE list_sort(list_distinct(e.paper_countries)) <> list_sort(list_distinct(e.countries))
           ORDER BY e.generation_id LIMIT 300""",
    )
    assert len(rows) == 300  # answers where the rule reads more (or other) countries than ours
    for named, gold, metrics, values in rows:
        assert metrics == ["paper_dice", "paper_exact", "paper_jaccard", "paper_overlap"]
        assert values == [get_metric(metric)(named, gold) for metric in metrics], (named, gold)


def test_scores_agree_with_the_extracted_countries(real_warehouse: Path) -> None:
    wrong = query(
        real_warehouse,
        """SELECT count(*) FROM marts.origin_scores
        WHERE (predicted = gold AND jaccard <> 1) OR (predicted = '' AND jaccard <> 0)""",
    )
    assert wrong == [(0,)]
    # An English answer naming the gold country exactly is a hit.
    assert query(
        real_warehouse,
        """SELECT min(jaccard), min(accuracy) FROM marts.origin_scores
        WHERE lang = 'en' AND response = 'South Africa' AND gold = 'ZA'""",
    ) == [(1.0, 1.0)]


def test_uk_nation_match_tells_the_nations_apart_where_the_gold_names_one(real_warehouse: Path) -> None:
    rows = query(
        real_warehouse,
        """SELECT g.generation_id, n.nation, e.regions, s.value, a.value
        FROM core.generations g
        JOIN core.item_gold_nations n USING (item_id)
        JOIN core.extractions e USING (generation_id)
        LEFT JOIN core.scores s ON s.generation_id = g.generation_id AND s.metric = 'uk_nation_match'
        LEFT JOIN core.scores a ON a.generation_id = g.generation_id AND a.metric = 'accuracy'""",
    )
    assert len(rows) == 3600 + 2 * 3  # WorldCuisines' 10 questions x 30 languages x 12 models; CultureMix's 2 x 3
    assert all(value == float(nation in regions) for _, nation, regions, value, _ in rows)
    # GB is right at country level for all of them; the nation level tells "England" from "Scotland"
    country_hit_nation_miss = [r for r in rows if r[4] == 1.0 and r[3] == 0.0]
    assert 0 < len(country_hit_nation_miss) < sum(1 for r in rows if r[4] == 1.0)
    # the mart carries the nation gold and the score, NULL where the gold names no nation
    assert query(
        real_warehouse,
        """SELECT count(*), count(uk_nation_match), count(*) FILTER (gold_nations <> '')
        FROM marts.origin_scores WHERE dataset = 'worldcuisines'""",
    ) == [(180000, 3600, 3600)]
    [(n_nation,)] = query(
        real_warehouse,
        """SELECT DISTINCT n_uk_nation FROM marts.leaderboard
        WHERE dataset = 'worldcuisines' AND task = 'origin_vqa' AND lang = '*'""",
    )
    assert n_nation == 300  # per model: 10 questions x 30 prompt languages


def test_origin_scores_export_contract(real_warehouse: Path, tmp_path: Path) -> None:
    csv_text = run_cli(real_warehouse, "export", "origin-scores", "--format", "csv").stdout
    frame = pl.read_csv(io.StringIO(csv_text), infer_schema_length=0)
    assert frame.columns[:12] == CONTRACT
    per_dataset = dict(frame.group_by("dataset").len().iter_rows())
    assert per_dataset == {"worldcuisines": 180000, "culturemix": 360}  # the demo's tiny-model CultureMix answers
    row = frame.filter(
        (pl.col("model") == "gpt-4o-2024-08-06") & (pl.col("lang") == "en") & (pl.col("item_id") == "1900")
    )
    assert row.select("dataset", "task", "gold", "variant").row(0) == ("worldcuisines", "origin_vqa", "ZA", "23")
    out = tmp_path / "scores.parquet"
    run_cli(real_warehouse, "export", "origin-scores", "--format", "parquet", "--out", str(out))
    assert pl.read_parquet(out).columns[:12] == CONTRACT


def test_rescoring_rewrites_only_extractions_and_scores(
    worldcuisines_warehouse: Path, data_dir: Path, tmp_path: Path
) -> None:
    """Real answers of one model, open-ended and multiple choice (the first 3,000 lines of each published
    file: all twelve models take minutes and prove nothing more): `score` finds nothing to do, `score
    --rescore` redoes every extraction and score and leaves the answers untouched."""
    copy = worldcuisines_warehouse
    work = copy.with_name("warehouse.work.duckdb")
    predictions = data_dir / "worldcuisines" / "predictions"
    kept = "Phi-3.5-vision-instruct"  # one of the twelve published WorldCuisines prediction files
    for source in (predictions / f"task2_oe_{kept}.jsonl", predictions / "mc" / f"task2_mc_{kept}.jsonl"):
        with open(source, encoding="utf-8") as lines:
            (tmp_path / source.name).write_text("".join(itertools.islice(lines, 3000)), encoding="utf-8")
        run_cli(copy, "--no-publish", "import-responses", str(tmp_path / source.name))
    first = run_cli(copy, "score")
    [(answers,)] = query(work, "SELECT count(*) FROM core.generations")
    [(open_ended,)] = query(work, "SELECT count(*) FROM core.extractions")
    assert answers == 6000 and 0 < open_ended < answers and f"scored {answers:,} answers" in first.stderr
    fingerprint = """SELECT count(*), sum(hash(generation_id, response, created_at)) FROM core.generations"""
    before = query(work, fingerprint)
    nothing = run_cli(copy, "score")
    assert "already scored" in nothing.stderr
    con = duckdb.connect(str(work))
    try:  # a mark only a re-extraction removes
        con.execute("UPDATE core.extractions SET countries = ['ZZ']")
    finally:
        con.close()
    detected = "SELECT count(*), max(detected_at) FROM core.answer_languages"
    languages_before = query(work, detected)
    again = run_cli(copy, "score", "--rescore")
    assert f"scored {answers:,} answers" in again.stderr
    assert query(copy, fingerprint) == before
    marked = "SELECT count(*), count(*) FILTER (WHERE list_contains(countries, 'ZZ')) FROM core.extractions"
    assert query(copy, marked) == [(open_ended, 0)]
    # one extraction and one score row set per answer, as a first scoring leaves them (the earlier rows all removed)
    per_answer = """SELECT count(*), count(DISTINCT generation_id) FROM core.extractions"""
    assert query(copy, per_answer) == [(open_ended, open_ended)]
    [(choice,)] = query(copy, "SELECT count(*) FROM core.choice_extractions")
    assert choice == answers - open_ended
    # the answers' languages are not detected again: the detector's version has not changed
    assert languages_before[0][0] == answers and query(work, detected) == languages_before
    assert "detected the language" not in again.stderr


def test_a_task_whose_answer_kind_cannot_be_scored_stops_score_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer kind with no gold to score against (here: choice, as before its scorer existed) stops
    score with the task's name instead of skipping its answers silently."""
    from dataclasses import replace

    from pipeline import tasks
    from pipeline.score import stage as scoring
    from warehouse.db import Warehouse
    from warehouse.io import insert
    from warehouse.registry import Registry

    choice = replace(
        tasks.get_task("worldcuisines.origin_vqa"), task_id="worldcuisines.choice_vqa", answer_kind="choice"
    )
    only_choice = Registry("task")
    only_choice.add(choice.task_id, choice)
    monkeypatch.setattr(scoring, "TASKS", only_choice)
    monkeypatch.setattr(scoring, "GOLD_SQL", {k: v for k, v in scoring.GOLD_SQL.items() if k != "choice"})
    with Warehouse(tmp_path / "w.duckdb").writer() as con:
        insert(con, "core.tasks", [choice.row()])
        with pytest.raises(ValueError, match=r"worldcuisines\.choice_vqa: answer kind 'choice' has no gold"):
            scoring.score(con)


@pytest.fixture(scope="module")
def sampled_work(real_warehouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A working database with the demo's reference tables and a real sample of every task's answers (answers
    written word for word under several prompt languages included), and none of the rows `score` writes: made
    once for both tests. Built fresh by the migrations and filled from the published demo (read-only) rather than copied
    and cut down: deleting from its indexed tables took over a minute, filling the sample takes seconds."""
    from warehouse.db import migrate

    work = tmp_path_factory.mktemp("sampled") / "warehouse.work.duckdb"
    con = duckdb.connect(str(work))
    try:
        migrate(con)
        # the published snapshot, not the shared working file: another worker's in-place `demo` (test_cli) opens
        # that one to write, and DuckDB refuses a writer while any other process has the file open
        con.execute("ATTACH ? AS demo (READ_ONLY)", [str(real_warehouse)])
        # per task: answers written word for word under several prompt languages (10 texts, up to 6 languages
        # each: "中国" is zh, ja and yue), and 30 others
        con.execute(
            """CREATE TEMP TABLE sample AS
               WITH answers AS (
                   SELECT g.generation_id, g.lang, g.response, i.task_id
                   FROM demo.core.generations g JOIN demo.core.items i USING (item_id)),
               shared AS (
                   SELECT task_id, response FROM answers GROUP BY task_id, response HAVING count(DISTINCT lang) > 1
                   QUALIFY row_number() OVER (PARTITION BY task_id ORDER BY hash(response)) <= 10),
               one_per_lang AS (
                   SELECT a.* FROM answers a JOIN shared USING (task_id, response)
                   QUALIFY row_number() OVER (PARTITION BY task_id, response, lang ORDER BY hash(generation_id)) = 1)
               SELECT generation_id FROM one_per_lang
               QUALIFY row_number() OVER (PARTITION BY task_id, response ORDER BY hash(lang)) <= 6
               UNION
               SELECT generation_id FROM answers
               QUALIFY row_number() OVER (PARTITION BY task_id ORDER BY hash(generation_id)) <= 30"""
        )
        per_answer = set(
            con.execute(
                "SELECT DISTINCT schema_name, table_name FROM duckdb_columns() "
                "WHERE database_name = 'demo' AND column_name = 'generation_id'"
            ).fetchall()
        )
        written_by_score = {"extractions", "extraction_spans", "scores", "choice_extractions", "name_matches"}
        tables = con.execute(  # the working database's tables (the snapshot has the marts too)
            "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = 'demo' "
            "AND (schema_name, table_name) <> ('meta', 'schema_migrations') AND (schema_name, table_name) IN "
            "(SELECT (schema_name, table_name) FROM duckdb_tables() WHERE database_name = current_database())"
        ).fetchall()
        for schema, table in tables:
            if (schema, table) in per_answer:
                if schema == "core" and table in written_by_score:
                    continue
                where = " WHERE generation_id IN (SELECT generation_id FROM sample)"
            else:
                where = ""
            con.execute(f"INSERT INTO {schema}.{table} BY NAME SELECT * FROM demo.{schema}.{table}{where}")
        assert {t for s, t in per_answer if s == "core"} >= written_by_score  # the demo still writes them all
    finally:
        con.close()
    return work


def test_each_stored_row_is_what_its_answer_gives_alone(sampled_work: Path, tmp_path: Path) -> None:
    """The stage computes each distinct answer once and writes its rows set-wise; on a real sample of every
    task (the same text answered in several prompt languages included), each stored extraction, span, name
    match and score equals what the task's extractor, the name scorer and the metrics give that one answer by
    itself."""
    from pipeline.extract import get_extractor
    from pipeline.extract.choice import paper_choice
    from pipeline.reference.countries import UK_NATIONS
    from pipeline.score import names
    from pipeline.score import stage as scoring
    from pipeline.score.metrics import get_metric
    from pipeline.tasks import TASKS

    work = tmp_path / "warehouse.work.duckdb"
    shutil.copy(sampled_work, work)
    con = duckdb.connect(str(work))
    try:
        summary = scoring.score(con)
        stored = {
            "extractions": con.execute(
                "SELECT generation_id, status, countries, regions, dish_names FROM core.extractions"
            ).fetchall(),
            "spans": con.execute(
                "SELECT generation_id, span_start, span_end, text, country, region, negated FROM core.extraction_spans"
            ).fetchall(),
            "scores": con.execute("SELECT generation_id, metric, value FROM core.scores").fetchall(),
            "choices": con.execute(
                "SELECT generation_id, status, choice, choices, paper_choice, paper_status FROM core.choice_extractions"
            ).fetchall(),
            "names": con.execute(
                "SELECT generation_id, matched_name, matched_lang, matched_rule, named_dish_key, named_name, "
                "candidates FROM core.name_matches"
            ).fetchall(),
        }
        expected: dict[str, list] = {key: [] for key in stored}
        context = names.NamesContext.load(con)
        tasks = {t for (t,) in con.execute("SELECT DISTINCT task_id FROM core.items").fetchall()}
        for task in (t for t in TASKS.values() if t.task_id in tasks):
            name, extract = get_extractor(task.extractor)
            metrics = {m: get_metric(m) for m in task.metrics}
            for row in scoring.pending(con, task, name, rescore=True).iter_rows(named=True):
                gid, lang, response, gold = row["generation_id"], row["lang"], row["response"], row["gold"]
                if task.answer_kind == "choice":
                    found = extract(response, lang, tuple(row["options"] or ()))
                    paper = paper_choice(response, row["prompt"])
                    choice = found.choices[0] if found.status == "ok" else None
                    kept = paper.choice if paper.choice is not None and abs(paper.choice) < 2**31 else None
                    expected["choices"].append((gid, found.status, choice, list(found.choices), kept, paper.status))
                    read = {"choice": choice, "paper_choice": paper.choice}
                    expected["scores"] += [(gid, m, float(fn(read[fn.reads], gold))) for m, fn in metrics.items()]
                    continue
                found = extract(response, lang)
                expected["extractions"].append(
                    (gid, found.status, *map(list, (found.countries, found.regions, found.dish_names)))
                )
                expected["spans"] += [
                    (gid, s.start, s.end, s.text, s.country, s.region, s.negated) for s in found.spans
                ]
                if task.answer_kind == "dish_name":
                    values, match = context.score(gid, response, lang, found.dish_names, gold, metrics)
                    expected["scores"] += [(gid, m, v) for m, v in values.items()]
                    expected["names"].append(tuple(match.values()))
                    continue
                nations = [code for code in gold if code in UK_NATIONS]
                for m, fn in metrics.items():
                    reads = getattr(fn, "reads", "")
                    if reads == "nations" and nations:  # only where the gold names a UK nation
                        value = fn([*found.countries, *found.regions], gold)
                    elif reads == "text":
                        value = fn(response, row["gold_text"])
                    elif reads != "nations":
                        value = fn(list(found.countries), [code for code in gold if code not in UK_NATIONS])
                    else:
                        continue
                    expected["scores"].append((gid, m, float(value)))
    finally:
        con.close()
    assert summary.scored == sum(len(expected[k]) for k in ("extractions", "choices")) >= 250
    assert {key: len(rows) for key, rows in stored.items()} == {key: len(rows) for key, rows in expected.items()}
    for key, rows in stored.items():  # compared as text: exact floats, and NaN equal to NaN
        assert sorted(map(repr, rows)) == sorted(map(repr, expected[key])), key


def test_gold_readings_are_kept_in_the_derived_cache_for_the_next_warehouse(
    worldcuisines_warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first `score` of a new WorldCuisines warehouse reads its 18,000 gold strings in 30 languages; the readings
    depend only on the strings and the extractor's code, so the next warehouse finds them in the cache."""
    from pipeline.core import derived
    from pipeline.extract import get_extractor
    from pipeline.score.stage import check_gold_texts

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    second = tmp_path / "second" / "warehouse.duckdb"
    shutil.copytree(worldcuisines_warehouse.parent, second.parent)
    checks = "SELECT item_id, lang, extractor, countries, status FROM core.gold_text_checks ORDER BY item_id, lang"
    work = worldcuisines_warehouse.with_name("warehouse.work.duckdb")
    with duckdb.connect(str(work)) as con:
        assert check_gold_texts(con) == 18000
        first = con.execute(checks).fetchall()
    cached = sorted((tmp_path / "cache" / "dish-atlas" / "cache" / "gold-readings").glob("*.pickle"))
    assert len(cached) == len({lang for _, lang, *_ in first}) == 30

    def no_extraction(*_):  # every reading must come from the cache now
        raise AssertionError("read a gold string again")

    name, _ = get_extractor("countries")
    monkeypatch.setattr("pipeline.score.stage.get_extractor", lambda _: (name, no_extraction))
    with duckdb.connect(str(second.with_name("warehouse.work.duckdb"))) as con:
        assert check_gold_texts(con) == 18000
        assert con.execute(checks).fetchall() == first
    # A damaged file is read again (and rewritten); another extractor code never reads these files.
    cached[0].write_bytes(b"not a pickle")
    monkeypatch.setattr("pipeline.score.stage.get_extractor", lambda _: get_extractor("countries"))
    with duckdb.connect(str(second.with_name("warehouse.work.duckdb"))) as con:
        assert check_gold_texts(con, rescore=True) == 18000
        assert con.execute(checks).fetchall() == first
    assert derived.load(cached[0]) is not None
    names_of = {p.stem.rsplit("@", 1)[1] for p in cached}
    assert derived.inputs_digest("gold-readings", name, derived.extractor_digest())[:32] in names_of
    monkeypatch.setattr(derived, "extractor_digest", lambda: "another extractor")
    assert derived.inputs_digest("gold-readings", name, derived.extractor_digest())[:32] not in names_of
