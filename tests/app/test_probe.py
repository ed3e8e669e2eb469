"""The Live probe page: a configured model answers a typed dish, streamed, highlighted, mapped and
recorded in the probe store, never in the published warehouse. Real tiny models, real HTTP servers
on 127.0.0.1, the real demo warehouse."""

from __future__ import annotations

import hashlib
import io
import re
import socket
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest

from app import probe, widgets
from pipeline.answers.probe_queue import shared_service
from pipeline.backends import create_backend
from pipeline.extract.countries import extract_countries
from pipeline.stores import probes as probe_store
from pipeline.tasks import get_task
from tests.helpers import REPO, query, shown
from tests.local_server import backend_responder, serve
from warehouse.queries import probe as probe_queries

MAIN = REPO / "app" / "main.py"
PROBE_PAGE = "views/probe.py"  # relative to app/main.py
TIMEOUT = 120  # the first run imports torch and transformers and loads the model


def png(size: tuple[int, int] = (8, 8), fmt: str = "PNG") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(buffer, format=fmt)
    return buffer.getvalue()


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def texts(elements) -> list[str]:
    return [shown(str(element.value)) for element in elements]


# --- pure helpers ----------------------------------------------------------------------------------


def test_dish_names_are_checked():
    assert probe.check_dish("  Борщ   украинский ", required=True) == "Борщ украинский"
    assert probe.check_dish("", required=False) is None
    with pytest.raises(probe.ProbeInputError, match="Type a dish name"):
        probe.check_dish("   ", required=True)
    assert probe.check_dish("б" * probe.MAX_DISH_CHARS, required=True)
    with pytest.raises(probe.ProbeInputError, match="at most 200"):
        probe.check_dish("б" * (probe.MAX_DISH_CHARS + 1), required=True)


def test_photos_are_checked_by_decoding_not_by_name():
    checked = probe.check_image(png())
    assert checked.suffix == ".png" and checked.sha256 == hashlib.sha256(png()).hexdigest()
    assert probe.check_image(png(fmt="JPEG")).suffix == ".jpg"
    assert probe.check_image(png(fmt="WEBP")).suffix == ".webp"
    with pytest.raises(probe.ProbeInputError, match="not a readable"):
        probe.check_image(b"\x89PNG\r\n\x1a\n but not really a png")
    with pytest.raises(probe.ProbeInputError, match="GIF"):
        probe.check_image(png(fmt="GIF"))
    with pytest.raises(probe.ProbeInputError, match="at most 5 MB"):
        probe.check_image(png() + b"\0" * probe.MAX_IMAGE_BYTES)


def test_prompts_are_variant_1_of_the_origin_tasks():
    assert probe.prompt_text("ru", "Борщ") == get_task("borsch.origin_qa").templates("ru")["1"].format(dish="Борщ")
    assert probe.prompt_text("uk", None, has_image=True) == get_task("borsch.origin_vqa").templates("uk")["1"]
    assert "страва Борщ на фотографіях" in probe.prompt_text("uk", "Борщ", has_image=True)  # the paper's wording
    assert probe.prompt_text("en", "Paella") == (
        "Which country does the dish “Paella” come from? Answer with the name of the country or countries."
    )
    assert "photos" in probe.prompt_text("en", None, has_image=True)


def test_the_shipped_config_offers_the_embedded_real_model_and_documents_more():
    (default,) = probe.load_config(probe.DEFAULT_CONFIG).models
    assert (default.name, default.backend, default.model) == ("smollm2", "llamacpp", "embedded:smollm2")
    assert "135 million parameters" in default.about and "very small" in default.about
    text = probe.DEFAULT_CONFIG.read_text(encoding="utf-8")
    setting = re.compile(r"# (\[models\.|[a-z_]+ = )")
    uncommented = "\n".join(line[2:] if setting.match(line) else line for line in text.splitlines())
    config = probe.parse_config(uncommented, probe.DEFAULT_CONFIG)
    assert config.problems == ()
    embedded, local, server = config.models
    assert embedded == default
    assert (local.name, local.backend, local.model) == ("tiny-local", "transformers", "/path/to/model")
    assert (server.name, server.backend, server.model) == ("vllm-server", "openai", "Qwen2-VL-7B")
    assert dict(server.settings)["base_url"] == "http://127.0.0.1:8000/v1"
    assert dict(server.settings)["api_key_env"] == "OPENAI_API_KEY"
    assert local.about is None  # only embedded models (or a `note`) carry a description


def test_bad_config_entries_are_reported_not_raised(tmp_path: Path):
    config = probe.parse_config(
        '[models.a]\nbackend = "nope"\nmodel = "x"\n[models.b]\nbackend = "openai"\n'
        '[models.c]\nbackend = "openai"\nmodel = "m"\nmax_tokens = 64\ntimeout = 5\n',
        tmp_path / "p.toml",
    )
    assert [entry.name for entry in config.models] == ["c"]
    assert config.models[0].max_tokens == 64 and config.models[0].settings == (("timeout", 5),)
    assert len(config.problems) == 2 and "backend must be one of" in config.problems[0]
    assert "not valid TOML" in probe.parse_config("[models", tmp_path / "p.toml").problems[0]
    assert probe.load_config(tmp_path / "missing.toml").models == ()


def test_highlight_marks_named_countries_and_escapes_the_answer():
    text = "<b>Не Россия</b>, а Украина & Польша"
    spans = extract_countries(text, "ru").spans
    out = widgets.highlight(text, spans, gold={"UA"}, palette=widgets.PROBE_PALETTE)
    assert "<b>" not in out and "&lt;b&gt;" in out and "&amp;" in out
    assert f'style="{widgets.PROBE_PALETTE.gold}" title="UA">Украина</mark>' in out
    assert f'style="{widgets.PROBE_PALETTE.country}" title="PL">Польша</mark>' in out
    assert 'title="negated: RU">Россия</mark>' in out


def test_map_colours_gold_named_and_both():
    colours = probe.map_colours(gold=["UA", "RU"], named=["UA", "PL"])
    assert colours == {"UA": probe.BOTH_RGBA, "RU": probe.GOLD_RGBA, "PL": probe.NAMED_RGBA}


def test_fuzzy_match_prefers_the_chosen_language_and_scores():
    names = pd.DataFrame(
        {
            "dish_key": ["d:ru:1", "d:uk:1", "d:en:2"],
            "lang": ["ru", "uk", "en"],
            "name": ["Борщ", "Борщ", "Paella valenciana"],
        }
    )
    assert probe.match_dish("борщ", names, "uk") == probe.Match("d:uk:1", "Борщ", 100.0)
    assert probe.match_dish("Paella", names, "en").dish_key == "d:en:2"
    assert not probe.match_dish("Sushi", names, "en").found
    assert probe.match_dish("Sushi", names.iloc[:0], "en") is None


# --- the page ----------------------------------------------------------------------------------------


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "probes" / "probes.duckdb"
    monkeypatch.setenv(probe_store.PROBES_ENV, str(path))
    return path


@pytest.fixture
def configure(tmp_path: Path, real_warehouse: Path, store: Path, monkeypatch: pytest.MonkeyPatch):
    """Writes a probe config with the given TOML and points the app at it and the real warehouse."""
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(real_warehouse))

    def write(toml: str) -> Path:
        path = tmp_path / "probe.toml"
        path.write_text(toml, encoding="utf-8")
        monkeypatch.setenv(probe.CONFIG_ENV, str(path))
        return path

    return write


def open_page() -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=TIMEOUT).run()
    at.switch_page(PROBE_PAGE).run()
    assert not at.exception
    return at


def ask(at: AppTest, dish: str, lang: str = "ru", model: str | None = None) -> AppTest:
    at.text_input(key="probe_dish").input(dish)
    at.radio(key="probe_lang").set_value(lang)
    if model is not None:
        at.selectbox(key="probe_model").set_value(model)
    at.button(key="probe_run").click().run()
    assert not at.exception
    return at


def answer_html(at: AppTest) -> list[str]:
    return [str(element.value) for element in at.get("html") if "border-left" in str(element.value)]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_tiny_local_model_answers_a_typed_dish(configure, tiny_text_model: Path, store: Path, real_warehouse: Path):
    configure(f'[models.tiny]\nbackend = "transformers"\nmodel = "{tiny_text_model}"\nmax_tokens = 24\n')
    published = sha256(real_warehouse)
    at = ask(open_page(), "Борщ", "ru", "tiny")

    assert not at.error, texts(at.error)
    assert len(answer_html(at)) == 1  # the streamed text, replaced by its highlighted form
    matched = [text for text in texts(at.markdown) if text.startswith("Matched dataset dish")]
    assert matched and "borsch:" in matched[0] and "score **100**" in matched[0]
    assert any("Из какой страны или стран происходит блюдо Борщ?" in text for text in texts(at.caption))

    rows = probe_store.recent(path=store)
    assert len(rows) == 1
    row = rows.iloc[0]
    assert (row["model"], row["backend"], row["lang"], row["dish_text"]) == ("tiny", "transformers", "ru", "Борщ")
    assert row["matched_dish_key"].startswith("borsch:") and row["match_score"] == 100.0
    assert row["status"] in ("ok", "no_country", "refusal") and row["answer"] and pd.isna(row["error"])
    assert sha256(real_warehouse) == published  # the published warehouse is never written

    at.radio(key="probe_lang").set_value("uk").run()  # any rerun keeps showing the last answer
    assert not at.exception and len(answer_html(at)) == 1
    assert len(probe_store.recent(path=store)) == 1
    assert any("Recent probes" in text for text in texts(at.subheader))


def test_a_dead_server_gives_a_clear_message(configure, store: Path):
    configure(f'[models.dead]\nbackend = "openai"\nmodel = "m"\nbase_url = "http://127.0.0.1:{closed_port()}/v1"\n')
    at = ask(open_page(), "Борщ")

    errors = texts(at.error)
    assert len(errors) == 1 and "The model server is not reachable (dead)" in errors[0]
    assert "cannot reach the model server" in errors[0]
    assert not answer_html(at)
    assert probe_store.recent(path=store)["status"].tolist() == ["error"]


def test_input_limits_are_explained(configure, tiny_text_model: Path, store: Path):
    configure(f'[models.tiny]\nbackend = "transformers"\nmodel = "{tiny_text_model}"\n')
    at = ask(open_page(), "Борщ" * 60)
    assert any("240 characters long; at most 200" in text for text in texts(at.warning))
    assert not answer_html(at) and not at.error

    at = ask(at, "   ")
    assert any("Type a dish name" in text for text in texts(at.warning))

    at.file_uploader(key="probe_image").set_value(("dish.png", b"not an image at all", "image/png"))
    at = ask(at, "Борщ")
    assert any("not a readable PNG, JPEG or WebP" in text for text in texts(at.warning))

    at.file_uploader(key="probe_image").set_value(("dish.png", png(), "image/png"))
    at = ask(at, "Борщ")  # a real photo, but the tiny text model cannot see
    assert any("text-only model" in text for text in texts(at.error))
    assert probe_store.recent(path=store)["status"].tolist() == ["error"]  # refused input is not a probe


def test_no_configured_model_shows_how_to_configure_one(configure, store: Path):
    configure("# nothing here yet\n")
    at = open_page()
    infos = texts(at.info)
    assert any("No model is configured" in text and "tiny-model --kind text" in text for text in infos)
    assert not at.text_input and not at.button
    assert any("No probes yet" in text for text in texts(at.caption))


def best_answered_dish(warehouse: Path) -> tuple[str, str]:
    """(dish_key, English name) of a dish with stored answers whose name no other dish has."""
    ((key, name),) = query(
        warehouse,
        """
        SELECT d.dish_key, d.display_name FROM marts.dishes d
        WHERE d.dish_key IN (SELECT dish_key FROM marts.origin_scores)
          AND (SELECT count(DISTINCT n.dish_key) FROM marts.dish_names n
               WHERE lower(n.display_name) = lower(d.display_name)) <= 1
        ORDER BY (SELECT count(*) FROM marts.origin_scores s WHERE s.dish_key = d.dish_key) DESC, d.dish_key
        LIMIT 1
        """,
    )
    return key, name


def test_a_served_model_answers_through_the_openai_backend(
    configure, tiny_text_model: Path, store: Path, real_warehouse: Path
):
    backend = create_backend("transformers", str(tiny_text_model))
    respond, respond_stream = backend_responder(backend)
    dish_key, name = best_answered_dish(real_warehouse)
    with serve(respond, respond_stream=respond_stream, model_name="tiny-served") as url:
        configure(f'[models.served]\nbackend = "openai"\nmodel = "tiny-served"\nbase_url = "{url}"\nmax_tokens = 16\n')
        at = ask(open_page(), name, "en")
    backend.close()

    assert not at.error, texts(at.error)
    assert len(answer_html(at)) == 1
    assert any(f"`{dish_key}`" in text for text in texts(at.markdown))
    stored = at.dataframe[0].value  # the stored batch answers about the matched dish
    assert 0 < len(stored) <= probe_queries.STORED_ANSWER_LIMIT
    assert {"model", "lang", "response", "predicted"} <= set(stored.columns)
    row = probe_store.recent(path=store).iloc[0]
    assert (row["backend"], row["matched_dish_key"], row["lang"]) == ("openai", dish_key, "en")
    assert row["answer"]


def test_a_slow_server_times_out_and_an_empty_answer_is_named(configure, store: Path):
    with serve(lambda messages, max_tokens: "Ukraine", model_name="slow", delay_s=3) as url:
        configure(f'[models.slow]\nbackend = "openai"\nmodel = "slow"\nbase_url = "{url}"\ntimeout = 0.5\n')
        at = ask(open_page(), "Борщ")
    assert any("did not answer in time" in text and "timed out" in text for text in texts(at.error))

    with serve(lambda messages, max_tokens: "", model_name="mute") as url:
        configure(f'[models.mute]\nbackend = "openai"\nmodel = "mute"\nbase_url = "{url}"\n')
        at = ask(open_page(), "Борщ")
    assert not at.error
    assert any("returned an empty answer" in text for text in texts(at.warning))
    assert probe_store.recent(path=store)["status"].tolist() == ["empty", "timeout"]


# --- the shared queue ----------------------------------------------------------------------------------


def test_probe_limits_come_from_the_config_and_bad_ones_are_reported(tmp_path: Path):
    path = tmp_path / "p.toml"
    config = probe.parse_config("[limits]\nasks_per_window = 2\nmax_wait_s = 30\nmax_new_tokens = 64\n", path)
    assert config.problems == ()
    assert (config.limits.asks_per_window, config.limits.max_wait_s, config.limits.max_new_tokens) == (2, 30.0, 64)
    assert config.limits.max_question_chars == probe.MAX_DISH_CHARS  # the rest keep their defaults
    bad = probe.parse_config('[limits]\nasks_per_window = "many"\nqueue = 3\nmax_waiting = -1\n', path)
    assert bad.limits == probe.ProbeLimits()
    assert any("`limits.asks_per_window` must be a number" in problem for problem in bad.problems)
    assert any("`limits.queue` is not a limit" in problem for problem in bad.problems)
    assert any("max_waiting must be >= 0" in problem for problem in bad.problems)


def test_a_question_waits_its_turn_in_the_shared_queue_and_is_told_its_place(
    configure, tiny_text_model: Path, store: Path
):
    """Another session's question holds the server's one model; this page's question joins the queue as
    number 2, then gets its answer once the other is done, and says how long it waited."""
    configure(f'[models.tiny]\nbackend = "transformers"\nmodel = "{tiny_text_model}"\nmax_tokens = 8\n')
    at = open_page()
    queue = shared_service().queue
    holding = threading.Event()

    def another_session() -> None:
        with queue.turn("another-session"):
            holding.set()
            deadline = time.monotonic() + 60
            while queue.waiting() < 2 and time.monotonic() < deadline:  # until the page's question queues
                time.sleep(0.05)
            time.sleep(0.5)

    other = threading.Thread(target=another_session)
    other.start()
    assert holding.wait(10)
    at = ask(at, "Борщ", "ru", "tiny")
    other.join(60)

    assert not at.error, texts(at.error)
    assert len(answer_html(at)) == 1
    waited = [text for text in texts(at.caption) if "in the queue" in text]
    assert len(waited) == 1 and "number 2 in the queue" in waited[0], texts(at.caption)
    seconds = float(re.search(r"waited ([\d.]+) s", waited[0]).group(1))
    assert seconds >= 0.4
    assert len(probe_store.recent(path=store)) == 1
    assert queue.waiting() == 0


def test_a_session_asking_too_often_is_told_when_to_ask_again(configure, tiny_text_model: Path, store: Path):
    configure(
        f'[models.tiny]\nbackend = "transformers"\nmodel = "{tiny_text_model}"\nmax_tokens = 8\n'
        "[limits]\nasks_per_window = 1\nwindow_s = 600\n"
    )
    at = ask(open_page(), "Борщ", "ru", "tiny")
    assert not at.warning and len(answer_html(at)) == 1
    at = ask(at, "Вареники", "ru", "tiny")
    refusals = [text for text in texts(at.warning) if "You have asked 1 question in the last 600 s" in text]
    assert len(refusals) == 1 and "try again in" in refusals[0]
    assert not answer_html(at) and not at.error
    assert len(probe_store.recent(path=store)) == 1  # a refused question is not a probe
