"""The Dish page: one dish by deep link, with every model answer and its matched country spans."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from app.views.dish import GOLD_RGBA, WRONG_RGBA, names_table
from app.widgets import highlight
from tests.helpers import REPO, SVG_NS, shown, svg_maps

MAIN = REPO / "app" / "main.py"
DISH_PAGE = "views/dish.py"  # relative to app/main.py
TIMEOUT = 60


def span(start: int, end: int, country: str | None = None, negated: bool = False, region: str | None = None):
    return {"span_start": start, "span_end": end, "country": country, "region": region, "negated": negated}


# --- the shared highlighter (app/widgets.py) on published span rows -> safe HTML ---------------------


def test_highlight_marks_spans_by_offset():
    text = "It comes from South Africa."
    assert highlight(text, [span(14, 26, "ZA")], gold={"ZA"}) == (
        'It comes from <mark style="background:#c8f0cf;border-radius:3px;padding:0 2px" title="ZA">South Africa</mark>.'
    )


def test_highlight_escapes_markup_in_the_answer():
    text = "<script>alert(1)</script> France & Italy"
    html = highlight(text, [span(26, 32, "FR"), span(35, 40, "IT")])
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert ">France</mark> &amp; <mark" in html and ">Italy</mark>" in html


def test_highlight_offsets_refer_to_the_raw_text_even_after_escaping():
    text = "a<b> Ukraine"
    assert highlight(text, [span(5, 12, "UA")]).endswith(">Ukraine</mark>")
    assert highlight(text, [span(5, 12, "UA")]).startswith("a&lt;b&gt; <mark")


def test_highlight_strikes_through_negated_spans_and_colours_gold():
    text = "Not Italy but Portugal"
    html = highlight(text, [span(14, 22, "PT"), span(4, 9, "IT", negated=True)], gold={"PT"})
    assert 'line-through" title="negated: IT">Italy</mark>' in html
    assert '#c8f0cf;border-radius:3px;padding:0 2px" title="PT">Portugal</mark>' in html  # gold: green
    assert html.index("Italy") < html.index("Portugal")


def test_highlight_skips_overlapping_and_out_of_range_spans():
    text = "South Africa"
    html = highlight(text, [span(0, 12, "ZA"), span(6, 12, None, region="Africa"), span(10, 99, "XX")])
    assert html.count("<mark") == 1 and html.endswith(">South Africa</mark>")
    assert highlight(None, []) == "" and highlight("plain", []) == "plain"


def test_names_table_groups_names_per_language_primary_first():
    names = pd.DataFrame(
        {
            "lang": ["uk", "en", "en", "ru"],
            "name": ["Борщ", "Borscht", "Borshch", "Борщ"],
            "display_name": ["Борщ", "Borscht", "Borshch", "Борщ"],
            "is_primary": [True, False, False, False],
        }
    )
    table = names_table(names)
    assert table.to_dict("records") == [
        {"lang": "uk", "names": "Борщ"},
        {"lang": "en", "names": "Borscht / Borshch"},
        {"lang": "ru", "names": "Борщ"},
    ]


# --- the page, on the real demo warehouse ----------------------------------------------------------


@pytest.fixture
def app(real_warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(real_warehouse))
    return AppTest.from_file(MAIN, default_timeout=TIMEOUT)


def open_dish(app: AppTest, **params: str) -> AppTest:
    for name, value in params.items():
        app.query_params[name] = value
    return app.run().switch_page(DISH_PAGE).run()


def texts(elements) -> list[str]:
    return [shown(str(element.value)) for element in elements]


def answer_rows(at: AppTest) -> int:
    """Rows of the highlighted-answers table (st.html), not counting its header row."""
    assert at.html, "no answers table"
    return at.html[0].value.split("<tbody>", 1)[1].count("<tr>")


def test_deep_link_shows_names_origins_answers_and_highlighted_spans(app: AppTest):
    at = open_dish(app, dataset="worldcuisines", dish="worldcuisines:en:949")
    assert not at.exception
    assert at.selectbox(key="url_dish").value == "worldcuisines:en:949"
    assert at.query_params.get("dish") == "worldcuisines:en:949"
    assert "Melktert" in texts(at.header)
    names = at.dataframe[0].value
    assert names.iloc[0].to_dict() == {"lang": "en", "names": "Melktert"}
    assert "Мельктерт" in set(names["names"])
    assert any("South Africa (ZA)" in text for text in texts(at.markdown))
    (origins,) = svg_maps(at)  # the origins map: South Africa green, the United States red
    fills = {path.get("id"): path.get("fill") for path in origins.iter(SVG_NS + "path")}
    assert fills["ZA"] == "rgb({},{},{})".format(*GOLD_RGBA[:3])
    assert fills["US"] == "rgb({},{},{})".format(*WRONG_RGBA[:3])
    captions = texts(at.caption)
    assert any("Image from Wikimedia (not reachable offline)" in text and "https://" in text for text in captions)
    assert at.get("image"), "no dish photo"

    answers = at.html[0].value
    assert answer_rows(at) == 12  # every model's answer to the English prompt (the default)
    assert '<mark style="background:#c8f0cf' in answers and 'title="ZA"' in answers  # a gold mention
    scores = next(frame.value for frame in at.dataframe if "variant" in frame.value.columns)
    assert len(scores) == 12 * 30 and set(scores["model"]) >= {"gpt-4o-2024-08-06", "molmoe-1b"}
    assert {"CSV", "Parquet"} <= {button.label for button in at.get("download_button")}

    at.selectbox(key="dish_answer_lang").select("all").run()
    assert at.query_params.get("alang") == "all"  # kept in the link
    assert not at.exception
    assert answer_rows(at) == 12 * 30


def test_answers_follow_the_global_filters(app: AppTest):
    at = open_dish(
        app, dataset="worldcuisines", dish="worldcuisines:en:949", models="gpt-4o-2024-08-06", langs="ru_formal"
    )
    assert not at.exception
    assert answer_rows(at) == 1
    assert "gpt-4o-2024-08-06" in at.html[0].value and "ru_formal" in at.html[0].value


def test_unknown_dish_in_the_link_falls_back_with_a_warning(app: AppTest):
    at = open_dish(app, dataset="worldcuisines", dish="nonsense")
    assert not at.exception
    assert any("nonsense" in text for text in texts(at.warning))
    chosen = at.selectbox(key="url_dish").value
    assert chosen.startswith("worldcuisines:") and at.query_params.get("dish") == chosen
    assert answer_rows(at) > 0  # the fallback is a dish with answers


def test_picking_another_dish_updates_the_link(app: AppTest):
    at = open_dish(app, dataset="worldcuisines", dish="worldcuisines:en:949")
    at.selectbox(key="url_dish").select("worldcuisines:en:0").run()
    assert not at.exception
    assert at.query_params.get("dish") == "worldcuisines:en:0"
    assert "Rawon" in texts(at.header)


def test_dataset_without_answers_shows_names_origins_and_what_to_run(app: AppTest):
    at = open_dish(app, dataset="borsch", dish="borsch:ru:900")
    assert not at.exception
    assert at.selectbox(key="url_dish").value == "borsch:ru:900"
    assert at.dataframe[0].value.to_dict("records") == [{"lang": "ru", "names": "Перец фаршированный"}]
    origins = " ".join(texts(at.markdown))
    assert "Spain (ES)" in origins and "Mexico (MX)" in origins
    assert len(svg_maps(at)) == 1
    assert any("No model answers" in text and "pipeline score" in text for text in texts(at.info))
    assert not at.html
