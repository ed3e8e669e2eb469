"""Language pull: does the prompt language pull wrong answers toward the countries that speak it?

Second section: for dishes that both Russia and Ukraine claim, which of the two the models name,
per prompt language (BORSch Fig. 4, over every prompt language of the dataset).

A dataset without answers of its own (BORSch) is shown with the real answers to linked records of
another dataset, labelled as such (app/linked.py); Russia vs Ukraine then uses the dataset's own
gold to pick the dishes of both.
"""

import pandas as pd
import streamlit as st

from app import data, fmt, linked, links, ui, vega
from app.safe import literal
from warehouse.queries import language as queries

PULL_COLOR, BASE_COLOR = "#d62728", "#7f7f7f"
SMALL_DISHES = 10  # fewer Russia-and-Ukraine dishes than this: say the numbers are small
SMALL_ANSWERS = 30


def clip_countries(codes: str | None, limit: int = 12) -> str:
    listed = [code for code in str(codes or "").split(",") if code]
    if len(listed) <= limit:
        return ", ".join(listed) or "none"
    return ", ".join(listed[:limit]) + f" … ({len(listed)} countries)"


BASE, PULLED = "English prompts (base)", "prompts in this language"


def dumbbell(frame) -> dict:
    """One line per prompt language from the English base to the pull share, largest lift on top."""
    rows = pd.DataFrame(
        {
            "language": [fmt.language(lang) for lang in frame["lang"]],
            "countries": [clip_countries(codes) for codes in frame["language_countries"]],
            "base_share": frame["base_share"],
            "pull_share": frame["pull_share"],
            "pull": [
                f"{int(p):,} of {int(w):,} wrong answers"
                for p, w in zip(frame["n_pulled"], frame["n_wrong"], strict=True)
            ],
            "base": [
                f"{int(p if p == p else 0):,} of {int(w if w == w else 0):,}"
                for p, w in zip(frame["n_base_pulled"], frame["n_base_wrong"], strict=True)
            ],
            "lift": [f"{lift if lift == lift else 0.0:+.1%}" for lift in frame["lift"]],
        }
    )
    points = rows.melt(
        id_vars=["language", "countries", "pull", "base", "lift"],
        value_vars=["base_share", "pull_share"],
        var_name="series",
        value_name="share",
    ).dropna(subset=["share"])
    points["series"] = points["series"].map({"base_share": BASE, "pull_share": PULLED})
    y = {
        "field": "language",
        "type": "nominal",
        "sort": rows["language"].tolist(),
        "title": None,
        "axis": {"labelLimit": 0},
    }
    x_title = "share of wrong answers naming a country of the prompt language"
    tooltip = [
        {"field": "language"},
        {"field": "countries"},
        {"field": "pull"},
        {"field": "base", "title": "English base"},
        {"field": "lift"},
        {"field": "series", "title": "point"},
        {"field": "share", "format": fmt.D3_PCT},
    ]
    return {
        "height": {"step": 24},
        "encoding": {"y": y},
        "layer": [
            {
                "data": {"values": vega.records(rows.dropna(subset=["base_share", "pull_share"]))},
                "mark": {"type": "rule", "color": "#c7c7c7", "strokeWidth": 3},
                "encoding": {
                    "x": {"field": "base_share", "type": "quantitative"},
                    "x2": {"field": "pull_share"},
                },
            },
            {
                "data": {"values": vega.records(points)},
                "mark": {"type": "circle", "opacity": 1},
                "encoding": {
                    "x": {
                        "field": "share",
                        "type": "quantitative",
                        "title": x_title,
                        "axis": {"format": fmt.D3_PCT_AXIS},
                    },
                    "color": {
                        "field": "series",
                        "type": "nominal",
                        "title": None,
                        "scale": {"domain": [BASE, PULLED], "range": [BASE_COLOR, PULL_COLOR]},
                        "legend": {"orient": "top"},
                    },
                    "size": {
                        "field": "series",
                        "type": "nominal",
                        "scale": {"domain": [BASE, PULLED], "range": [70, 110]},
                        "legend": None,
                    },
                    "tooltip": tooltip,
                },
            },
        ],
    }


def ru_share_bars(frame) -> dict:
    """Per prompt language, the share of answers naming Russia among those naming Russia or Ukraine."""
    rows = pd.DataFrame(
        {
            "lang": frame["lang"],
            "language": [fmt.language(lang) for lang in frame["lang"]],
            "ru_share": frame["ru_share"],
            "russian": frame["lang"].str.startswith(("ru", "uk")),
            "label": [f"n={fmt.count(n)}" for n in frame["n_either"]],
            "n_ru": frame["n_ru"],
            "n_ua": frame["n_ua"],
            "n_either": frame["n_either"],
            "n_answers": frame["n_answers"],
        }
    )
    x = {"field": "lang", "type": "nominal", "sort": rows["lang"].tolist(), "title": "prompt language"}
    y = {"field": "ru_share", "type": "quantitative"}
    tooltip = [
        {"field": "language"},
        {"field": "ru_share", "title": "Russia", "format": fmt.D3_PCT},
        {"field": "n_either", "title": "answers naming Russia or Ukraine", "format": fmt.D3_COUNT},
        {"field": "n_ru", "title": "naming Russia", "format": fmt.D3_COUNT},
        {"field": "n_ua", "title": "naming Ukraine", "format": fmt.D3_COUNT},
        {"field": "n_answers", "title": "all answers about these dishes", "format": fmt.D3_COUNT},
    ]
    return {
        "height": 380,
        "layer": [
            {
                "data": {"values": vega.records(rows)},
                "encoding": {"x": x, "tooltip": tooltip},
                "layer": [
                    {
                        "mark": "bar",
                        "encoding": {
                            "y": y
                            | {
                                "title": "share naming Russia",
                                "axis": {"format": fmt.D3_PCT_AXIS},
                                "scale": {"domain": [0, 1.12]},
                            },
                            "color": {
                                "field": "russian",
                                "type": "nominal",
                                "scale": {"domain": [True, False], "range": ["#d62728", "#1f77b4"]},
                                "legend": None,
                            },
                        },
                    },
                    {
                        "mark": {"type": "text", "dy": -8, "fontSize": 10},
                        "encoding": {"y": y, "text": {"field": "label"}},
                    },
                ],
            },
            {
                "data": {"values": [{"half": 0.5}]},
                "mark": {"type": "rule", "strokeDash": [3, 3], "color": "#7f7f7f"},
                "encoding": {"y": {"field": "half", "type": "quantitative"}},
            },
        ],
    }


selected = ui.selection()

st.title("Language pull")
st.markdown(
    "Does asking in a language pull the model toward the countries where that language is spoken? "
    "For each prompt language, the **pull** is the share of *wrong* answers (a country was named, "
    "but not the dish's origin) that name a country where the language is spoken: Japanese prompts "
    "naming Japan, Spanish prompts naming Spain, Mexico, Argentina… The **base** is the same share in "
    "the wrong answers to **English** prompts of the same models, i.e. how often those countries are "
    "named anyway. The gap (*lift*) is what the language itself adds. Counts are summed over the "
    "selected models before dividing."
)
answers = linked.answers_for(selected, "pull")
filters = answers.filters

pull = data.query(queries.language_pull, filters, answers.source)
if pull.empty or int(pull["n_wrong"].sum()) == 0:
    st.info(
        "No wrong answers match the selected models and prompt languages, so there is no pull to "
        "measure. Clear the **Models** and **Prompt languages** filters in the sidebar.",
        icon=":material/info:",
    )
else:
    if answers.linked:
        st.caption(literal(answers.label))
    vega.draw(dumbbell(pull), key="language_pull_chart")
    notes = ["Sorted by lift (pull − base)."]
    if answers.linked:
        notes.append(f"Wrong means: no country of the {answers.source.gold} gold named first.")
    if "en" in set(pull["lang"]):
        notes.append("English prompts are their own base (lift 0).")
    if pull["base_share"].isna().any():
        notes.append("Languages without an English base: the selected models have no wrong English answers.")
    st.caption(" ".join(notes))
    table = pull[
        ["lang", "language", "n_wrong", "n_pulled", "pull_share", "n_base_wrong", "n_base_pulled", "base_share",
         "lift", "language_countries"]
    ]  # fmt: skip
    if answers.linked:  # every row says whose answers and whose gold, in the download too
        table = table.assign(answers=answers.column, gold=answers.source.gold)
    fmt.dataframe(table, {"language": "Language name"})
    ui.downloads(table, f"{selected.dataset}_language_pull", key="language_pull")

st.subheader("Russia vs Ukraine")
st.markdown(
    "For dishes whose origins include **both Russia and Ukraine** (borscht, blini, syrniki…): of the answers "
    "naming Russia or Ukraine, the share naming Russia, per prompt language. 50% would be even-handed."
)
# Linked answers: the dataset's own gold decides which dishes are "of both" (the only rows the mart keeps).
ru_ua_source = linked.AnswerSource("linked", selected.dataset) if answers.linked else answers.source
ru_ua = data.query(queries.ru_ua_pull, filters, ru_ua_source)
dishes = data.query(queries.ru_ua_dishes, filters, ru_ua_source)
if answers.linked:
    st.caption(
        "Linked answers of "
        + literal(answers.asked)
        + "'s question about the "
        + literal(selected.dataset)
        + " dishes whose "
        + literal(selected.dataset)
        + " gold names both Russia and Ukraine."
    )
n_dishes = int(dishes["n_dishes"].iloc[0]) if not dishes.empty else 0
if ru_ua.empty or int(ru_ua["n_either"].sum()) == 0:
    st.info(
        f"No answer in this selection names Russia or Ukraine for a dish from both ({n_dishes} such "
        f"dish{'es' if n_dishes != 1 else ''} answered). Widen the **Models** / **Prompt languages** filters.",
        icon=":material/info:",
    )
else:
    named = ru_ua[ru_ua["n_either"] > 0]
    vega.draw(ru_share_bars(named), key="ru_ua_chart")
    total = int(named["n_either"].sum())
    caption = (
        f"{n_dishes} dish{'es' if n_dishes != 1 else ''} from both countries; {total:,} answers named Russia or "
        f"Ukraine ({int(named['n_ru'].sum()):,} Russia, {int(named['n_ua'].sum()):,} Ukraine; an answer may "
        "name both). Bar labels: answers per language naming either. Russian-language prompts in red."
    )
    if n_dishes < SMALL_DISHES or int(named["n_either"].median()) < SMALL_ANSWERS:
        caption += (
            f" **Few dishes and answers** (median {int(named['n_either'].median())} per language): read the "
            "differences between languages with care."
        )
    missing = ru_ua.loc[ru_ua["n_either"] == 0, "lang"].tolist()
    if missing:
        caption += f" Not shown (no answer named either): {literal(', '.join(missing))}."
    st.caption(caption)
    if answers.linked:
        ru_ua = ru_ua.assign(answers=answers.column, gold=selected.dataset)
    fmt.dataframe(ru_ua)
    ui.downloads(ru_ua, f"{selected.dataset}_ru_ua_pull", key="ru_ua_pull")

    st.markdown("**Per dish**: each dish opens its page.")
    by_dish = data.query(queries.ru_ua_by_dish, filters, ru_ua_source)
    # linked answers were asked under another dataset's task: the Dish page opens without that task
    dish_table = links.with_dish_links(
        by_dish, selected.dataset, name="dish_name", filters=None if answers.linked else filters
    ).drop(columns=["dish_name"])
    fmt.dataframe(dish_table, {"dish": links.dish_column()}, key="ru_ua_dishes")
    ui.downloads(links.as_shown(dish_table, ["dish"]), f"{selected.dataset}_ru_ua_dishes", key="ru_ua_dishes_dl")
