"""Any OpenAI-compatible chat server (`vllm serve`, a hosted API, `tests.local_server`), through the
`openai` package.

The kept client does the HTTP: retries with exponential backoff and jitter on 408/409/429/5xx,
dropped connections and timeouts (a server's `Retry-After` honoured up to two minutes), timeouts,
server-sent events and mid-stream errors. This module adds what the pipeline needs around it: a
concurrency limit (`concurrency` requests in flight on one asyncio loop), one line per failure,
a fail-fast when the server is down, and the key: read from the environment variable named by
`api_key_env` when a client is made for one call, never stored on the backend, never part of
`settings()`, and scrubbed (`pipeline/core/scrub.py`) from every text a server sends back.
"""

from __future__ import annotations

import asyncio
import base64
import mimetypes
import os
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx2
import openai

from pipeline.backends.base import BackendError, Message, ModelIdentity, Request, Response, register
from pipeline.core.scrub import scrub

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
BASE_URL_ENV = "DISH_ATLAS_OPENAI_BASE_URL"
CHECK_TIMEOUT_S = 5.0
# Sent instead of a key when `api_key_env` is unset: the client refuses to start without one, and the
# Authorization header is then dropped per request (NO_AUTH), so a keyless local server sees none.
NO_KEY = "no-key"
NO_AUTH = {"Authorization": openai.Omit()}

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
    """The arguments of `chat.completions.create` for one request (raises OSError/ValueError on a bad image).
    The task's temperature, where it declares one (ZNO-Vision §4: 1), wins over the backend's `temperature`."""
    return {
        "model": model,
        "messages": [message_payload(m) for m in request.messages],
        "max_tokens": request.max_tokens,
        "temperature": temperature if request.temperature is None else request.temperature,
        "stream": stream,
    }


def _content_text(content: Any) -> str | None:
    """Message content as text: servers answer with a string, or (rarely) a list of text parts."""
    if content is None or isinstance(content, str):
        return content or None
    if isinstance(content, list):
        text = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        return text or None
    return str(content)


def parse_completion(key: str, payload: Any, latency_ms: float | None = None) -> Response:
    """A `/chat/completions` answer (as a dict) as a Response; an answer without choices is an error."""
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


def tries_made(exc: openai.APIError) -> int:
    """How many tries the client made before raising `exc` (it numbers its retries in a request header)."""
    request = getattr(exc, "request", None)
    try:
        return int(request.headers.get("x-stainless-retry-count", 0)) + 1 if request is not None else 1
    except (TypeError, ValueError):
        return 1


def retried(exc: openai.APIError) -> bool:
    """Whether the client retries this kind of failure (so a final one has used up every try)."""
    if isinstance(exc, openai.APIConnectionError):
        return True
    return isinstance(exc, openai.APIStatusError) and (exc.status_code in (408, 409, 429) or exc.status_code >= 500)


def _is_loopback(url: str) -> bool:
    return (urlparse(url).hostname or "") in ("127.0.0.1", "localhost", "::1")


# ---------------------------------------------------------------------------------------------
# The backend.


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
    ) -> None:
        """`max_retries` is the number of tries per request (at least 1); `timeout` applies to each try."""
        if concurrency < 1 or timeout <= 0:
            raise BackendError(f"concurrency must be >= 1 and timeout > 0 (got {concurrency}, {timeout})")
        self.model = model
        self.base_url = (base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL).rstrip("/")
        self.api_key_env = api_key_env
        self.concurrency = int(concurrency)
        self.timeout = float(timeout)
        self.max_retries = max(1, int(max_retries))
        self.temperature = float(temperature)
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
        """Content pieces as the server streams them; server down, timeout or an HTTP error raise BackendError.

        One try only: a stream feeds a person watching the probe, who is better served by the error now
        than by the same answer after a minute of backoff."""
        try:
            body = chat_payload(self.model, request, self.temperature, stream=True)
        except (OSError, ValueError) as exc:
            raise BackendError(self._scrub(f"cannot read image: {exc}")) from None
        try:
            with self._client(self.timeout, max_retries=0) as client:
                for chunk in client.chat.completions.create(**body, extra_headers=self._auth_headers()):
                    piece = chunk.choices[0].delta.content if chunk.choices else None
                    if piece:
                        yield self._scrub(piece)
        except openai.APITimeoutError:
            raise BackendError(f"the model server at {self.base_url} timed out after {self.timeout:g} s") from None
        except openai.OpenAIError as exc:
            raise BackendError(self._describe(exc, mid_stream=True)) from None

    def close(self) -> None:
        """Nothing to release: clients live only for one call."""

    # -- the client -----------------------------------------------------------------------------

    def _api_key(self) -> str:
        return os.environ.get(self.api_key_env) or NO_KEY

    def _auth_headers(self) -> dict:
        """Per-request headers: none with a key (the client sends `Bearer KEY`), else drop Authorization."""
        return {} if os.environ.get(self.api_key_env) else NO_AUTH

    def _scrub(self, text: str | None) -> str | None:
        """Text without the API key, whatever a server or library echoed back."""
        return scrub(text, os.environ.get(self.api_key_env))

    def _timeout(self, total: float) -> httpx2.Timeout:
        return httpx2.Timeout(total, connect=min(total, 10.0))

    def _client(self, timeout: float, max_retries: int) -> openai.OpenAI:
        # A proxy from the environment must not capture requests to a server on this machine.
        http = openai.DefaultHttpxClient(trust_env=not _is_loopback(self.base_url))
        return openai.OpenAI(
            base_url=self.base_url,
            api_key=self._api_key(),
            timeout=self._timeout(timeout),
            max_retries=max_retries,
            http_client=http,
        )

    def _async_client(self, on_response: Any) -> openai.AsyncOpenAI:
        http = openai.DefaultAsyncHttpxClient(
            limits=httpx2.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency),
            trust_env=not _is_loopback(self.base_url),
            event_hooks={"response": [on_response]},
        )
        return openai.AsyncOpenAI(
            base_url=self.base_url,
            api_key=self._api_key(),
            timeout=self._timeout(self.timeout),
            max_retries=self.max_retries - 1,
            http_client=http,
        )

    def _describe(self, exc: openai.OpenAIError, mid_stream: bool = False) -> str:
        """One scrubbed line for a failure the client raised."""
        if isinstance(exc, openai.APITimeoutError):
            text = f"no answer from {self.base_url} within the {self.timeout:g} s timeout"
        elif isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__
            detail = f"{cause or type(cause).__name__}" if cause is not None else str(exc)
            if isinstance(cause, httpx2.ConnectError):
                text = f"cannot reach the model server at {self.base_url}: {detail}"
            else:
                text = f"the connection to {self.base_url} failed: {detail}"
        elif isinstance(exc, openai.APIStatusError):
            detail = (self._scrub(exc.response.text) or "").strip().replace("\n", " ")[:300]
            text = f"the model server at {self.base_url} returned {exc.status_code}" + (f": {detail}" if detail else "")
        elif isinstance(exc, openai.APIError) and mid_stream:
            text = f"model server reported an error mid-stream: {exc.message!r:.300}"
        else:
            text = f"the model server at {self.base_url} answered in a way the client cannot read: {exc}"
        return self._scrub(text) or text

    def _list_models(self) -> list[dict]:
        """`GET /models` with a short timeout; BackendError when the server is unreachable or refuses the key."""
        wait = min(self.timeout, CHECK_TIMEOUT_S)
        try:
            with self._client(wait, max_retries=0) as client:
                page = client.models.list(extra_headers=self._auth_headers())
                return [m.model_dump() for m in page.data if m is not None]
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise BackendError(
                f"the model server at {self.base_url} refused the API key ({exc.status_code}); "
                f"set it in the environment variable {self.api_key_env}"
            ) from None
        except openai.APITimeoutError:
            raise BackendError(
                f"cannot reach the model server at {self.base_url}: no answer within {wait:g} s"
            ) from None
        except openai.APIConnectionError as exc:
            raise BackendError(self._describe(exc)) from None
        except openai.OpenAIError:
            return []  # reachable; some servers simply do not list models (or not as JSON)

    async def _complete(self, client: openai.AsyncOpenAI, request: Request, run: _Run) -> Response:
        """One request, retried by the client; never raises (errors become the Response's `error`)."""
        try:
            body = chat_payload(self.model, request, self.temperature)
        except (OSError, ValueError) as exc:
            return Response(request.key, None, "error", error=f"cannot read image: {exc}")
        if run.unreachable_error:
            return Response(request.key, None, "error", error=run.unreachable_error)
        answers_before, started = run.answers, asyncio.get_running_loop().time()
        try:
            completion = await client.chat.completions.create(**body, extra_headers=self._auth_headers())
        except openai.OpenAIError as exc:
            error = self._describe(exc)
            if isinstance(exc, openai.APIError) and retried(exc):
                tries = tries_made(exc)
                error += f" (gave up after {tries} {'try' if tries == 1 else 'tries'})"
            unreachable = isinstance(exc, openai.APIConnectionError) and isinstance(exc.__cause__, httpx2.ConnectError)
            if unreachable and run.answers == answers_before:
                # Unreachable through a whole retry cycle with no answer to anyone: the server is down, and
                # the requests still waiting fail at once instead of each waiting out its own retries.
                run.unreachable_error = error
            return Response(request.key, None, "error", error=error)
        latency_ms = (asyncio.get_running_loop().time() - started) * 1000
        payload = completion.model_dump() if isinstance(completion, openai.BaseModel) else completion
        response = parse_completion(request.key, payload, latency_ms)
        return replace(response, text=self._scrub(response.text), error=self._scrub(response.error))


class _Run:
    """One `generate` call on its event loop: `concurrency` workers draining the requests into `done`."""

    def __init__(self, backend: OpenAIBackend, requests: list[Request]) -> None:
        self.backend = backend
        self.todo = deque(requests)
        self.done: asyncio.Queue[Response] = asyncio.Queue()
        self.workers: list[asyncio.Task] = []
        self.client: openai.AsyncOpenAI | None = None
        self.answers = 0  # HTTP answers from the server during this run, whatever their status
        self.unreachable_error: str | None = None

    async def _heard(self, response: httpx2.Response) -> None:
        self.answers += 1

    async def start(self) -> None:
        self.client = self.backend._async_client(self._heard)
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
            await self.client.close()
