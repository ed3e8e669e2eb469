"""A model server that echoes the caller's API key in every path it can: the key appears in no
exception, answer, stored row, log line or command output (one scrub, pipeline/core/scrub.py)."""

from __future__ import annotations

import json
import logging
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import duckdb
import pytest

from pipeline.backends import BackendError, Message, Request
from pipeline.backends.openai_api import OpenAIBackend
from pipeline.core.scrub import scrub
from pipeline.stores import probes as probe_store
from tests.helpers import copy_warehouse, run_cli

KEY = "sk-echoed-9d2f4b7a1c"
KEY_ENV = "DISH_ATLAS_ECHO_KEY"


class EchoServer(ThreadingHTTPServer):
    """Answers every chat request by echoing the Authorization header, in the way `mode` says:
    `status` (400 body), `retry` (503 body, every try), `stream` (an SSE error mid-answer),
    `answer` (a 200 answer whose text holds the header)."""

    mode = "status"


class EchoHandler(BaseHTTPRequestHandler):
    server: EchoServer

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send(200, {"data": [{"id": "echo"}]})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        header = self.headers.get("Authorization", "")
        echoed = f"you sent Authorization: {header} (key {header.removeprefix('Bearer ')})"
        mode = self.server.mode
        if mode == "status":
            return self._send(400, {"error": {"message": echoed}})
        if mode == "retry":
            return self._send(503, {"error": {"message": f"overloaded, retry later; {echoed}"}})
        if mode == "stream" and body.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            first = {"choices": [{"index": 0, "delta": {"content": "It comes from "}}]}
            self.wfile.write(f"data: {json.dumps(first)}\n\n".encode())
            self.wfile.write(f"data: {json.dumps({'error': {'message': echoed}})}\n\n".encode())
            return None
        self._send(200, {"choices": [{"index": 0, "message": {"content": f"Ukraine. {echoed}"}}]})


@contextmanager
def echo_server(mode: str) -> Iterator[EchoServer]:
    server = EchoServer(("127.0.0.1", 0), EchoHandler)
    server.mode = mode
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def url(server: EchoServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


def ask() -> Request:
    return Request("k", (Message("user", "Where is borscht from?"),), 16)


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    return KEY


def test_scrub_removes_the_key_and_any_bearer_token(key: str) -> None:
    assert scrub(f"header Bearer {key} and {key}") == "header Bearer *** and ***"
    assert scrub("authorization: bearer abc.DEF-123_xyz") == "authorization: bearer ***"
    assert scrub("Ukraine") == "Ukraine" and scrub(None) is None


@pytest.mark.parametrize("mode", ["status", "retry", "answer"])
def test_no_key_in_errors_answers_or_logs_of_a_batch(key: str, mode: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # everything the openai client and its HTTP library log, retries included
    with echo_server(mode) as server:
        backend = OpenAIBackend("echo", base_url=url(server), api_key_env=KEY_ENV, max_retries=2)
        (response,) = backend.generate([ask()])
    seen = f"{response.text} {response.error}"
    assert "Authorization" in seen  # the server did echo the header ...
    assert key not in seen  # ... but not the key
    assert caplog.records and key not in caplog.text


@pytest.mark.parametrize("mode", ["status", "stream"])
def test_no_key_in_streaming_errors(key: str, mode: str) -> None:
    with echo_server(mode) as server, pytest.raises(BackendError) as raised:
        list(OpenAIBackend("echo", base_url=url(server), api_key_env=KEY_ENV).stream(ask()))
    assert "Authorization" in str(raised.value) and key not in str(raised.value)


def test_the_probe_store_keeps_no_key(key: str, tmp_path: Path) -> None:
    store = tmp_path / "probes.duckdb"
    probe_store.record(
        model="echo", backend="openai", lang="en", status="error", answer=f"x {key}", error=f"Bearer {key}", path=store
    )
    rows = duckdb.connect(str(store), read_only=True).execute("SELECT * FROM probes").fetchall()
    assert key not in repr(rows) and "***" in repr(rows)


@pytest.fixture(scope="module")
def borsch_files(tmp_path_factory: pytest.TempPathFactory, ingested_template) -> Path:
    """A working database with BORSch ingested once (copied per test)."""
    return copy_warehouse(ingested_template("borsch"), tmp_path_factory.mktemp("borsch") / "w.duckdb")


@pytest.mark.parametrize("mode", ["status", "retry", "answer"])
def test_generate_through_the_cli_prints_and_stores_no_key(
    key: str, mode: str, tmp_path: Path, borsch_files: Path
) -> None:
    warehouse = tmp_path / "w.duckdb"
    for source in borsch_files.parent.glob("w.*duckdb"):
        shutil.copyfile(source, tmp_path / source.name)
    with echo_server(mode) as server:
        result = run_cli(
            warehouse,
            "generate",
            *("--task", "borsch.origin_qa", "--lang", "ru", "--backend", "openai", "--model", "echo", "--limit", "1"),
            *("--setting", f"base_url={url(server)}", "--setting", "max_retries=2"),
            check=False,
        )
    assert "committed 5/5" in result.stderr  # the model was asked five questions
    assert key not in result.stdout + result.stderr
    for path in tmp_path.iterdir():
        if path.suffix == ".duckdb":
            con = duckdb.connect(str(path), read_only=True)
            try:
                tables = con.execute("SELECT schema_name, table_name FROM duckdb_tables()").fetchall()
                texts = [repr(con.execute(f'SELECT * FROM "{s}"."{t}"').fetchall()) for s, t in tables]
            finally:
                con.close()
            assert not any(key in text for text in texts), path
        assert key.encode() not in path.read_bytes(), path
    stored = repr(run_cli(warehouse, "export", "origin-scores", check=False).stdout)
    assert key not in stored
