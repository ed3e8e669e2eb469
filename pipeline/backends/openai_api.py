"""Any OpenAI-compatible chat server (`vllm serve`, a hosted API, `tests.local_server`).

Requests run concurrently on an asyncio loop (`concurrency` at a time), with retries and exponential
backoff on rate limits, server errors, dropped connections and timeouts. The API key is read from
the environment variable named by `api_key_env` when a request is sent; it is never stored on the
backend, never part of `settings()`, and scrubbed from every error message.
"""

from __future__ import annotations

import asyncio
import base64
import email.utils
import json
import mimetypes
import os
import random
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx

from pipeline.backends.base import BackendError, Message, ModelIdentity, Request, Response, register
from pipeline.scrub import scrub

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
BASE_URL_ENV = "DISH_ATLAS_OPENAI_BASE_URL"
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
RETRY_AFTER_CAP_S = 60.0  # a server asking for longer than this is treated as asking for this
CHECK_TIMEOUT_S = 5.0
DONE = object()  # the SSE end-of-stream marker `data: [DONE]`

_MAGIC = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"), (b"GIF8", "image/gif"))


# ---------------------------------------------------------------------------------------------
# Pure helpers: building request bodies and reading answers (unit-tested without a server).


def image_data_url(path: Path) -> str:
    """A local image as a `data:` URL; the mime type from the suffix, else from the file's magic bytes."""
    data = Path(path).read_bytes()
    mime = mimetypes.guess_type(str(path))[0]
    if mime is None or not mime.startswith("image/"):
        mime = next((m for magic, m in _MAGIC if data.startswith(magic)), None)
        if mime is None and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            mime = "image/webp"
    if mime is None:
        raise ValueError(f"{path} is not a recognised image (png, jpeg, gif, webp)")
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def message_payload(message: Message) -> dict:
    """One `Message` in OpenAI chat format: plain text, or images (first) followed by the text."""
    if not message.images:
        return {"role": message.role, "content": message.text}
    parts: list[dict] = [{"type": "image_url", "image_url": {"url": image_data_url(p)}} for p in message.images]
    parts.append({"type": "text", "text": message.text})
    return {"role": message.role, "content": parts}


def chat_payload(model: str, request: Request, temperature: float, stream: bool = False) -> dict:
    """The JSON body of `POST /chat/completions` for one request (raises OSError/ValueError on a bad image)."""
    body = {
        "model": model,
        "messages": [message_payload(m) for m in request.messages],
        "max_tokens": request.max_tokens,
        "temperature": temperature,
        "stream": stream,
    }
    return body


def _content_text(content: Any) -> str | None:
    """Message content as text: servers answer with a string, or (rarely) a list of text parts."""
    if content is None or isinstance(content, str):
        return content or None
    if isinstance(content, list):
        text = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        return text or None
    return str(content)


def parse_completion(key: str, payload: Any, latency_ms: float | None = None) -> Response:
    """A `/chat/completions` JSON answer as a Response (an answer without choices is an error)."""
    choices = payload.get("choices") if isinstance(payload, dict) else None
    if not choices or not isinstance(choices[0], dict):
        return Response(
            key, None, "error", latency_ms=latency_ms, error=f"server answered without choices: {payload!r:.200}"
        )
    choice = choices[0]
    usage = payload.get("usage") or {}
    return Response(
        key=key,
        text=_content_text((choice.get("message") or {}).get("content")),
        finish_reason=choice.get("finish_reason"),
        tokens_in=usage.get("prompt_tokens"),
        tokens_out=usage.get("completion_tokens"),
        latency_ms=latency_ms,
    )


def parse_sse_line(line: str) -> str | object | None:
    """One line of a streamed answer: the content delta, `DONE` at the end, None for anything else."""
    if not line.startswith("data:"):
        return None  # blank separators, comments (`: ping`), `event:` lines
    data = line[5:].strip()
    if data == "[DONE]":
        return DONE
    try:
        chunk = json.loads(data)
    except json.JSONDecodeError:
        return None
    if isinstance(chunk, dict) and chunk.get("error"):
        raise BackendError(scrub(f"model server reported an error mid-stream: {chunk['error']!r:.300}"))
    choices = chunk.get("choices") if isinstance(chunk, dict) else None
    if not choices:
        return None
    return (choices[0].get("delta") or {}).get("content") or None


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """A `Retry-After` header (seconds or an HTTP date) in seconds, capped; None when absent or unreadable."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    return min(max(seconds, 0.0), RETRY_AFTER_CAP_S)


def backoff_seconds(attempt: int, base: float, cap: float) -> float:
    """Exponential backoff with jitter before retry `attempt` (1 = the first retry)."""
    ceiling = min(cap, base * 2 ** (attempt - 1))
    return ceiling * (0.5 + random.random() / 2)


def _is_loopback(url: str) -> bool:
    return (urlparse(url).hostname or "") in ("127.0.0.1", "localhost", "::1")


# ---------------------------------------------------------------------------------------------
# The backend.


@dataclass
class _Attempt:
    """The outcome of one HTTP try: a response, or a reason to retry (or give up)."""

    response: Response | None = None
    retryable: str | None = None  # why this try failed in a way worth retrying
    wait_s: float | None = None  # the server's Retry-After, when it gave one
    unreachable: bool = False  # the connection itself failed


@register("openai")
class OpenAIBackend:
    """Chat completions from an OpenAI-compatible server, many requests in flight at once."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        concurrency: int = 8,
        timeout: float = 60.0,
        max_retries: int = 5,
        temperature: float = 0.0,
        backoff_s: float = 0.5,
        max_backoff_s: float = 30.0,
    ) -> None:
        """`max_retries` is the number of tries per request (at least 1); `backoff_s` the first retry's wait."""
        if concurrency < 1 or timeout <= 0:
            raise BackendError(f"concurrency must be >= 1 and timeout > 0 (got {concurrency}, {timeout})")
        self.model = model
        self.base_url = (base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL).rstrip("/")
        self.api_key_env = api_key_env
        self.concurrency = int(concurrency)
        self.timeout = float(timeout)
        self.max_retries = max(1, int(max_retries))
        self.temperature = float(temperature)
        self.backoff_s = float(backoff_s)
        self.max_backoff_s = float(max_backoff_s)
        self._identity: ModelIdentity | None = None

    def __repr__(self) -> str:
        return f"OpenAIBackend(model={self.model!r}, base_url={self.base_url!r}, api_key_env={self.api_key_env!r})"

    # -- the interface --------------------------------------------------------------------------

    def settings(self) -> dict:
        """Only what changes answers; the URL, key, concurrency and retry policy do not."""
        return {"temperature": self.temperature}

    def identity(self) -> ModelIdentity:
        """The served model name; the revision is what `/models` reports (vLLM: the weights' path), if reachable."""
        if self._identity is None:
            revision = None
            try:
                entry = next((m for m in self._list_models() if m.get("id") == self.model), None)
            except BackendError:
                entry = None
            if entry:
                root = entry.get("root")
                revision = entry.get("revision") or (root if root and root != self.model else None)
            self._identity = ModelIdentity(model_id=self.model, revision=revision)
        return self._identity

    def check(self) -> None:
        """Fail fast, before a run, when the server is down, refuses the key, or does not serve the model."""
        models = self._list_models()
        ids = [m.get("id") for m in models]
        if ids and self.model not in ids:
            shown = ", ".join(str(i) for i in ids[:10]) + (" ..." if len(ids) > 10 else "")
            raise BackendError(f"the model server at {self.base_url} does not serve {self.model!r}; it serves: {shown}")

    def generate(self, requests: Sequence[Request]) -> Iterator[Response]:
        """Yields one Response per request as each finishes; a failed request yields a Response with `error`."""
        requests = list(requests)
        if not requests:
            return
        loop = asyncio.new_event_loop()
        run = _Run(self, requests)
        try:
            loop.run_until_complete(run.start())
            for _ in requests:
                yield loop.run_until_complete(run.done.get())
        finally:
            loop.run_until_complete(run.stop())
            loop.close()

    def stream(self, request: Request) -> Iterator[str]:
        """Content pieces as the server streams them; server down, timeout or an HTTP error raise BackendError."""
        try:
            body = chat_payload(self.model, request, self.temperature, stream=True)
        except (OSError, ValueError) as exc:
            raise BackendError(self._scrub(f"cannot read image: {exc}")) from None
        try:
            with (
                self._client() as client,
                client.stream("POST", "/chat/completions", json=body, headers=self._headers()) as answer,
            ):
                if answer.status_code >= 400:
                    answer.read()
                    raise BackendError(self._scrub(self._status_error(answer)))
                for line in answer.iter_lines():
                    piece = parse_sse_line(line)
                    if piece is DONE:
                        return
                    if piece:
                        yield self._scrub(piece)
        except httpx.TimeoutException:
            raise BackendError(f"the model server at {self.base_url} timed out after {self.timeout:g} s") from None
        except httpx.TransportError as exc:
            raise BackendError(self._scrub(f"cannot reach the model server at {self.base_url}: {exc}")) from None

    def close(self) -> None:
        """Nothing to release: clients live only for one call."""

    # -- HTTP plumbing --------------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        key = os.environ.get(self.api_key_env)
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _scrub(self, text: str) -> str:
        """Text without the API key, whatever a server or library echoed back."""
        return scrub(text, os.environ.get(self.api_key_env))

    def _timeout(self, total: float) -> httpx.Timeout:
        return httpx.Timeout(total, connect=min(total, 10.0))

    def _client(self, timeout: float | None = None) -> httpx.Client:
        # A proxy from the environment must not capture requests to a server on this machine.
        return httpx.Client(
            base_url=self.base_url,
            timeout=self._timeout(timeout or self.timeout),
            trust_env=not _is_loopback(self.base_url),
        )

    def _async_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=self.base_url,
            timeout=self._timeout(self.timeout),
            limits=httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency),
            trust_env=not _is_loopback(self.base_url),
        )

    def _status_error(self, answer: httpx.Response) -> str:
        detail = self._scrub(answer.text).strip().replace("\n", " ")[:300]
        return f"the model server at {self.base_url} returned {answer.status_code}" + (f": {detail}" if detail else "")

    def _list_models(self) -> list[dict]:
        """`GET /models` with a short timeout; BackendError when the server is unreachable or refuses the key."""
        try:
            with self._client(min(self.timeout, CHECK_TIMEOUT_S)) as client:
                answer = client.get("/models", headers=self._headers())
        except httpx.TimeoutException:
            raise BackendError(
                f"cannot reach the model server at {self.base_url}: no answer within "
                f"{min(self.timeout, CHECK_TIMEOUT_S):g} s"
            ) from None
        except httpx.TransportError as exc:
            raise BackendError(self._scrub(f"cannot reach the model server at {self.base_url}: {exc}")) from None
        if answer.status_code in (401, 403):
            raise BackendError(
                f"the model server at {self.base_url} refused the API key ({answer.status_code}); "
                f"set it in the environment variable {self.api_key_env}"
            )
        if answer.status_code >= 400:
            return []  # reachable; some servers simply do not list models
        try:
            data = answer.json().get("data")
        except (ValueError, AttributeError):
            return []
        return [m for m in data if isinstance(m, dict)] if isinstance(data, list) else []

    async def _try_once(self, client: httpx.AsyncClient, request: Request, body: dict) -> _Attempt:
        started = time.perf_counter()
        try:
            answer = await client.post("/chat/completions", json=body, headers=self._headers())
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            reason = self._scrub(f"cannot reach the model server at {self.base_url}: {exc or type(exc).__name__}")
            return _Attempt(retryable=reason, unreachable=True)
        except httpx.TimeoutException:
            return _Attempt(retryable=f"no answer from {self.base_url} within the {self.timeout:g} s timeout")
        except httpx.TransportError as exc:
            reason = self._scrub(f"the connection to {self.base_url} failed: {exc or type(exc).__name__}")
            return _Attempt(retryable=reason)
        latency_ms = (time.perf_counter() - started) * 1000
        if answer.status_code in RETRY_STATUSES:
            return _Attempt(
                retryable=self._status_error(answer), wait_s=retry_after_seconds(answer.headers.get("retry-after"))
            )
        if answer.status_code >= 400:
            return _Attempt(
                Response(request.key, None, "error", latency_ms=latency_ms, error=self._status_error(answer))
            )
        try:
            payload = answer.json()
        except ValueError:
            return _Attempt(
                Response(
                    request.key,
                    None,
                    "error",
                    latency_ms=latency_ms,
                    error=self._scrub(f"the model server answered with invalid JSON: {answer.text[:200]!r}"),
                )
            )
        response = parse_completion(request.key, payload, latency_ms)
        return _Attempt(replace(response, text=self._scrub(response.text), error=self._scrub(response.error)))

    async def _complete(self, client: httpx.AsyncClient, request: Request, run: _Run) -> Response:
        """One request with retries; never raises (errors become the Response's `error`)."""
        try:
            body = chat_payload(self.model, request, self.temperature)
        except (OSError, ValueError) as exc:
            return Response(request.key, None, "error", error=f"cannot read image: {exc}")
        reason, tries, answers_before = "no try made", 0, run.answers
        for tries in range(1, self.max_retries + 1):
            if run.unreachable_error:
                return Response(request.key, None, "error", error=run.unreachable_error)
            attempt = await self._try_once(client, request, body)
            if not attempt.unreachable:
                run.answers += 1
            if attempt.response is not None:
                return attempt.response
            reason = attempt.retryable or reason
            if tries < self.max_retries:
                wait = attempt.wait_s
                await asyncio.sleep(
                    wait if wait is not None else backoff_seconds(tries, self.backoff_s, self.max_backoff_s)
                )
        error = f"{reason} (gave up after {tries} {'try' if tries == 1 else 'tries'})"
        if attempt.unreachable and run.answers == answers_before:
            # Unreachable through a whole retry cycle with no answer to anyone: the server is down, and the
            # requests still waiting fail at once instead of each waiting out its own retries.
            run.unreachable_error = error
        return Response(request.key, None, "error", error=error)


class _Run:
    """One `generate` call on its event loop: `concurrency` workers draining the requests into `done`."""

    def __init__(self, backend: OpenAIBackend, requests: list[Request]) -> None:
        self.backend = backend
        self.todo = deque(requests)
        self.done: asyncio.Queue[Response] = asyncio.Queue()
        self.workers: list[asyncio.Task] = []
        self.client: httpx.AsyncClient | None = None
        self.answers = 0  # tries that reached the server (it took the connection), whatever came of them
        self.unreachable_error: str | None = None

    async def start(self) -> None:
        self.client = self.backend._async_client()
        count = min(self.backend.concurrency, len(self.todo))
        self.workers = [asyncio.create_task(self._work()) for _ in range(count)]

    async def _work(self) -> None:
        assert self.client is not None
        while self.todo:
            request = self.todo.popleft()
            try:
                response = await self.backend._complete(self.client, request, self)
            except Exception as exc:  # a bug must not lose the request: it is reported as its error
                response = Response(request.key, None, "error", error=f"{type(exc).__name__}: {exc}")
            if response.error:
                response = replace(response, error=self.backend._scrub(response.error))
            self.done.put_nowait(response)

    async def stop(self) -> None:
        for task in self.workers:
            task.cancel()
        await asyncio.gather(*self.workers, return_exceptions=True)
        if self.client is not None:
            await self.client.aclose()
