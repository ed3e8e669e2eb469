"""Fine-tuning: one `python -m pipeline finetune` run at a time — what it trained on, with which settings
(CultureMix §6.1 SFT, ZNO-Vision §4 PaliGemma, or the project's plain recipe), its training loss, and the
base model against each tuned model on the run's test items only (marts.finetune_*). Both models are
evaluated like any other (`generate`, then `score`); a cell with no answers stays empty and says so.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import data, empty_study, fmt, vega, widgets
from app.safe import code, literal
from warehouse.queries import finetune as queries

COMMAND = (
    "python -m pipeline finetune --model BASE --task culturemix.sf,culturemix.mf,culturemix.sfb,culturemix.mfb "
    "--lang en --recipe culturemix_sft --out DIR"
)


def loss_chart(losses: pd.DataFrame) -> dict:
    """The training loss at every logged optimizer step."""
    return {
        "data": {"values": vega.records(losses)},
        "height": 260,
        "mark": {"type": "line", "point": True},
        "encoding": {
            "x": {"field": "step", "type": "quantitative", "title": "optimizer step"},
            "y": {"field": "loss", "type": "quantitative", "title": "training loss", "scale": {"zero": False}},
            "tooltip": [{"field": "step"}, {"field": "epoch", "format": ".2f"}, {"field": "loss", "format": ".4f"}],
        },
    }


def run_label(runs: pd.DataFrame):
    labels = {r.finetune_id: f"{r.recipe} · {r.base_model} · {r.started_at:%Y-%m-%d %H:%M}" for r in runs.itertuples()}
    return labels.get


st.title("Fine-tuning")
st.markdown(
    "A model **fine-tuned** on a task's items, then asked the held-out **test items** like any other model. "
    "Recipes: **CultureMix SFT** (§6.1: SF images split 7:3 with countries balanced, MF/SFB/MFB following their "
    "SF image, a third of each food's instances, each food in the order SF → MF → SFB → MFB) and **ZNO-Vision's "
    "PaliGemma** settings (§4: AdamW, learning rate 2e-5, batch 4 with 4-step accumulation, 1/2/4 epochs)."
)
runs = data.query(queries.runs)
if runs.empty:
    empty_study.show(
        empty_study.EmptyStudy(
            "One fine-tuning run at a time: its data and settings, its training loss, and the base model against "
            "each tuned model on the run's held-out test items (CultureMix §6.1, ZNO-Vision §4).",
            (
                ("Runs", "marts.finetune_runs"),
                ("Loss", "marts.finetune_losses"),
                ("Base against tuned", "marts.finetune_comparison"),
            ),
            (
                COMMAND,
                "python -m pipeline generate --task culturemix.sf --lang en --backend transformers --model BASE",
                "python -m pipeline generate --task culturemix.sf --lang en --backend transformers --model DIR/epoch-1",
                "python -m pipeline score",
            ),
        ),
        "No fine-tuning run in this warehouse yet.",
    )

finetune_id = widgets.url_select(
    "Fine-tuning run", runs["finetune_id"].tolist()[::-1], param="finetune_run", format_func=run_label(runs)
)
run = runs[runs["finetune_id"] == finetune_id].iloc[0]
models = data.query(queries.models, finetune_id)
tuned = ", ".join(f"epoch {int(m.epoch)} {code(m.model_path, limit=100)}" for m in models.itertuples())
st.markdown(
    f"Base model {code(run['base_model'], limit=100)}; tuned models: {tuned or 'none saved yet'}. "
    f"Recipe **{literal(run['recipe'])}** ({literal(run['source'])}), {literal(run['method'])} fine-tuning, "
    f"status {literal(run['status'])}."
)
if run["base_tiny_random"]:
    st.warning(
        "The base model is a tiny random test model: the losses and scores below check the pipeline, not any "
        "real model.",
        icon=":material/science:",
    )
settings = pd.DataFrame(
    [
        {
            "tasks": ", ".join(run["tasks"]),
            "lang": run["lang"],
            "split": run["split_rule"],
            "train": run["n_train"],
            "test": run["n_test"],
            "optimizer": run["optimizer"],
            "learning_rate": run["learning_rate"],
            "batch_size": run["batch_size"],
            "gradient_accumulation": run["gradient_accumulation"],
            "epochs": ", ".join(str(e) for e in run["epochs"]),
            "train_steps": run["train_steps"],
            "resumed_from": run["resumed_from"],
        }
    ]
)
fmt.dataframe(settings)

st.subheader("Training loss")
losses = data.query(queries.losses, finetune_id)
if losses.empty:
    st.info("No loss logged yet: the run has not finished.", icon=":material/info:")
else:
    vega.draw(loss_chart(losses), key="finetune_loss")
    st.caption(f"{len(losses):,} logged steps; first {losses['loss'].iloc[0]:.4f}, last {losses['loss'].iloc[-1]:.4f}.")

st.subheader("Before and after, on the test items")
comparison = data.query(queries.comparison, finetune_id)
if comparison.empty:
    st.info(
        "Neither the base model nor a tuned model has scored answers on this run's test items yet. Ask the base "
        "model and each tuned folder named above with `python -m pipeline generate --backend transformers --model "
        "PATH …`, then `python -m pipeline score`.",
        icon=":material/info:",
    )
else:
    missing = comparison[comparison["n_after"] == 0]["tuned_model"].unique()
    for path in missing:
        st.caption(f"{literal(path)} has no scored answer on the test items yet: its cells stay empty.")
    fmt.dataframe(
        comparison.drop(columns=["tuned_model"]),
        {c: st.column_config.NumberColumn(fmt.header(c), format=f"%.{fmt.SCORE_DIGITS}f")
         for c in ("before", "after", "before_paired", "after_paired", "change")},
    )  # fmt: skip
    st.caption(
        "before / after: mean over every scored answer of the base / tuned model on the test items; the paired "
        "columns and change use only the items, languages and prompt variants both models answered (n_pairs)."
    )
