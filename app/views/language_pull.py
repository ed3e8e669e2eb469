"""Language pull: does the prompt language pull wrong answers toward the countries that speak it?

Second section: for dishes that both Russia and Ukraine claim, which of the two the models name,
per prompt language (BORSch Fig. 4, over every prompt language of the dataset).

A dataset without answers of its own (BORSch) is shown with the real answers to linked records of
another dataset, labelled as such (app/linked.py); Russia vs Ukraine then uses the dataset's own
gold to pick the dishes of both.
"""

import plotly.graph_objects as go
import streamlit as st

from app import data, fmt, linked, links, ui
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


def dumbbell(frame) -> go.Figure:
    """One line per prompt language from the English base to the pull share, largest lift on top."""
    langs = [fmt.language(lang) for lang in frame["lang"]]
    custom = [
        [
            row.language,
            clip_countries(row.language_countries),
            row.n_pulled,
            row.n_wrong,
            row.n_base_pulled if row.n_base_pulled == row.n_base_pulled else 0,
            row.n_base_wrong if row.n_base_wrong == row.n_base_wrong else 0,
            row.lift if row.lift == row.lift else 0.0,
        ]
        for row in frame.itertuples()
    ]
    hover = (
        "<b>%{y}</b><br>countries: %{customdata[1]}<br>"
        "pull: %{customdata[2]:,} of %{customdata[3]:,} wrong answers<br>"
        "English base: %{customdata[4]:,} of %{customdata[5]:,}<br>lift: %{customdata[6]:+.1%}<br>"
        "pull %{x:.1%}<extra></extra>"
    )
    segments_x, segments_y = [], []
    for row, lang in zip(frame.itertuples(), langs, strict=True):
        if row.base_share == row.base_share and row.pull_share == row.pull_share:
            segments_x += [row.base_share, row.pull_share, None]
            segments_y += [lang, lang, None]
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=segments_x, y=segments_y, mode="lines", line={"color": "#c7c7c7", "width": 3}, hoverinfo="skip",
            showlegend=False,
        )
    )  # fmt: skip
    fig.add_trace(
        go.Scatter(
            x=frame["base_share"], y=langs, mode="markers", name="English prompts (base)",
            marker={"color": BASE_COLOR, "size": 9}, customdata=custom, hovertemplate=hover,
        )
    )  # fmt: skip
    fig.add_trace(
        go.Scatter(
            x=frame["pull_share"], y=langs, mode="markers", name="prompts in this language",
            marker={"color": PULL_COLOR, "size": 11}, customdata=custom, hovertemplate=hover,
        )
    )  # fmt: skip
    fig.update_layout(
        height=max(320, 24 * len(langs) + 110),
        margin={"l": 0, "r": 0, "t": 30, "b": 0},
        legend={"orientation": "h", "y": 1.02, "x": 0, "yanchor": "bottom"},
        xaxis={"title": "share of wrong answers naming a country of the prompt language", "tickformat": ".0%"},
        yaxis={"title": "", "type": "category", "categoryarray": langs, "autorange": "reversed"},
    )
    return fig


def ru_share_bars(frame) -> go.Figure:
    russian = frame["lang"].str.startswith(("ru", "uk"))
    fig = go.Figure(
        go.Bar(
            x=frame["lang"],
            y=frame["ru_share"],
            marker={"color": ["#d62728" if flag else "#1f77b4" for flag in russian]},
            text=[f"n={fmt.count(n)}" for n in frame["n_either"]],
            hovertext=[fmt.language(lang) for lang in frame["lang"]],
            textposition="outside",
            customdata=frame[["n_ru", "n_ua", "n_either", "n_answers"]].to_numpy(),
            hovertemplate="<b>%{hovertext}</b><br>Russia: %{y:.1%} of %{customdata[2]:,} answers naming Russia or "
            "Ukraine"
            "<br>naming Russia: %{customdata[0]:,}, Ukraine: %{customdata[1]:,}"
            "<br>all answers about these dishes: %{customdata[3]:,}<extra></extra>",
        )
    )
    fig.add_hline(y=0.5, line_dash="dot", line_color="#7f7f7f")
    fig.update_layout(
        height=380,
        margin={"l": 0, "r": 0, "t": 20, "b": 0},
        xaxis={"title": "prompt language", "type": "category", "categoryarray": frame["lang"].tolist()},
        yaxis={"title": "share naming Russia", "tickformat": ".0%", "range": [0, 1.12]},
    )
    return fig


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
    st.plotly_chart(dumbbell(pull), config={"displayModeBar": False}, key="language_pull_chart")
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
    st.plotly_chart(ru_share_bars(named), config={"displayModeBar": False}, key="ru_ua_chart")
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
