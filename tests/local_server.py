"""A small OpenAI-compatible HTTP server around a Python callable, on 127.0.0.1.

Tests use it as a real server for the `openai` backend, with fault injection (`faults`: error
statuses or dropped connections for the first requests; `delay_s`: a slow server) and a record of
every request (`LocalServer.log`: path, headers, body). The live probe page can serve a local
model with it:

    python -m tests.local_server --model PATH --port 8000

Serves `GET /v1/models` and `POST /v1/chat/completions` (with `stream: true` as server-sent events).
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from pipeline.backends.base import Message, Request, Response

# A served 'model': the answer text, or a backend Response (its token counts and finish reason are then reported).
Respond = Callable[[list[dict], int], str | Response]
RespondStream = Callable[[list[dict], int], Iterator[str]]
DISCONNECT = "disconnect"  # a fault: close the connection without answering


@dataclass(frozen=True)
class RecordedRequest:
    """What a client sent, as the server saw it (header names lower-cased)."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict | None


def message_text(message: dict) -> str:
    """The text of an OpenAI-format message, whether its content is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return content or ""


def message_image_urls(message: dict) -> list[str]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [
        p["image_url"]["url"]
        for p in content
        if isinstance(p, dict) and p.get("type") == "image_url" and isinstance(p.get("image_url"), dict)
    ]


def decode_data_url(url: str) -> tuple[str, bytes]:
    """(mime, bytes) of a `data:<mime>;base64,...` URL; ValueError for anything else."""
    header, sep, data = url.partition(",")
    if not sep or not header.startswith("data:") or not header.endswith(";base64"):
        raise ValueError(f"not a base64 data URL: {url[:40]!r}")
    try:
        return header[5:-7], base64.b64decode(data, validate=True)
    except binascii.Error as exc:
        raise ValueError(f"bad base64 in data URL: {exc}") from None


def count_words(text: str) -> int:
    """A stand-in token count for `usage` (the served callable has no tokenizer to ask)."""
    return len(text.split())


def split_pieces(text: str) -> Iterator[str]:
    """Text in word-sized pieces that join back to exactly the text (for streaming a finished answer)."""
    start = 0
    for index in range(1, len(text)):
        if text[index].isspace() and not text[index - 1].isspace():
            yield text[start:index]
            start = index
    if text[start:]:
        yield text[start:]


class LocalServer:
    """An OpenAI-compatible server on 127.0.0.1 in a background thread; use as a context manager.

    `faults`: one entry per chat request, in order ("503", 429, "disconnect"); later requests are answered
    normally. `retry_after` is sent with fault statuses. `delay_s` sleeps before every chat answer.
    `api_key`: when set, requests without `Authorization: Bearer <api_key>` get 401."""

    def __init__(
        self,
        respond: Respond,
        *,
        port: int = 0,
        model_name: str = "local",
        faults: Sequence[str | int] = (),
        retry_after: str | None = None,
        delay_s: float = 0.0,
        api_key: str | None = None,
        respond_stream: RespondStream | None = None,
    ) -> None:
        self.respond = respond
        self.respond_stream = respond_stream
        self.model_name = model_name
        self.faults = [str(f) for f in faults]
        self.retry_after = retry_after
        self.delay_s = delay_s
        self.api_key = api_key
        self.log: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._chat_count = 0
        self._httpd = _QuietServer(("127.0.0.1", port), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """The base URL for OpenAI clients (ends in /v1)."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.log if r.path.endswith("/chat/completions")]

    def start(self) -> LocalServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
        self._httpd.server_close()

    def serve_forever(self) -> None:
        """Serves in the calling thread until interrupted (the command-line server)."""
        try:
            self._httpd.serve_forever(poll_interval=0.2)
        except KeyboardInterrupt:
            pass
        finally:
            self._httpd.server_close()

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def record(self, request: RecordedRequest) -> str | None:
        """Logs a request; for a chat request, returns the fault it is to meet (None: answer normally)."""
        with self._lock:
            self.log.append(request)
            if not request.path.endswith("/chat/completions"):
                return None
            index = self._chat_count
            self._chat_count += 1
        return self.faults[index] if index < len(self.faults) else None


@contextmanager
def serve(respond: Respond, port: int = 0, **options) -> Iterator[str]:
    """`with serve(respond) as url:` a running server's base URL; options as for LocalServer."""
    with LocalServer(respond, port=port, **options) as server:
        yield server.url


class _QuietServer(ThreadingHTTPServer):
    """Clients that hang up early (a timeout, a closed stream) are normal here, not errors to print."""

    def handle_error(self, request: object, client_address: object) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _handler_for(server: LocalServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        owner = server

    return Handler


class _Handler(BaseHTTPRequestHandler):
    owner: LocalServer
    protocol_version = "HTTP/1.0"  # one request per connection: streaming needs no chunked encoding
    disable_nagle_algorithm = True  # headers and body go out as separate writes: no 40 ms delayed-ACK stall

    def log_message(self, format: str, *args: object) -> None:  # quiet: tests and the probe page own the output
        pass

    def _send_json(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        self._send_json(status, {"error": {"message": message, "code": status}}, headers)

    def _read_body(self) -> dict | None:
        length = int(self.headers.get("Content-Length") or 0)
        if not length:
            return None
        try:
            body = json.loads(self.rfile.read(length))
        except ValueError:
            return None
        return body if isinstance(body, dict) else None

    def _authorized(self) -> bool:
        if self.owner.api_key is None:
            return True
        return self.headers.get("Authorization") == f"Bearer {self.owner.api_key}"

    def do_GET(self) -> None:
        self.owner.record(RecordedRequest("GET", self.path, _lower(self.headers), None))
        if not self._authorized():
            return self._error(401, "invalid API key")
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            model = {"id": self.owner.model_name, "object": "model", "owned_by": "local", "root": self.owner.model_name}
            return self._send_json(200, {"object": "list", "data": [model]})
        self._error(404, f"no route {self.path}")

    def do_POST(self) -> None:
        body = self._read_body()
        fault = self.owner.record(RecordedRequest("POST", self.path, _lower(self.headers), body))
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            return self._error(404, f"no route {self.path}")
        if self.owner.delay_s:
            time.sleep(self.owner.delay_s)
        if fault == DISCONNECT:
            self.close_connection = True
            self.connection.close()
            return None
        if fault is not None:
            headers = {"Retry-After": self.owner.retry_after} if self.owner.retry_after is not None else None
            return self._error(int(fault), f"injected fault {fault}", headers)
        if not self._authorized():
            return self._error(401, "invalid API key")
        if body is None or not isinstance(body.get("messages"), list):
            return self._error(400, "body must be JSON with a list of messages")
        max_tokens = int(body.get("max_tokens") or 128)
        if body.get("stream"):
            return self._stream(body["messages"], max_tokens)
        try:
            answer = self.owner.respond(body["messages"], max_tokens)
        except Exception as exc:  # the served model failed: tell the client, as a real server would
            return self._error(500, f"{type(exc).__name__}: {exc}")
        prompt = count_words(" ".join(message_text(m) for m in body["messages"]))
        if isinstance(answer, Response):
            text, finish = answer.text or "", answer.finish_reason or "stop"
            tokens_in = answer.tokens_in if answer.tokens_in is not None else prompt
            tokens_out = answer.tokens_out if answer.tokens_out is not None else count_words(text)
        else:
            text, finish, tokens_in, tokens_out = answer, "stop", prompt, count_words(answer)
        self._send_json(
            200,
            {
                "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": self.owner.model_name,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
                "usage": {
                    "prompt_tokens": tokens_in,
                    "completion_tokens": tokens_out,
                    "total_tokens": tokens_in + tokens_out,
                },
            },
        )

    def _stream(self, messages: list[dict], max_tokens: int) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        ident = f"chatcmpl-{uuid.uuid4().hex[:12]}"

        def event(delta: dict, finish: str | None) -> bytes:
            chunk = {
                "id": ident,
                "object": "chat.completion.chunk",
                "model": self.owner.model_name,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            return f"data: {json.dumps(chunk)}\n\n".encode()

        self.wfile.write(event({"role": "assistant"}, None))
        try:
            if self.owner.respond_stream is not None:
                pieces = self.owner.respond_stream(messages, max_tokens)
            else:
                answer = self.owner.respond(messages, max_tokens)
                pieces = split_pieces((answer.text or "") if isinstance(answer, Response) else answer)
            for piece in pieces:
                self.wfile.write(event({"content": piece}, None))
                self.wfile.flush()
        except Exception as exc:  # headers are sent: report the failure in the stream, as OpenAI does
            error = {"error": {"message": f"{type(exc).__name__}: {exc}", "code": 500}}
            self.wfile.write(f"data: {json.dumps(error)}\n\n".encode())
            self.wfile.flush()
            return
        self.wfile.write(event({}, "stop"))
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def _lower(headers: object) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in headers.items()}  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------------
# Serving a local model (the probe page's local server).


def messages_from_openai(messages: list[dict], image_dir: Path) -> tuple[Message, ...]:
    """OpenAI-format messages as backend Messages; data-URL images are written to files in `image_dir`."""
    suffixes = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}
    out = []
    for message in messages:
        images = []
        for url in message_image_urls(message):
            mime, data = decode_data_url(url)
            path = image_dir / f"{uuid.uuid4().hex}{suffixes.get(mime, '.img')}"
            path.write_bytes(data)
            images.append(path)
        out.append(Message(str(message.get("role", "user")), message_text(message), tuple(images)))
    return tuple(out)


def backend_responder(backend: object) -> tuple[Respond, RespondStream]:
    """`respond` and `respond_stream` callables over a backend, one request at a time (engines are not thread-safe)."""
    lock = threading.Lock()

    def request_for(messages: list[dict], max_tokens: int, image_dir: Path) -> Request:
        return Request(f"local-{uuid.uuid4().hex[:12]}", messages_from_openai(messages, image_dir), max_tokens)

    def respond(messages: list[dict], max_tokens: int) -> Response:
        with lock, tempfile.TemporaryDirectory() as tmp:
            (response,) = list(backend.generate([request_for(messages, max_tokens, Path(tmp))]))  # type: ignore[attr-defined]
        if response.error:
            raise RuntimeError(response.error)
        return response

    def respond_stream(messages: list[dict], max_tokens: int) -> Iterator[str]:
        with lock, tempfile.TemporaryDirectory() as tmp:
            yield from backend.stream(request_for(messages, max_tokens, Path(tmp)))  # type: ignore[attr-defined]

    return respond, respond_stream


def main(argv: Sequence[str] | None = None) -> None:
    """Serve a local model folder through the transformers backend until interrupted."""
    from pipeline.backends import create_backend

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a local model folder (or hub id) for the transformers backend")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--name", help="the served model name (default: the --model value)")
    args = parser.parse_args(argv)
    backend = create_backend("transformers", args.model)
    respond, respond_stream = backend_responder(backend)
    server = LocalServer(respond, port=args.port, model_name=args.name or args.model, respond_stream=respond_stream)
    print(f"serving {args.model} at {server.url}", flush=True)
    try:
        server.serve_forever()
    finally:
        backend.close()


if __name__ == "__main__":
    main()
