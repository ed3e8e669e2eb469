"""The corpus pages (co-occurrence, code mixing, review), run headless with AppTest on the real demo
warehouse plus the known test corpora of tests/warehouse/test_corpus_analyses.py, and on the demo
warehouse without any corpus (the empty states)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pipeline.stores import annotations
from tests.helpers import REPO, shown, vega_rows
from tests.warehouse.test_corpus_analyses import MODEL, shared_corpus_warehouse

MAIN = REPO / "app" / "main.py"
TIMEOUT = 60
SCAN = "python -m pipeline corpus scan --lang uk --source PATH"


@pytest.fixture(scope="module")
def corpus_warehouse(data_dir: Path, ingested_template) -> Path:
    return shared_corpus_warehouse(data_dir, ingested_template)


@pytest.fixture(scope="module")
def no_corpus_warehouse(data_dir: Path, ingested_template) -> Path:
    return shared_corpus_warehouse(data_dir, ingested_template, with_corpus=False)


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "annotations.duckdb"
    monkeypatch.setenv(annotations.ANNOTATIONS_ENV, str(path))
    return path


def open_page(warehouse: Path, monkeypatch: pytest.MonkeyPatch, page: str, **params: str) -> AppTest:
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(warehouse))
    at = AppTest.from_file(MAIN, default_timeout=TIMEOUT)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    at.switch_page(f"views/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(elements) -> list[str]:
    return [shown(str(element.value)) for element in elements]


def chart_lines(at: AppTest, index: int = 0) -> dict[str, list[dict]]:
    """A binned chart's rows (app/charts.py) by line (legend name), in bin order."""
    lines: dict[str, list[dict]] = {}
    for row in vega_rows(at.get("vega_lite_chart")[index]):
        if "series" in row:
            lines.setdefault(row["series"], []).append(row)
    return {name: sorted(rows, key=lambda row: row["bin"]) for name, rows in lines.items()}


def bins_of(rows: list[dict]) -> list[int]:
    return [row["bin"] for row in rows]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_cooccurrence_draws_the_jaccard_over_count_bins_with_the_dishes_in_the_hover(
    corpus_warehouse: Path, monkeypatch: pytest.MonkeyPatch
):
    at = open_page(corpus_warehouse, monkeypatch, "cooccurrence", dataset="worldcuisines", models=MODEL)
    assert len(at.get("vega_lite_chart")) == 3  # Jaccard per bin, dishes per bin, frequency by rank (Fig. 2a)
    [(name, line)] = chart_lines(at).items()
    assert name == MODEL and bins_of(line) == [1, 4, 7, 10]
    hovers = [row["dishes"] for row in line]
    assert hovers == ["Kabsa", "Arepa", "Banana bread", "Whole wheat bread"]
    table = at.dataframe[0].value
    assert table["bin"].tolist() == [1, 4, 7, 10]
    assert table["n_dishes"].tolist() == [1, 1, 1, 1]
    assert table["bin_range"].tolist() == ["0", "7–14", "63–124", "501–999"]
    assert {button.label for button in at.get("download_button")} >= {"CSV", "Parquet"}


def test_cooccurrence_ratio_bins_and_one_line_per_prompt_language(
    corpus_warehouse: Path, monkeypatch: pytest.MonkeyPatch
):
    at = open_page(
        corpus_warehouse, monkeypatch, "cooccurrence", dataset="worldcuisines", measure="ratio", by="lang",
        langs="en,ja_casual",
    )  # fmt: skip
    lines = chart_lines(at)
    assert sorted(lines) == ["en", "ja_casual"]
    assert all(bins_of(line) == [3, 5, 10] for line in lines.values())  # Kabsa, never next to a country: no ratio


def test_cooccurrence_offers_the_papers_ratio_by_mentions_and_fig_2a(
    corpus_warehouse: Path, monkeypatch: pytest.MonkeyPatch
):
    at = open_page(corpus_warehouse, monkeypatch, "cooccurrence", dataset="worldcuisines", measure="mention_ratio")
    assert any("log-spaced" in text for text in texts(at.caption))
    ranked = vega_rows(at.get("vega_lite_chart")[-1])  # Fig. 2a: documents against frequency rank
    assert ranked and all(row["docs_with_dish"] > 0 for row in ranked)
    ranks = sorted(ranked, key=lambda row: row["rank"])
    assert [row["docs_with_dish"] for row in ranks] == sorted((row["docs_with_dish"] for row in ranks), reverse=True)


def test_cooccurrence_without_corpus_says_what_to_run(no_corpus_warehouse: Path, monkeypatch: pytest.MonkeyPatch):
    at = open_page(no_corpus_warehouse, monkeypatch, "cooccurrence", dataset="worldcuisines")
    assert any(SCAN in text for text in texts(at.info))
    assert not at.get("vega_lite_chart")


def test_codemix_draws_both_scores_over_the_nine_bins_and_counts_exclusions(
    corpus_warehouse: Path, monkeypatch: pytest.MonkeyPatch
):
    at = open_page(corpus_warehouse, monkeypatch, "codemix", dataset="borsch")
    lines = chart_lines(at)
    jaccard, names = lines["origin Jaccard"], lines["dish-name match, ours: a whole candidate within one edit (VQA)"]
    assert bins_of(jaccard) == [1, 5, 9] and [row["mean"] for row in jaccard] == [0.0, 1.0, 0.75]
    assert bins_of(names) == [1, 9] and [row["mean"] for row in names] == [0.5, 1.0]
    published = lines["dish-name EM within one edit, as published (VQA)"]  # Fig. 5's rule (§4.2, Appendix I)
    assert bins_of(published) == [1, 9] and [row["mean"] for row in published] == [1.0, 1.0]
    assert any("145 excluded" in text and "same word" in text for text in texts(at.markdown))
    bars = vega_rows(at.get("vega_lite_chart")[1])
    assert [bar["bin"] for bar in bars] == [1, 5, 7, 9] and [bar["n"] for bar in bars] == [1, 1, 1, 1]
    assert set(at.dataframe[0].value["metric"]) == {"jaccard", "name_match", "name_contains_lev1"}
    # BORSch §4.2's surzhyk statistics (the 433 parallel pairs: mean edit distance 2.28, 66.5% distinct names)
    metrics = {metric.label: metric.value for metric in at.metric}
    assert metrics["Mean RU↔UK edit distance (all pairs)"] == "2.28"
    assert metrics["Pairs with distinct names"] == "66.5%"


def test_codemix_without_corpus_says_what_to_run(no_corpus_warehouse: Path, monkeypatch: pytest.MonkeyPatch):
    at = open_page(no_corpus_warehouse, monkeypatch, "codemix", dataset="borsch")
    assert any(SCAN in text for text in texts(at.info))
    assert not at.get("vega_lite_chart")


def test_review_saves_a_label_to_the_store_and_never_touches_the_warehouse(
    corpus_warehouse: Path, store: Path, monkeypatch: pytest.MonkeyPatch
):
    before = digest(corpus_warehouse)
    at = open_page(corpus_warehouse, monkeypatch, "review", dataset="borsch", corpus_lang="uk")
    assert len(at.radio) == 2  # the two incorrect co-occurrences of the Ukrainian corpus
    assert any("Nothing labelled yet" in text for text in texts(at.info))
    at.text_input(key="annotator").set_value("tester").run()
    radios = list(at.radio)
    radios[0].set_value("word polysemy")
    at.button[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Saved 1 label" in text for text in texts(at.success))

    saved = annotations.load(path=store)
    assert saved[["lang", "category", "annotator"]].values.tolist() == [["uk", "word polysemy", "tester"]]
    assert radios[0].key.startswith(f"review_{saved['sample_id'].iloc[0]}_")
    assert digest(corpus_warehouse) == before
    assert not corpus_warehouse.with_name("annotations.duckdb").exists()
    shares = vega_rows(at.get("vega_lite_chart")[0])
    assert [(bar["category"], bar["lang"], bar["share"]) for bar in shares] == [("word polysemy", "uk", 1.0)]


def test_review_without_samples_says_what_to_run(
    no_corpus_warehouse: Path, store: Path, monkeypatch: pytest.MonkeyPatch
):
    at = open_page(no_corpus_warehouse, monkeypatch, "review", dataset="borsch")
    assert any(SCAN in text for text in texts(at.info))
    assert not at.radio


def test_review_shows_each_annotator_their_own_labels(
    corpus_warehouse: Path, store: Path, monkeypatch: pytest.MonkeyPatch
):
    at = open_page(corpus_warehouse, monkeypatch, "review", dataset="borsch", corpus_lang="uk")
    at.text_input(key="annotator").set_value("ann").run()
    at.radio[0].set_value("inaccurate origin")
    at.button[0].click().run()
    assert at.radio[0].value == "inaccurate origin"
    at.text_input(key="annotator").set_value("bob").run()
    assert [radio.value for radio in at.radio] == [None, None]
    at.text_input(key="annotator").set_value("ann").run()
    assert at.radio[0].value == "inaccurate origin"
