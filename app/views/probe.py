"""Live probe: ask a configured model where a dish comes from, and watch the answer stream in.

Type a dish name (or upload a photo), pick the prompt language and the model; the prompt is variant 1
of the benchmark's origin task in that language. The countries the answer names are highlighted and
drawn on a map beside the gold origins of the closest dataset dish (fuzzy match on its names), with
the stored batch answers about that dish below. Models come from the probe config (see
app/probe.py and assets/probe.toml). Each probe is recorded in the probe store
(pipeline/stores/probes.py), never in the published warehouse.

The page body runs only when Streamlit runs this file as a page (`__name__ == "__main__"`).
"""

from __future__ import annotations

import tempfile
import uuid
from dataclasses import asdict
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import duckdb
import pandas as pd
import streamlit as st

from app import data, fmt, maps, settings, ui, widgets
from app import probe as helpers
from app.safe import code, literal
from pipeline.answers.probe_queue import ProbeRefused, shared_service
from pipeline.extract.countries import extract_countries
from pipeline.stores import StoreError
from pipeline.stores import probes as probe_store
from warehouse.queries import probe as probe_queries

RESULT_KEY = "probe_result"
DISH_KEY = "probe_dish"
IMAGE_KEY = "probe_image"
LANG_KEY = "probe_lang"
MODEL_KEY = "probe_model"
RUN_KEY = "probe_run"
USER_KEY = "probe_user"
RECENT_LIMIT = 20

EMPTY_STATE = """\
**No model is configured for the live probe.** Models are declared in {path}
(or the file named by the `{env}` environment variable), one table per model:

```toml
[models.tiny-local]           # an in-process Hugging Face model folder
backend = "transformers"
model = "/path/to/model"

[models.vllm-server]          # any OpenAI-compatible server, e.g. `vllm serve`
backend = "openai"
model = "Qwen2-VL-7B"
base_url = "http://127.0.0.1:8000/v1"
api_key_env = "OPENAI_API_KEY"
```

For a quick local test, build a tiny random model (it answers with random text) and point
`model` at its folder: `python -m pipeline tiny-model --kind text --out DIR`.
"""


def session_user() -> str:
    """Who asks, for the per-user limits: this browser session, by an id kept in its session state; in public mode
    the client (app/settings.py: the signed-in account or the client's address, which a reload does not renew)."""
    if settings.public():
        return settings.client()
    return st.session_state.setdefault(USER_KEY, uuid.uuid4().hex)


# --- inputs ------------------------------------------------------------------------------------------


def inputs(config: helpers.ProbeConfig) -> tuple[str, Any, str, helpers.ModelEntry, bool]:
    """The widgets: dish name, photo, language, model and the button."""
    left, right = st.columns([3, 2])
    with left:
        dish = st.text_input(
            "Dish name",
            key=DISH_KEY,
            placeholder="Борщ, Вареники, Paella…",
            help=f"As you would type it; at most {helpers.MAX_DISH_CHARS} characters.",
        )
        cols = st.columns(2)
        lang = cols[0].radio(
            "Prompt language",
            list(helpers.LANGS),
            format_func=lambda code: f"{helpers.LANGS[code]} ({code})",
            key=LANG_KEY,
            horizontal=True,
        )
        names = [entry.name for entry in config.models]
        entries = {entry.name: entry for entry in config.models}
        name = cols[1].selectbox("Model", names, key=MODEL_KEY, format_func=lambda n: entries[n].label)
    with right:
        upload = st.file_uploader(
            "Photo of the dish (optional)",
            type=helpers.UPLOAD_TYPES,
            accept_multiple_files=False,
            key=IMAGE_KEY,
            max_upload_size=helpers.MAX_IMAGE_BYTES // 1024 // 1024,  # the browser refuses larger files at once
            help=f"One PNG, JPEG or WebP image, at most {helpers.MAX_IMAGE_BYTES // 1024 // 1024} MB.",
        )
    if entries[name].about:
        st.caption(literal(entries[name].about))
    clicked = st.button("Ask the model", key=RUN_KEY, type="primary", icon=":material/send:")
    return dish, upload, lang, entries[name], clicked


# --- one probe -----------------------------------------------------------------------------------------


def run_probe(
    dish_raw: str, upload: Any, lang: str, entry: helpers.ModelEntry, limits: helpers.ProbeLimits
) -> dict | None:
    """Validate, match, wait for the shared model, stream the answer, record the probe; the result as
    plain values (None when the input or the queue refused the question)."""
    try:
        image = helpers.check_image(upload.getvalue()) if upload is not None else None
        dish = helpers.check_dish(dish_raw, required=image is None)
        prompt = helpers.prompt_text(lang, dish, has_image=image is not None)
    except helpers.ProbeInputError as exc:
        st.warning(literal(exc), icon=":material/edit:")
        return None

    result = helpers.ProbeResult(
        model=entry.name,
        backend=entry.backend,
        lang=lang,
        prompt=prompt,
        dish_text=dish,
        image_sha256=image.sha256 if image else None,
    )
    if dish:
        match = helpers.match_dish(dish, data.query(probe_queries.dish_names), lang)
        if match is not None:
            result.match_key, result.match_name, result.match_score = match.dish_key, match.matched_name, match.score
    show_match(result)

    st.subheader("Answer")
    st.caption(f"Prompt: {literal(prompt)}")
    box = st.empty()
    with tempfile.TemporaryDirectory(prefix="dish-atlas-probe-") as tmp:
        images = ()
        if image is not None:
            path = Path(tmp) / f"upload{image.suffix}"
            path.write_bytes(image.data)
            images = (path,)
        limit = helpers.max_tokens(entry, bool(dish), image is not None)
        try:
            answer(result, entry, images, limit, limits, box)
        except (ProbeRefused, helpers.ProbeInputError) as exc:
            box.empty()
            st.warning(literal(exc), icon=":material/hourglass_empty:")
            return None

    if settings.public():  # a shared dashboard writes no file: the probe is shown, not recorded
        show_outcome(result, box)
        return asdict(result)
    try:
        probe_store.record(
            model=entry.name,
            backend=entry.backend,
            lang=lang,
            status=result.status,
            dish_text=dish,
            matched_dish_key=result.match_key if result.matched else None,
            match_score=result.match_score,
            image_sha256=result.image_sha256,
            answer=result.answer,
            countries=result.countries,
            latency_ms=result.latency_ms,
            error=result.error,
        )
    except (StoreError, duckdb.Error, OSError) as exc:
        st.warning(f"The probe was not saved to the probe store: {literal(exc)}", icon=":material/save:")
    show_outcome(result, box)
    return asdict(result)


def answer(
    result: helpers.ProbeResult, entry: helpers.ModelEntry, images: tuple[Path, ...], limit: int,
    limits: helpers.ProbeLimits, box,
) -> None:  # fmt: skip
    """Wait in the server's one queue (its position shown in `box`), then `pipeline.answers.probe.ask` (the
    command's own call) on the shared model, streaming into `box`; fills in `result`. ProbeRefused
    when the queue turns the question away."""
    pieces: list[str] = []

    def on_position(position: int) -> None:
        if position > 1:
            ahead = "1 question is" if position == 2 else f"{position - 1} questions are"
            box.info(
                f"You are number {position} in the queue: {ahead} ahead of yours. One model answers everyone "
                "using this dashboard, one question at a time.",
                icon=":material/hourglass_top:",
            )
        else:
            box.caption(f"{literal(entry.name)} is answering…")

    def on_piece(piece: str) -> None:
        pieces.append(piece)
        box.text("".join(pieces))  # plain text while it streams; highlighted once complete

    try:
        queued = shared_service(limits).ask(
            session_user(), result.dish_text, result.lang, backend=entry.backend, model=entry.model,
            settings=entry.settings, max_tokens=limit, images=images, on_position=on_position, on_piece=on_piece,
        )  # fmt: skip
    except (ProbeRefused, helpers.ProbeInputError):
        raise
    except Exception as exc:  # a backend bug must not take the page down
        result.stage, result.status = "answer", "error"
        result.error = f"{type(exc).__name__}: {exc}"
        return
    got = queued.answer
    result.queue_position, result.waited_s = queued.ticket.position_at_join, round(queued.ticket.waited_s, 2)
    result.answer = got.text or None
    result.latency_ms = got.latency_ms
    result.error, result.stage = got.error, got.stage
    extraction = extract_countries(result.answer, result.lang)
    result.countries = list(extraction.countries)
    result.status = helpers.answer_status(result.answer, result.error, extraction.status)


# --- showing a result ----------------------------------------------------------------------------------


def show_match(result: helpers.ProbeResult) -> None:
    if not result.dish_text:
        st.caption("No dish name typed, so the answer is not compared with a dataset dish.")
        return
    if result.match_key is None or not result.matched:
        best = f" (closest: “{literal(result.match_name)}”, score {result.match_score:.0f})" if result.match_key else ""
        st.info(
            f"No matching dish in the dataset for “{literal(result.dish_text)}”{best}.", icon=":material/search_off:"
        )
        return
    info = data.query(probe_queries.dish_info, result.match_key)
    if info.empty:
        st.info(f"No matching dish in the dataset ({code(result.match_key)} is not published).")
        return
    row = info.iloc[0]
    link = "/dish?" + urlencode({"dataset": row["dataset"], "dish": result.match_key})
    st.markdown(
        f"Matched dataset dish: **{literal(row['display_name'])}** ({code(result.match_key)}, "
        f"{literal(row['dataset'])} {literal(row['lang'])} list) via the name “{literal(result.match_name)}”, "
        f"match score **{result.match_score:.0f}**/100 · [open the dish]({link})"
    )


def show_outcome(result: helpers.ProbeResult, box) -> None:
    """The highlighted answer (replacing the streamed text) and what went wrong, if anything."""
    gold = gold_origins(result)
    if result.queue_position is not None and result.queue_position > 1:
        st.caption(
            f"Your question was number {result.queue_position} in the queue and waited {result.waited_s:.1f} s "
            "for the model (shared by everyone using this dashboard)."
        )
    if result.answer:
        box.html(
            '<div style="white-space:pre-wrap;padding:0.5rem 0.75rem;border-left:3px solid #999;'
            f'font-size:1rem">{widgets.highlight(result.answer, spans_of(result), gold, widgets.PROBE_PALETTE)}</div>'
        )
    else:
        box.empty()
    if result.error:
        where = {"load": "Could not load the model", "check": "The model server is not reachable"}
        if result.status == "timeout":
            headline = "The model server did not answer in time"
        else:
            headline = where.get(result.stage, "The model failed while answering")
        st.error(f"{headline} ({literal(result.model)}): {literal(result.error)}", icon=":material/error:")
        if result.stage == "check":
            st.caption("Start the server (or fix `base_url` in the probe config) and try again.")
    elif result.status == "empty":
        st.warning(f"{literal(result.model)} returned an empty answer.", icon=":material/chat_error:")
    elif result.answer:
        took = f" in {result.latency_ms / 1000:.1f} s" if result.latency_ms is not None else ""
        named = ", ".join(result.countries) or "no country"
        st.caption(f"Status {code(result.status)}{took}; countries named: {literal(named)}.")


def spans_of(result: helpers.ProbeResult):
    return extract_countries(result.answer, result.lang).spans if result.answer else ()


def gold_origins(result: helpers.ProbeResult) -> list[str]:
    if not result.matched or result.match_key is None:
        return []
    info = data.query(probe_queries.dish_info, result.match_key)
    return [] if info.empty else helpers.split_codes(info["origins"].iloc[0])


def show_context(result: helpers.ProbeResult) -> None:
    """The map (gold origins and the countries named) and the stored batch answers about the dish."""
    gold = gold_origins(result)
    if not gold and not result.countries:
        return
    left, right = st.columns([3, 2])
    with left:
        st.subheader("On the map")
        colours = helpers.map_colours(gold, result.countries)
        maps.origins_map(colours, height=320, width=maps.COLUMN_PX * 3 // 5)  # 3 of 5 columns
        st.caption(
            ":green[■] gold origin of the matched dish · :orange[■] named by the model · "
            ":violet[■] both. " + maps.CRIMEA_NOTE
        )
    with right:
        st.subheader("Stored batch answers")
        if not result.matched or result.match_key is None:
            st.caption("No matching dataset dish, so no stored answers to compare with.")
            return
        stored = data.query(probe_queries.stored_answers, result.match_key, result.lang)
        if stored.empty:
            st.caption("The benchmark runs have no scored answers about this dish.")
            return
        same = helpers.agreement(stored, result.countries)
        st.caption(
            f"{len(stored)} stored answers (at most {probe_queries.STORED_ANSWER_LIMIT}); "
            f"{same} named exactly the countries of this probe."
        )
        fmt.dataframe(stored, height=260)
        ui.downloads(stored, f"probe_{result.match_key}_answers", key="probe_stored")


def show_recent() -> None:
    if settings.public():  # other people's questions are theirs: not listed on a shared dashboard
        return
    st.subheader("Recent probes")
    try:
        recent = probe_store.recent(RECENT_LIMIT)
    except (StoreError, duckdb.Error, OSError) as exc:
        st.caption(f"The probe store cannot be read: {literal(exc)}")
        return
    if recent.empty:
        st.caption(f"No probes yet. They are kept in {code(probe_store.default_path())}.")
        return
    recent = recent.assign(
        countries=recent["countries"].map(lambda codes: ",".join(codes) if codes is not None else "")
    )
    shown = recent[["created_at", "model", "lang", "dish_text", "matched_dish_key", "match_score", "status",
                    "countries", "latency_ms", "answer", "error"]]  # fmt: skip
    st.dataframe(
        shown,
        hide_index=True,
        column_config={
            "created_at": st.column_config.DatetimeColumn("when", format="YYYY-MM-DD HH:mm:ss"),
            "match_score": st.column_config.NumberColumn("match", format="%.0f"),
            "latency_ms": st.column_config.NumberColumn("ms", format="%.0f"),
        },
    )
    st.caption(f"Kept in {code(probe_store.default_path())}, apart from the published warehouse.")
    ui.downloads(pd.DataFrame(recent), "probes", key="probe_recent")


def last_result() -> helpers.ProbeResult | None:
    """The previous probe of this session (kept as plain values), so a rerun keeps showing it."""
    stored = st.session_state.get(RESULT_KEY)
    if not stored:
        return None
    try:
        return helpers.ProbeResult(**stored)
    except TypeError:  # kept by an older version of the page
        st.session_state.pop(RESULT_KEY, None)
        return None


def render() -> None:
    st.title("Live probe")
    st.caption(
        "Ask a model where a dish comes from, with the benchmark's own prompt (variant 1), and compare its "
        "answer with the dataset's gold origins and the stored batch answers."
    )
    if not settings.probe_enabled():
        st.info(settings.PROBE_OFF, icon=":material/lock:")
        return
    config = helpers.load_config()
    for problem in config.problems:
        st.warning(literal(problem), icon=":material/settings:")
    if not config.models:
        st.info(EMPTY_STATE.format(path=code(config.path), env=helpers.CONFIG_ENV), icon=":material/science:")
        show_recent()
        return

    dish, upload, lang, entry, clicked = inputs(config)
    if clicked:
        stored = run_probe(dish, upload, lang, entry, config.limits)
        st.session_state[RESULT_KEY] = stored
        if stored is not None:
            show_context(helpers.ProbeResult(**stored))
    elif (result := last_result()) is not None:
        show_match(result)
        st.subheader("Answer")
        st.caption(f"Prompt: {literal(result.prompt)}")
        show_outcome(result, st.empty())
        show_context(result)
    st.divider()
    show_recent()


if __name__ == "__main__":  # run as a page by st.navigation (see the module docstring)
    render()
