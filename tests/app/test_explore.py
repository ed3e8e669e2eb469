"""The pages that lead from a number to the answers behind it, run headless with AppTest on the real demo
warehouse: Compare, Consistency, Answers (search), Dishes with answers, the Confusion co-origin rule and
answer list; the downloads hold exactly the table shown; every control's state survives the link.

Figures are checked against the naive recount over the core tables (tests/warehouse/naive.py).
"""

from __future__ import annotations

import io
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pandas as pd
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from app import fmt, links
from tests.app.conftest import open_page
from tests.helpers import shown
from tests.warehouse import naive
from warehouse.queries.answers import Filters

ALL = Filters(dataset="worldcuisines", task="origin_vqa")
A, B = "gpt-4o-2024-08-06", "qwen-vl-2b"


@pytest.fixture
def downloads(monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """File name -> the bytes its download button would send. Streamlit builds a deferred download only
    when clicked; this records each callable as Streamlit registers it (the real registration still
    runs) so the test can build the file as a click would."""
    registered: dict[str, object] = {}
    original = MediaFileManager.add_deferred

    def record(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        registered[file_name] = data_callable
        return original(self, data_callable, mimetype, coordinates, file_name, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", record)

    class Files(dict):
        def __missing__(self, name: str) -> bytes:
            return registered[name]()

    return Files()


def texts(elements) -> list[str]:
    return [shown(str(element.value)) for element in elements]


def table(at: AppTest, *columns: str) -> pd.DataFrame:
    """The first table on the page with these columns."""
    return next(frame.value for frame in at.dataframe if set(columns) <= set(frame.value.columns))


def as_displayed(download: bytes) -> pd.DataFrame:
    """A downloaded CSV as the page displays it (language names beside codes)."""
    frame = pd.read_csv(io.BytesIO(download), keep_default_na=False, na_values=[""], dtype=str)
    return fmt.display(frame)


def same_table(download: bytes, page_table: pd.DataFrame, link_columns: tuple[str, ...]) -> None:
    """The file holds the table's rows and columns in its order, each link as the text it shows (an
    empty cell and a missing value read the same in a CSV)."""
    file = as_displayed(download)
    expected = links.as_shown(page_table, list(link_columns))
    assert list(file.columns) == list(page_table.columns)
    assert len(file) == len(page_table)
    for column in file.columns:
        if pd.api.types.is_numeric_dtype(page_table[column]):
            got = pd.to_numeric(file[column]).fillna(-1).tolist()
            assert got == pytest.approx(page_table[column].astype(float).fillna(-1).tolist()), column
        else:
            want = [str(value) if pd.notna(value) else "" for value in expected[column]]
            assert file[column].fillna("").tolist() == want, column


# --- Compare ------------------------------------------------------------------------------------------


def test_compare_shows_the_paired_difference_with_its_interval(warehouse_path: Path, naive_answers, downloads):
    at = open_page("views/compare.py", a=A, b=B)
    assert at.selectbox(key="url_a").value == A and at.selectbox(key="url_b").value == B
    pairs: dict[tuple[str, str], list[naive.Answer]] = defaultdict(list)
    for answer in naive.select(naive_answers, Filters(ALL.dataset, ALL.task, (A, B))):
        pairs[(answer.ref, answer.lang)].append(answer)
    by_model = [{a.model: a for a in group} for group in pairs.values() if len(group) == 2]
    diffs = [group[A].right - group[B].right for group in by_model]
    difference = sum(diffs) / len(diffs)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Questions in common"] == f"{len(diffs):,}"
    assert metrics["A − B"] == f"{difference * 100:+.1f} pts"
    verdict = next(text for text in texts(at.markdown) if "95% interval" in text)
    low, high = (float(x.replace(" pts", "")) for x in verdict.split("95% interval [")[1].split("]")[0].split(", "))
    assert low <= round(difference * 100, 1) <= high  # the interval contains the paired difference
    assert verdict.startswith(f"**{A}** is ahead")  # gpt-4o is far ahead of the 2B model

    per_lang = table(at, "lang", "interval")
    for lang, rows in pd.DataFrame(
        [(group[A].lang, group[A].right - group[B].right) for group in by_model], columns=["lang", "d"]
    ).groupby("lang"):
        row = per_lang[per_lang["lang"] == fmt.language(lang)].iloc[0]
        assert row["difference"] == pytest.approx(rows["d"].mean() * 100)  # percentage points
        assert row["n"] == len(rows)
    assert per_lang["answers"].str.startswith("answers?").all()

    split = table(at, "response_a")
    assert len(split) == sum(d != 0 for d in diffs)
    assert split["dish"].str.startswith("dish?dataset=worldcuisines&").all()
    same_table(downloads[f"compare_{A}_{B}_split.csv"], split, ("dish", "answers"))

    at.radio(key="url_right").set_value("B").run()
    assert not at.exception and at.query_params.get("right") == "B"
    assert len(table(at, "response_a")) == sum(d == -1 for d in diffs)


def test_compare_runs_the_per_country_bootstrap_only_when_its_tab_is_opened(warehouse_path: Path, naive_answers):
    at = open_page("views/compare.py", a=A, b=B)
    assert not any("country" in frame.value.columns for frame in at.dataframe)  # the language tab is open
    at.session_state["compare_by"] = "Per gold country"
    at.run()
    assert not at.exception
    countries = table(at, "country", "interval")
    pairs: dict[tuple[str, str], list[naive.Answer]] = defaultdict(list)
    for answer in naive.select(naive_answers, Filters(ALL.dataset, ALL.task, (A, B))):
        pairs[(answer.ref, answer.lang)].append(answer)
    assert len(countries) == len({country for group in pairs.values() if len(group) == 2 for country in group[0].gold})
    assert not any("lang" in frame.value.columns and "interval" in frame.value.columns for frame in at.dataframe)


def test_compare_refuses_one_model_against_itself(warehouse_path: Path):
    at = open_page("views/compare.py", a=A, b=A)
    assert any("two different models" in text for text in texts(at.info))


# --- Consistency --------------------------------------------------------------------------------------


def test_consistency_lists_models_and_the_questions_that_flip_most(warehouse_path: Path, naive_answers):
    at = open_page("views/consistency.py", model=A)
    models = table(at, "mean_langs").set_index("model")
    sets: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for answer in naive.select(naive_answers, ALL):
        sets[(answer.model, answer.ref)][frozenset(answer.countries)] += 1
    agreement: dict[str, list[float]] = defaultdict(list)
    for (model, _), counts in sets.items():
        n = sum(counts.values())
        agreement[model].append(sum(c * (c - 1) for c in counts.values()) / (n * (n - 1)))
    for model, values in agreement.items():
        assert models.loc[model, "pair_agreement"] == pytest.approx(sum(values) / len(values))

    flips = table(at, "answer_sets")
    own = sorted(
        (sum(c * (c - 1) for c in counts.values()) / (30 * 29), len(counts) - 1)
        for (model, _), counts in sets.items()
        if model == A
    )
    assert flips["pair_agreement"].iloc[0] == pytest.approx(own[0][0])
    assert flips["flips"].max() == max(f for _, f in own)
    assert flips["dish"].str.startswith("dish?").all() and flips["answers"].str.contains("dish=").all()
    langs = table(at, "agrees")
    assert len(langs) == 30 and langs["agrees"].between(0, 1).all()


# --- Answers: search, download, link state -----------------------------------------------------------


def test_search_inside_answers_and_download_exactly_the_table(warehouse_path: Path, naive_answers, downloads):
    at = open_page("views/answers.py", q="borscht")
    found = table(at, "response", "variant")
    expected = [a for a in naive.select(naive_answers, ALL) if "borscht" in (a.response or "").lower()]
    assert len(found) == len(expected) > 0
    assert found["dish"].map(links.shown_text).notna().all()
    same_table(downloads["worldcuisines_answers.csv"], found, ("dish",))

    at.radio(key="url_result").set_value("right").run()
    narrowed = table(at, "response", "variant")
    assert len(narrowed) == sum(a.right for a in expected)
    same_table(downloads["worldcuisines_answers.csv"], narrowed, ("dish",))


def test_every_control_of_the_answers_page_survives_the_link(warehouse_path: Path):
    at = open_page("views/answers.py")
    at.text_input(key="url_q").input("Russia").run()
    at.selectbox(key="url_gold").set_value("UA").run()
    at.selectbox(key="url_named").set_value("RU").run()
    at.radio(key="url_result").set_value("wrong").run()
    at.sidebar.multiselect(key="url_langs").set_value(["en", "ru_formal"]).run()
    assert not at.exception
    params = dict(at.query_params)
    assert {key: params.get(key) for key in ("q", "gold", "named", "result")} == {
        "q": "Russia",
        "gold": "UA",
        "named": "RU",
        "result": "wrong",
    }
    first = table(at, "response", "variant")
    assert len(first) > 0

    again = open_page("views/answers.py", **{key: str(value) for key, value in params.items() if key != "dataset"})
    assert again.text_input(key="url_q").value == "Russia"
    assert again.selectbox(key="url_gold").value == "UA" and again.selectbox(key="url_named").value == "RU"
    assert again.radio(key="url_result").value == "wrong"
    assert again.sidebar.multiselect(key="url_langs").value == ["en", "ru_formal"]
    pd.testing.assert_frame_equal(table(again, "response", "variant"), first)


def test_a_leaderboard_style_link_lists_one_model_in_one_language(warehouse_path: Path, naive_answers):
    url = links.answers_url(Filters(ALL.dataset, ALL.task, (A,), ("ja_casual",)), "360 answers", result="right")
    params = dict(parse_qsl(urlsplit(url).query))
    at = open_page("views/answers.py", **{k: v for k, v in params.items() if k != "dataset"})
    rows = table(at, "response", "variant")
    expected = [a for a in naive.select(naive_answers, Filters(ALL.dataset, ALL.task, (A,), ("ja_casual",))) if a.right]
    assert len(rows) == len(expected) > 0 and set(rows["model"]) == {A}


# --- Dishes and the Dish selector ---------------------------------------------------------------------


def test_dishes_show_answers_accuracy_and_filter_to_those_answered(warehouse_path: Path, naive_answers, downloads):
    at = open_page("views/dishes.py", show="answered")
    rows = table(at, "n_linked_answers")
    per_dish: dict[str, list[bool]] = defaultdict(list)
    for answer in naive.select(naive_answers, ALL):
        per_dish[answer.dish_key].append(answer.right)
    assert set(rows["dish_key"]) == set(per_dish)
    for row in rows.itertuples():
        assert row.n_answers == len(per_dish[row.dish_key])
        assert row.accuracy == pytest.approx(sum(per_dish[row.dish_key]) / len(per_dish[row.dish_key]))
    assert rows["dish"].str.startswith("dish?").all()
    same_table(downloads["worldcuisines_all_all-countries_dishes.csv"], rows, ("dish", "answers"))

    at.radio(key="url_show").set_value("").run()
    assert "show" not in at.query_params
    assert len(table(at, "n_linked_answers")) > len(rows)


def test_the_dish_selector_marks_the_dishes_with_answers(warehouse_path: Path, naive_answers):
    at = open_page("views/dish.py", dish="worldcuisines:en:949")
    picker = at.selectbox(key="url_dish")
    answered = {a.dish_key for a in naive.select(naive_answers, ALL)}
    marked = [option for option in picker.options if option.startswith("● ")]
    assert len(marked) == len(answered)
    assert picker.format_func("worldcuisines:en:949").startswith("● ")


# --- Confusion: the co-origin rule and the answers behind a cell ---------------------------------------


def test_confusion_states_its_rule_and_lists_dishes_by_name(warehouse_path: Path, downloads):
    at = open_page("views/confusion.py", true="UA", pred="+")
    assert any("another of the dish's origin countries" in text for text in texts(at.markdown))
    matrix = at.dataframe[0].value
    assert "+" in set(matrix["predicted"])
    answers = table(at, "origins", "response")
    names = set(answers["dish"].map(links.shown_text))
    assert {"Paskha", "Rassolnik"} <= names  # names, not dish keys
    assert answers["dish"].str.startswith("dish?dataset=worldcuisines&").all()
    same_table(downloads["worldcuisines_confusion_UA__.csv"], answers, ("dish",))

    at.selectbox(key="url_pred").set_value("RU").run()
    assert not (set(table(at, "origins", "response")["dish"].map(links.shown_text)) & {"Paskha", "Rassolnik"})


def test_each_country_inside_other_opens_its_own_answers(warehouse_path: Path):
    at = open_page("views/confusion.py", countries="RU,UA,GE")
    inside = table(at, "true_origin", "named")
    row = inside.iloc[0]
    n = int(links.shown_text(row["answers"]).split()[0].replace(",", ""))
    params = dict(parse_qsl(urlsplit(row["answers"]).query))
    assert params["countries"] == "RU,UA,GE" and params["pred"] not in {"RU", "UA", "GE"}
    assert row["named"].startswith("map?") and f"country={params['pred']}" in row["named"]
    cell = open_page("views/confusion.py", **{k: v for k, v in params.items() if k != "dataset"})
    answers = table(cell, "origins", "response")
    assert len(answers) == n and (answers["predicted_country"] == params["pred"]).all()
    assert (answers["true_country"] == params["true"]).all()


# --- Co-occurrence and Code mixing: a chart point or bar lists what is behind it ---------------------


def test_a_cooccurrence_point_lists_its_dishes_and_their_answers(warehouse_path: Path):
    from warehouse.queries import corpus

    corpus_id = corpus.corpora(warehouse_path, "worldcuisines")["corpus_id"].iloc[0]
    bins = corpus.cooccurrence_bins(warehouse_path, ALL, corpus_id, "count", "model")
    point = bins[bins["line"] == A].sort_values("n_answers").iloc[-1]
    at = open_page("views/cooccurrence.py", line=A, bin=str(int(point["bin"])))
    dishes = table(at, "docs_with_true_country", "answers")
    assert len(dishes) == point["n_dishes"]
    counts = dishes["answers"].map(links.shown_text).str.split().str[0].str.replace(",", "").astype(int)
    assert counts.sum() == point["n_answers"]  # the point's answers, dish by dish
    assert dishes["name"].str.startswith("dish?").all()
    assert dishes["answers"].str.contains(f"models={A}").all()


def test_a_codemix_bin_lists_its_pairs_linked_to_both_dishes(warehouse_path: Path):
    at = open_page("views/codemix.py", dataset="borsch")
    everything = table(at, "uk_name", "ru_name", "d")
    chosen = int(everything["bin"].mode().iloc[0])
    at.selectbox(key="url_bin").set_value(str(chosen)).run()
    assert at.query_params.get("bin") == str(chosen)
    pairs = table(at, "uk_name", "ru_name", "d")
    assert len(pairs) == (everything["bin"] == chosen).sum() and (pairs["bin"] == chosen).all()
    for side in ("uk", "ru"):  # a dish page per name; a one-sided pair's missing name: the Dishes search
        keyed = pairs[f"{side}_dish_key"].notna()
        assert pairs.loc[keyed, f"{side}_name"].str.startswith(f"dish?dataset=borsch&dish=borsch%3A{side}%3A").all()
        assert pairs.loc[~keyed, f"{side}_name"].str.startswith("dishes?dataset=borsch&q=").all()
        assert pairs[f"{side}_name"].map(links.shown_text).notna().all()
