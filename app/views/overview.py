"""The landing page: the headline findings of the selected answers (app/findings.py), each linked to its evidence,
then the model leaderboard, what the selected dataset contains and what the ingest had to work around."""

from dataclasses import replace

import pandas as pd
import streamlit as st

from app import charts, data, findings, fmt, links, ui, vega, widgets
from app.safe import code, literal
from warehouse.queries import answers as answer_queries
from warehouse.queries import methods

ALL_LANGS = "*"  # the leaderboard's pooled row over all prompt languages
METRICS = {"Jaccard": "jaccard", "accuracy": "accuracy"}
NATION_NOTE = (
    "UK nation match: over the answers whose gold names England, Scotland, Wales or Northern Ireland "
    "(WorldCuisines gives them), the share that named that nation; an answer naming England for a "
    "Scottish dish is right at country level (GB) and wrong here."
)


def interval(low: pd.Series, high: pd.Series, percent: bool = False) -> pd.Series:
    """Bootstrap 95% interval as text: "[0.41, 0.45]", or "[41.2%, 45.0%]" for a share."""
    show = fmt.pct if percent else fmt.score
    return "[" + low.map(show) + ", " + high.map(show) + "]"


def leaderboard_table(board: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Readable leaderboard: one row per model and prompt language, best first by `metric`."""
    table = pd.DataFrame(
        {
            "model": board["model"],
            "prompt language": board["lang"].where(board["lang"] != ALL_LANGS, "all"),
            "jaccard": board["jaccard"],
            "jaccard 95% CI": interval(board["jaccard_low"], board["jaccard_high"]),
            "accuracy": board["accuracy"],
            "accuracy 95% CI": interval(board["accuracy_low"], board["accuracy_high"], percent=True),
            "n": board["n"],
            "no-country share": board["no_country_share"],
        }
    )
    if "uk_nation_match" in board and board["uk_nation_match"].notna().any():
        # nation-level, over the answers whose gold names a UK nation (see NATION_NOTE)
        table["UK nation match"] = board["uk_nation_match"].round(3)
        table["n, UK nation gold"] = board["n_uk_nation"]
    table = table.sort_values([metric, "model"], ascending=[False, True], kind="stable").reset_index(drop=True)
    table.insert(0, "rank", range(1, len(table) + 1))
    return table


def leaderboard_bars(pooled: pd.DataFrame, metric: str, label: str) -> None:
    """Mean `metric` per model over all prompt languages, with the 95% interval as error bars."""
    share = metric == "accuracy"
    shown = pooled.sort_values(metric, ascending=False)
    rows = pd.DataFrame(
        {
            "model": shown["model"],
            "value": shown[metric],
            "low": shown[f"{metric}_low"],
            "high": shown[f"{metric}_high"],
            "text": shown[metric].map(fmt.pct if share else fmt.score),
        }
    )
    y = {"field": "model", "type": "nominal", "sort": None, "title": None, "axis": {"labelLimit": 0}}
    x_title = f"mean {label}, all prompt languages (95% bootstrap interval)"
    axis = {"format": fmt.D3_PCT_AXIS} if share else {}
    vega.draw(
        {
            "data": {"values": vega.records(rows)},
            "height": {"step": 28},
            "encoding": {"y": y},
            "layer": [
                {
                    "mark": {"type": "bar", "color": "#1f77b4"},
                    "encoding": {
                        "x": {"field": "value", "type": "quantitative", "title": x_title, "axis": axis},
                        "tooltip": [{"field": "model"}, {"field": "text", "title": label}],
                    },
                },
                {
                    "mark": {"type": "rule", "color": "#555"},
                    "encoding": {"x": {"field": "low", "type": "quantitative"}, "x2": {"field": "high"}},
                },
            ],
        },
        key="overview_bars",
    )


def leaderboard_heatmap(pivot: pd.DataFrame, label: str, metric: str) -> None:
    """Models × prompt languages, the leaderboard's metric in each cell."""
    share = metric == "accuracy"
    vega.model_language_heatmap(pivot, label=label, share=share, key="overview_heatmap", axis_on_top=True)


def with_method_accuracy(board: pd.DataFrame, filters, method: str) -> pd.DataFrame:
    """The leaderboard with accuracy by another scoring method (no bootstrap interval for it)."""
    other = data.query(methods.method_accuracy, filters, method)
    if other.empty:
        st.info(f"No {ui.SCORING_METHODS[method]} for task {code(filters.task)}: accuracy below is ours.")
        return board
    merged = board.drop(columns=["accuracy"]).merge(other[["model", "lang", "accuracy"]], on=["model", "lang"])
    merged["accuracy_low"] = merged["accuracy_high"] = merged["accuracy"]
    st.caption(f"Accuracy by {ui.SCORING_METHODS[method]}; its interval columns repeat the value (not bootstrapped).")
    return merged


def leaderboard(filters) -> None:
    board = data.query(answer_queries.leaderboard, filters)
    st.subheader("Leaderboard")
    if board.empty:
        st.info("No scored answers match the sidebar filters (task, models, prompt languages).")
        return
    controls = st.columns(2)
    method = ui.scoring_method()  # in the sidebar, shared with the Map
    if method != "atlas":
        board = with_method_accuracy(board, filters, method)
    # both kept in the link (?rank=accuracy&board_lang=ru_formal), like every page's controls
    label = widgets.url_select(
        "Rank by", list(METRICS), param="rank", what="ranking", container=controls[0], key="overview_rank_by"
    )
    metric = METRICS[label]
    langs = [ALL_LANGS, *sorted(lang for lang in board["lang"].unique() if lang != ALL_LANGS)]
    lang = widgets.url_select(
        "Prompt language",
        langs,
        param="board_lang",
        format_func=lambda code: "All languages (pooled)" if code == ALL_LANGS else fmt.language(code),
        what="prompt language",
        container=controls[1],
        key="overview_leaderboard_lang",
    )
    table = leaderboard_table(board[board["lang"] == lang], metric)
    # each cell's answers on the Answers page (app/links.py): this model, this prompt language
    table["answers"] = [
        links.answers_url(
            replace(filters, models=(model,), langs=filters.langs if lang == ALL_LANGS else (lang,)), f"{n:,} answers"
        )
        for model, n in table[["model", "n"]].itertuples(index=False)
    ]
    shown = table.assign(
        **{
            "prompt language": table["prompt language"].map(lambda c: c if c == "all" else fmt.language(c)),
            "accuracy": 100 * table["accuracy"],
            "no-country share": 100 * table["no-country share"],
        }
    )
    st.dataframe(
        shown,
        hide_index=True,
        height=35 * (min(len(table), 20) + 1) + 3,  # every model visible without scrolling (up to 20)
        column_config={
            "rank": st.column_config.NumberColumn("Rank", width=50),
            "model": "Model",
            "prompt language": st.column_config.TextColumn("Language", width=110),
            "jaccard": st.column_config.ProgressColumn(
                "Jaccard", format=f"%.{fmt.SCORE_DIGITS}f", min_value=0.0, max_value=1.0, width=130
            ),
            "jaccard 95% CI": st.column_config.TextColumn("Jaccard, 95% CI", width=105),
            "accuracy": st.column_config.ProgressColumn(
                "Accuracy", format="%.1f%%", min_value=0.0, max_value=100.0, width=130
            ),
            "accuracy 95% CI": st.column_config.TextColumn("Accuracy, 95% CI", width=125),
            "n": st.column_config.NumberColumn("Answers", format="localized", width=70),
            "answers": links.answers_column(help="This model's answers in this prompt language."),
            "no-country share": st.column_config.NumberColumn(
                "No country", format="%.1f%%", width=90, help=ui.NO_COUNTRY
            ),
            "UK nation match": st.column_config.NumberColumn("UK nation match", format="%.3f", help=NATION_NOTE),
        },
    )
    st.caption(
        f"Task {code(filters.task)}. Mean per answer; 95% intervals from a bootstrap over answers. "
        f"No-country share: the share of answers with no country. {ui.NO_COUNTRY} "
        + (f"{NATION_NOTE} " if "UK nation match" in table else "")
        + "Click a column header to sort. The download holds every model × prompt language row."
    )
    ui.downloads(leaderboard_table(board, metric), f"{filters.dataset}_{filters.task}_leaderboard", key="leaderboard")

    pooled = board[board["lang"] == ALL_LANGS]
    per_lang = board[board["lang"] != ALL_LANGS]
    # each tab's chart is built and sent only while it is open (a page's first draw carries one chart);
    # the labels do not name the metric, so the open tab stays open when "Rank by" changes
    chart, heat = st.tabs(["Per model", "Models × prompt languages"], key="overview_chart", on_change="rerun")
    with chart:
        if chart.open:
            leaderboard_bars(pooled, metric, label)
    with heat:
        if heat.open:
            order = pooled.sort_values(metric, ascending=False)["model"].tolist()
            pivot = per_lang.pivot_table(index="model", columns="lang", values=metric).reindex(order)
            leaderboard_heatmap(pivot, label, metric)
            ui.downloads(pivot.reset_index(), f"{filters.dataset}_{filters.task}_{metric}_by_language", key="pivot")


selected = ui.selection()
summary = selected.summary

st.title("What models believe about where food comes from")
st.caption(literal(summary["title"]))

if selected.filters is not None:
    findings.headline(selected.filters)
    st.divider()
    leaderboard(selected.filters)
    st.divider()
    st.header("Dataset composition")

metrics = st.columns(5)
for column, (label, field, help_text) in zip(
    metrics,
    [
        ("Dishes", "n_dishes", "Dish entries, all language lists of the dataset added up."),
        ("Origin countries", "n_origin_countries", "Distinct countries named as a dish origin."),
        ("Items", "n_items", "Benchmark items (questions) built from the dataset."),
        ("Answers", "n_generations", "Model answers imported or generated for those items."),
        ("Models", "n_models", "Distinct models that answered."),
    ],
    strict=True,
):
    column.metric(label, fmt.count(summary[field]), help=help_text, border=True)

st.subheader("Dishes per origin country")
origin = data.dishes_per_origin(selected.dataset, selected.lang)
if origin.empty:
    st.caption("No dish of this selection names an origin country.")
else:
    charts.dishes_per_origin(origin, top=30)
    note = "Top 30 countries; Post-Soviet countries in red. A dish with several origins counts for each."
    if selected.lang is None and len(selected.languages) > 1:
        note += " Language lists are added up, so a dish listed in both counts twice."
    st.caption(note)
    every = st.expander(f"All {len(origin)} countries as a table", key="overview_origin_table", on_change="rerun")
    with every:
        if every.open:  # the table is sent only when opened
            fmt.dataframe(origin)
    ui.downloads(origin, f"{selected.dataset}_{selected.lang or 'all'}_dishes_per_origin", key="origin")

st.subheader("Dishes per collection round")
per_source = data.dishes_per_source(selected.dataset, selected.lang)
fmt.dataframe(per_source)
ui.downloads(per_source, f"{selected.dataset}_{selected.lang or 'all'}_dishes_per_source", key="source")

st.subheader("Data quirks handled at ingest")
quirks = data.ingest_report(selected.dataset)
if quirks.empty:
    st.caption("The ingest recorded no data quirks for this dataset.")
else:
    fmt.dataframe(quirks)

answers = data.answers_per_model(selected.dataset)
if not answers.empty:
    st.subheader("Answers per model")
    fmt.dataframe(answers)
