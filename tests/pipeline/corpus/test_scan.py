"""The corpus scan over small corpora written here, against a real warehouse with BORSch ingested."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.corpus.matching import MAX_SAMPLES
from pipeline.corpus.scan import CorruptShardRefused, scan_corpus
from pipeline.corpus.uagec import export_uagec
from warehouse.db import build_marts, migrate

DOCS = [
    "Борщу налили в тарілку. Це страва з України.",  # borsch + a true origin
    "Ми їли борщем і варениками у Польщі.",  # borsch + varenyky + a non-origin country
    "Борщівка — це не страва.",  # a longer word: no borsch
    "БОРЩ!",  # upper case
    "Вареників було багато.",  # genitive plural
    "Кныш чи книш? Книші смачні.",  # pair 10: Russian and Ukrainian name
    "Пекли книші.",  # Ukrainian name only
]


@pytest.fixture(scope="module")
def borsch_work(ingested_template) -> Path:
    """The working database of BORSch ingested (the session's template: tests copy it or open it read-only)."""
    return ingested_template("borsch").with_name("warehouse.work.duckdb")


@pytest.fixture
def con(borsch_work: Path, tmp_path: Path):
    copy = tmp_path / "work.duckdb"
    shutil.copyfile(borsch_work, copy)
    connection = duckdb.connect(str(copy))
    migrate(connection)
    yield connection
    connection.close()


def dish(con, name: str) -> str:
    return con.execute(
        "SELECT dish_key FROM core.dishes WHERE dataset = 'borsch' AND lang = 'uk' AND name = ?", [name]
    ).fetchall()[0][0]


def counts(con, corpus_id: str) -> dict[str, tuple[int, int, int]]:
    rows = con.execute(
        "SELECT d.name, c.docs_with_dish, c.docs_with_true_country, c.docs_with_any_country "
        "FROM core.corpus_dish_counts c JOIN core.dishes d USING (dish_key) "
        "WHERE corpus_id = ? AND c.docs_with_dish > 0",
        [corpus_id],
    ).fetchall()
    return {name: (a, b, c) for name, a, b, c in rows}


def names(con, corpus_id: str) -> dict[int, tuple[int, int]]:
    rows = con.execute(
        "SELECT pair_id, docs_uk_name, docs_ru_name FROM core.corpus_name_counts "
        "WHERE corpus_id = ? AND docs_uk_name + docs_ru_name > 0",
        [corpus_id],
    ).fetchall()
    return {pair: (uk, ru) for pair, uk, ru in rows}


def write_jsonl(path: Path, docs: list[str], *, gz: bool = False) -> Path:
    text = "".join(json.dumps({"id": i, "text": d}, ensure_ascii=False) + "\n" for i, d in enumerate(docs))
    if gz:
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            handle.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


EXPECTED = {
    "БОРЩ": (3, 1, 2),
    "ВАРЕНИКИ": (2, 0, 1),
    "КНИШ": (2, 0, 0),
}


def test_inflection_word_boundaries_case_and_cooccurrence(con, tmp_path: Path) -> None:
    corpus = write_jsonl(tmp_path / "a.jsonl", DOCS)
    summary = scan_corpus(con, "uk", str(corpus), run_id="t")
    assert (summary.shards_scanned, summary.n_docs, summary.corrupt) == (1, len(DOCS), [])
    assert counts(con, summary.corpus_id) == EXPECTED
    assert names(con, summary.corpus_id)[10] == (2, 1)  # КНИШ in two documents, КНЫШ in one
    # БОРЩ/БОРЩ: the same name counts on both sides, in each language's declension ("борщем" is Ukrainian only)
    assert names(con, summary.corpus_id)[15] == (3, 2)
    samples = con.execute(
        "SELECT dish_key, country, sentence, doc_index FROM core.corpus_samples ORDER BY dish_key"
    ).fetchall()
    assert (dish(con, "БОРЩ"), "PL", "Ми їли борщем і варениками у Польщі.", 1) in samples
    assert (dish(con, "ВАРЕНИКИ"), "PL", "Ми їли борщем і варениками у Польщі.", 1) in samples
    assert all(country != "UA" for _, country, _, _ in samples)  # a true origin is never a sample


def test_gzip_jsonl_parquet_and_text_count_alike_and_reruns_skip(con, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    write_jsonl(corpus / "a.jsonl.gz", DOCS, gz=True)
    pq.write_table(pa.table({"text": DOCS, "n": list(range(len(DOCS)))}), corpus / "b.parquet")
    (corpus / "c.txt").write_text("\n".join(DOCS) + "\n", encoding="utf-8")
    progress = []
    summary = scan_corpus(con, "uk", str(corpus), run_id="one", on_progress=progress.append)
    assert (summary.shards_scanned, summary.n_docs) == (3, 3 * len(DOCS))
    assert progress[-1].docs == 3 * len(DOCS) and progress[-1].shards_total == 3 and progress[-1].mb_per_s > 0
    tripled = {name: tuple(3 * v for v in value) for name, value in EXPECTED.items()}
    assert counts(con, summary.corpus_id) == tripled
    again = scan_corpus(con, "uk", str(corpus), run_id="two")
    assert (again.shards_scanned, again.shards_skipped) == (0, 3)
    assert counts(con, summary.corpus_id) == tripled
    assert con.execute("SELECT n_docs FROM core.corpora WHERE corpus_id = ?", [summary.corpus_id]).fetchall() == [
        (3 * len(DOCS),)
    ]


def test_corrupt_shards_are_reported_and_skipped(con, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    write_jsonl(corpus / "good.jsonl", DOCS)
    (corpus / "bad-gzip.jsonl.gz").write_bytes(b"\x1f\x8b\x08\x00 definitely not gzip")
    (corpus / "bad-json.jsonl").write_text('{"text": "борщ"}\n{"text": "борщ\n', encoding="utf-8")
    (corpus / "bad.parquet").write_bytes(b"PAR1 not really parquet")
    with pytest.raises(CorruptShardRefused, match="--skip-corrupt-shards") as refused:  # the default
        scan_corpus(con, "uk", str(corpus), run_id="t")
    assert Path(refused.value.file).name == "bad-gzip.jsonl.gz"  # the first in shard order
    summary = scan_corpus(con, "uk", str(corpus), run_id="t", skip_corrupt_shards=True)
    assert summary.shards_scanned == 1
    assert sorted(Path(path).name for path, _ in summary.corrupt) == [
        "bad-gzip.jsonl.gz",
        "bad-json.jsonl",
        "bad.parquet",
    ]
    rows = con.execute(
        "SELECT path, status, reason FROM core.corpus_shards WHERE corpus_id = ? ORDER BY path", [summary.corpus_id]
    ).fetchall()
    statuses = {Path(path).name: (status, bool(reason)) for path, status, reason in rows}
    assert statuses == {
        "bad-gzip.jsonl.gz": ("corrupt", True),
        "bad-json.jsonl": ("corrupt", True),
        "bad.parquet": ("corrupt", True),
        "good.jsonl": ("ok", False),
    }
    assert counts(con, summary.corpus_id) == EXPECTED


def test_samples_are_capped_at_three_per_dish(con, tmp_path: Path) -> None:
    docs = [f"Борщ номер {i} готують у Польщі." for i in range(6)]
    first = write_jsonl(tmp_path / "first.jsonl", docs[:4])
    summary = scan_corpus(con, "uk", str(first), run_id="t")
    second = write_jsonl(tmp_path / "second.jsonl", docs[4:])
    scan_corpus(con, "uk", str(tmp_path / "*.jsonl"), run_id="t")
    borsch = dish(con, "БОРЩ")
    n = con.execute(
        "SELECT corpus_id, count(*) FROM core.corpus_samples WHERE dish_key = ? GROUP BY corpus_id", [borsch]
    ).fetchall()
    assert [count for _, count in n] == [MAX_SAMPLES, MAX_SAMPLES]
    assert counts(con, summary.corpus_id)["БОРЩ"] == (4, 0, 4)
    assert second.exists()


def test_exports_and_the_uagec_corpus(con, tmp_path: Path) -> None:
    shard = export_uagec(tmp_path / "uagec")
    lines = shard.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len({json.loads(line)["id"] for line in lines}) > 1000
    summary = scan_corpus(con, "uk", str(shard), run_id="t")
    assert summary.corrupt == [] and summary.n_docs == len(lines)
    build_marts(con)
    cooc = con.sql("SELECT * FROM marts.cooccurrence").pl()
    assert cooc.columns[:10] == [
        "lang",
        "dataset",
        "dish_id",
        "name",
        "docs_with_dish",
        "docs_with_true_country",
        "docs_with_any_country",
        "dish_key",
        "corpus_id",
        "ratio",
    ]
    borsch = cooc.filter(cooc["dish_key"] == dish(con, "БОРЩ")).row(0, named=True)
    assert borsch["docs_with_dish"] >= borsch["docs_with_any_country"] >= borsch["docs_with_true_country"] > 0
    codemix = con.sql("SELECT * FROM marts.codemix").pl()
    assert codemix.columns[:7] == ["dish_id", "uk_name", "ru_name", "docs_uk_name", "docs_ru_name", "pair_id", "lang"]
    assert codemix.height == con.execute("SELECT count(*) FROM core.parallel_dishes").fetchall()[0][0]


def test_case_sensitive_countries_and_countries_inside_dish_names(con, tmp_path: Path) -> None:
    docs = [
        "Борщ і катар горла.",  # "катар" (a cold) is not Qatar: only "Катар" is
        "Борщ їдять і в Катарі.",
        "Борщ у США.",
        "Шарлотка польська — смачна.",  # "польська" inside the dish name is no country
        "Шарлотка польська, як у Польщі.",
    ]
    summary = scan_corpus(con, "uk", str(write_jsonl(tmp_path / "a.jsonl", docs)), run_id="t")
    found = counts(con, summary.corpus_id)
    assert found["БОРЩ"][0] == 3 and found["БОРЩ"][2] == 2
    assert found["ШАРЛОТКА ПОЛЬСЬКА"][0] == 2 and found["ШАРЛОТКА ПОЛЬСЬКА"][2] == 1


def test_a_bad_json_line_is_named_in_the_reason(con, tmp_path: Path) -> None:
    shard = tmp_path / "bad.jsonl"
    shard.write_text('{"text": "борщ"}\n{"text": "борщ"\n{"text": "борщ"}\n', encoding="utf-8")
    summary = scan_corpus(con, "uk", str(shard), run_id="t", skip_corrupt_shards=True)
    assert summary.corrupt and summary.corrupt[0][1].startswith("line 2: invalid JSON")
    with pytest.raises(CorruptShardRefused) as refused:  # the default names the line too
        scan_corpus(con, "uk", str(shard), run_id="t")
    assert (refused.value.file, refused.value.line) == (str(shard), 2)
    assert refused.value.reason.startswith("invalid JSON")


def test_compiled_patterns_are_cached_and_give_the_same_counts(con, tmp_path: Path, monkeypatch) -> None:
    """A second scan over the same warehouse loads the compiled pattern database from the cache instead of
    inflecting and compiling again; the cached engine counts exactly what a fresh one counts."""
    from pipeline.corpus.patterns import build_patterns

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    first = scan_corpus(con, "uk", str(write_jsonl(tmp_path / "a.jsonl", DOCS)), run_id="t")
    (cached_file,) = (tmp_path / "cache").rglob("patterns/uk@*.pickle")
    assert "literals" in build_patterns(con, "uk", cache_dir=cached_file.parent).__dict__  # loaded, not compiled
    second = scan_corpus(con, "uk", str(write_jsonl(tmp_path / "b.jsonl", DOCS)), run_id="t")
    assert counts(con, first.corpus_id) == counts(con, second.corpus_id) == EXPECTED
    assert names(con, first.corpus_id) == names(con, second.corpus_id)


@pytest.fixture(scope="module")
def compiled_uk(borsch_work: Path, tmp_path_factory: pytest.TempPathFactory):
    """The Ukrainian patterns of the BORSch template compiled once into a cache folder (compiling costs ~3 CPU-s):
    tests copy the folder before they change or damage it."""
    from pipeline.corpus.patterns import build_patterns

    cache = tmp_path_factory.mktemp("compiled") / "patterns"
    with duckdb.connect(str(borsch_work), read_only=True) as connection:
        return build_patterns(connection, "uk", cache_dir=cache), cache


def test_a_damaged_pattern_cache_is_rebuilt(con, tmp_path: Path, compiled_uk) -> None:
    from pipeline.corpus.patterns import build_patterns

    fresh, template = compiled_uk
    cache = shutil.copytree(template, tmp_path / "patterns")
    (path,) = cache.glob("uk@*.pickle")
    path.write_bytes(b"not a pickle")
    rebuilt = build_patterns(con, "uk", cache_dir=cache)
    assert rebuilt.fingerprint == fresh.fingerprint
    assert len(rebuilt.literals.length) == len(fresh.literals.length)


def test_a_changed_warehouse_misses_the_cache(con, tmp_path: Path, compiled_uk) -> None:
    """The cache key covers the rows read: a new dish name means a new pattern set, never a stale one."""
    from pipeline.corpus.patterns import build_patterns

    cache = shutil.copytree(compiled_uk[1], tmp_path / "patterns")
    before = build_patterns(con, "uk", cache_dir=cache)
    assert before.fingerprint == compiled_uk[0].fingerprint  # read from the copied cache
    key = dish(con, "БОРЩ")
    con.execute(
        "INSERT INTO core.dish_names SELECT * REPLACE ('зелений борщик' AS name, 'зелений борщик' AS norm_name) "
        "FROM core.dish_names WHERE dish_key = ? AND lang = 'uk' LIMIT 1",
        [key],
    )
    after = build_patterns(con, "uk", cache_dir=cache)
    assert after.fingerprint != before.fingerprint
    assert len(list(cache.glob("uk@*.pickle"))) == 2


def test_the_pattern_cache_key_is_the_same_in_every_process(borsch_work: Path) -> None:
    """Python salts string hashes per process: a key built from set order would miss the cache every time."""
    import os
    import subprocess
    import sys

    code = (
        "import duckdb, sys; from pipeline.corpus.patterns import pattern_inputs; "
        f"print(pattern_inputs(duckdb.connect({str(borsch_work)!r}, read_only=True), 'uk')[0])"
    )
    keys = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(Path(__file__).parents[3])},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(keys) == 1
