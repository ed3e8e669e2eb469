"""Culture mix: does a model still name a food's country when another culture is in the picture? One page, two
parts: CultureMix's own tables and figures as published (app/culturemix_tables.py) and our analyses of label shift
and entropy (app/culturemix_analysis.py), over the same answers and prompt. Reads marts.culturemix_* only, and
says which models produced what it shows."""

import streamlit as st

from app import culturemix_analysis as analysis
from app import culturemix_tables as tables
from app import data, empty_study, fmt, paper_tables, widgets
from app.safe import literal
from pipeline.score.food_match import FOOD_RULE
from warehouse.queries import culturemix as q

PROMPT_NAMES = {"base": "base (the paper's question)", "direct": "direct instruction", "cot": "chain of thought"}
PARTS = {"tables": "As published: the paper's tables and figures", "analysis": "Our analyses: label shift, entropy"}

st.title("Culture mix")
st.caption(
    "CultureMix asks a model to name a food and its country in four settings: alone (SF), beside another "
    "food (MF, the target on the left), on a foreign background (SFB) and both (MFB), and on real photos. An "
    "answer's *shift* compares its country with the same model's SF answer for the same food: kept, moved to a "
    "distractor's country, to a distractor's continent, or elsewhere. Country: the answer's `Country:` line when "
    "its prompt asks for one, else the first country it names (name variants such as USA or Korea count as their "
    "country; §3.1). Food: " + FOOD_RULE
)

sources = data.query(q.sources)
if sources.empty:
    empty_study.show(
        empty_study.EmptyStudy(
            "Per model and subtask (SF, MF, SFB, MFB, REAL): country and food accuracy and entropy (CultureMix "
            "Fig. 3a, Tables 6 and 8), by cultural distance (Figs. 5, 19), street vs landmark backgrounds (Table 7), "
            "real photos (Fig. 8, Table 9), position and size bias (Tables 10, 11), the prompt methods (Table 2); "
            "and our label-shift analyses.",
            (
                ("Cells of every table and figure", "marts.culturemix_cells"),
                ("Answers", "marts.culturemix_answers"),
            ),
            (
                "python -m pipeline ingest culturemix --source DIR   # images.csv, or the full sf/mf/sfb/mfb tables",
                "python -m pipeline import-responses --format culturemix ANSWERS.jsonl",
                "# or answer it here: python -m pipeline run assets/culturemix.run.toml",
            ),
            "culturemix",
        ),
        "No CultureMix answers in this warehouse yet: no model answers to CultureMix are public.",
    )

described = "; ".join(
    f"{literal(fmt.model(row.model), 60)} ({literal(row.backend)}, {row.n_answers:,} answers on "
    f"{row.n_images:,} images)"
    for row in sources.itertuples()
)
st.markdown(f"**Answers shown, by model:** {described}.")
if sources["is_test_model"].all():
    st.warning(
        "These answers come only from a small test model with random weights: the figures show that the "
        "analyses work end to end, not what any real model believes. No model answers to CultureMix are "
        "public; import real ones with `import-responses --format culturemix`.",
        icon=":material/science:",
    )

controls = st.columns(2)
prompt = widgets.url_select(
    "Prompt",
    data.query(q.prompts),
    param="prompt",
    format_func=lambda p: PROMPT_NAMES.get(p, p),
    what="prompt",
    container=controls[0],
)
part = widgets.url_radio("Show", PARTS, param="part", container=controls[1])
if part == "tables":
    tables.render(prompt, sources)
    st.subheader("The paper's tables and figures, ours beside the printed numbers")
    paper_tables.show("culturemix", key="culturemix_paper_tables")
else:
    analysis.render(prompt)
