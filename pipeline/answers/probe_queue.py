"""The live probe shared by everyone using one dashboard server.

A 135M-parameter model answering on 2 CPU cores takes seconds per question, and an in-process engine
is not thread-safe, so every user of the server shares one loaded model per config entry and the
questions are answered one at a time, in arrival order. Each asker sees its place in the queue while
it waits. What one user can take is bounded: the question's length, the answer's new tokens, how many
questions wait at most (more are turned away at once, never queued without bound), how long one may
wait, and how many questions one user (one browser session) may ask per time window.

The answer itself is `pipeline.answers.probe.ask`, the same call `python -m pipeline probe` makes; this module
only decides who runs it when, on which loaded model.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pipeline.answers import probe

Clock = Callable[[], float]


@dataclass(frozen=True)
class ProbeLimits:
    """What one server's live probe allows (the probe config's `[limits]` table overrides each)."""

    max_question_chars: int = probe.MAX_DISH_CHARS  # the typed dish name
    max_new_tokens: int = 256  # the longest answer, whatever a model entry asks for
    max_waiting: int = 10  # questions waiting behind the one being answered; more are turned away
    max_wait_s: float = 180.0  # a question not started by then is given up, with a message
    asks_per_window: int = 5  # per user (one browser session)
    window_s: float = 60.0

    def __post_init__(self) -> None:
        for name in ("max_question_chars", "max_new_tokens", "asks_per_window"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be at least 1, not {getattr(self, name)!r}")
        if self.max_waiting < 0 or self.max_wait_s <= 0 or self.window_s <= 0:
            raise ValueError("max_waiting must be >= 0 and max_wait_s, window_s > 0")


class ProbeRefused(Exception):
    """A question the shared probe turns away (queue full, too many questions, waited too long, one
    already asked); the message is for the user, in plain words."""


@dataclass
class Ticket:
    """One question's place: its position when it joined (1 = answered now) and how long it waited."""

    user: str
    joined_at: float
    position_at_join: int = 1
    waited_s: float = 0.0
    positions: list[int] = field(default_factory=list)  # every position shown to the asker, in order


class ProbeQueue:
    """A first-come, first-served queue with one question running at a time, a cap on waiting questions
    and a per-user rate limit. Thread-safe: each Streamlit session runs in its own thread."""

    POLL_S = 0.25  # how often a waiting asker re-reads its position

    def __init__(self, limits: ProbeLimits | None = None, clock: Clock = time.monotonic) -> None:
        self.limits = limits or ProbeLimits()
        self._clock = clock
        self._cond = threading.Condition()
        self._line: deque[Ticket] = deque()  # the head is the question being answered
        self._asked: dict[str, deque[float]] = {}  # user -> when their admitted questions joined

    def set_limits(self, limits: ProbeLimits) -> None:
        with self._cond:
            self.limits = limits

    def waiting(self) -> int:
        """Questions in the queue, the one being answered included."""
        with self._cond:
            return len(self._line)

    def _admit(self, user: str) -> Ticket:
        """Join the line or raise ProbeRefused; called under the lock."""
        limits, now = self.limits, self._clock()
        if any(ticket.user == user for ticket in self._line):
            raise ProbeRefused("Your previous question is still being answered; wait for it before asking again.")
        recent = self._asked.setdefault(user, deque())
        while recent and now - recent[0] >= limits.window_s:
            recent.popleft()
        if len(recent) >= limits.asks_per_window:
            again = math.ceil(limits.window_s - (now - recent[0]))
            asked = f"{len(recent)} question" + ("s" if len(recent) != 1 else "")
            raise ProbeRefused(
                f"You have asked {asked} in the last {limits.window_s:g} s, the most this server allows each "
                f"user; try again in {again} s."
            )
        if len(self._line) > limits.max_waiting:
            raise ProbeRefused(
                f"The live probe is busy: {len(self._line)} questions are queued, the most it holds. "
                "Try again in a minute."
            )
        recent.append(now)
        ticket = Ticket(user, now, position_at_join=len(self._line) + 1)
        self._line.append(ticket)
        return ticket

    @contextlib.contextmanager
    def turn(self, user: str, on_position: Callable[[int], None] | None = None) -> Iterator[Ticket]:
        """Wait for this user's turn (ProbeRefused when refused or waited too long), hold it for the
        body, then hand it to the next in line. `on_position(n)` is called in the caller's thread each
        time its position changes while it waits (n = 1: its question is being answered)."""
        with self._cond:
            ticket = self._admit(user)
        try:
            self._wait(ticket, on_position)
            yield ticket
        finally:
            with self._cond:
                with contextlib.suppress(ValueError):
                    self._line.remove(ticket)
                self._cond.notify_all()

    def _wait(self, ticket: Ticket, on_position: Callable[[int], None] | None) -> None:
        shown = None
        while True:
            with self._cond:
                position = self._line.index(ticket) + 1
                waited = self._clock() - ticket.joined_at
                if position > 1 and waited >= self.limits.max_wait_s:
                    raise ProbeRefused(
                        f"Your question waited {waited:.0f} s without reaching the model ({position - 1} still "
                        "ahead of it); the live probe is overloaded, try again later."
                    )
            if position != shown:
                shown = position
                ticket.positions.append(position)
                if on_position is not None:
                    on_position(position)  # outside the lock: it may draw on a page
            if position == 1:
                ticket.waited_s = self._clock() - ticket.joined_at
                return
            with self._cond:
                if self._line.index(ticket) + 1 == position:  # nothing moved while drawing
                    self._cond.wait(self.POLL_S)


class SharedModels:
    """Loaded backends kept for every user, one per (backend, model, settings); the least recently used
    is closed when more than `max_models` were asked for. Called only by the queue's current question."""

    def __init__(self, max_models: int = 2) -> None:
        self.max_models = max_models
        self._engines: OrderedDict[tuple, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.loads = 0  # how many times a model was loaded (tests: once for everyone)

    def get(self, backend: str, model: str, settings: tuple = ()) -> Any:
        from pipeline.backends import create_backend

        key = (backend, model, settings)
        with self._lock:
            if key in self._engines:
                self._engines.move_to_end(key)
                return self._engines[key]
            engine = create_backend(backend, model, **dict(settings))
            self.loads += 1
            self._engines[key] = engine
            while len(self._engines) > self.max_models:
                _, old = self._engines.popitem(last=False)
                old.close()
            return engine


@dataclass
class QueuedAnswer:
    """A shared-probe answer: `probe.ask`'s answer and where the question stood in the queue."""

    answer: probe.ProbeAnswer
    ticket: Ticket


class ProbeService:
    """The server's one queue and its loaded models."""

    def __init__(self, limits: ProbeLimits | None = None, clock: Clock = time.monotonic) -> None:
        self.queue = ProbeQueue(limits, clock)
        self.models = SharedModels()

    @property
    def limits(self) -> ProbeLimits:
        return self.queue.limits

    def ask(
        self,
        user: str,
        dish: str | None,
        lang: str,
        *,
        backend: str,
        model: str,
        settings: tuple = (),
        max_tokens: int | None = None,
        images: tuple = (),
        on_position: Callable[[int], None] | None = None,
        on_piece: Callable[[str], None] | None = None,
    ) -> QueuedAnswer:
        """`probe.ask` on the shared model once this user's turn comes. ProbeInputError for a question
        over the length cap, ProbeRefused when the queue turns it away; a model that cannot load is an
        answer with `stage == "load"` and its error, never an exception."""
        limits = self.limits
        text = " ".join((dish or "").split())
        if len(text) > limits.max_question_chars:
            raise probe.ProbeInputError(
                f"The dish name is {len(text)} characters long; at most {limits.max_question_chars} are allowed."
            )
        tokens = min(max_tokens or limits.max_new_tokens, limits.max_new_tokens)
        with self.queue.turn(user, on_position) as ticket:
            try:
                engine = self.models.get(backend, model, settings)
            except Exception as exc:  # BackendError, an unknown setting (TypeError), a missing engine (ImportError)
                failed = probe.ProbeAnswer(text, lang, model, probe.prompt_text(lang, text or None, bool(images)))
                failed.status, failed.stage = "error", "load"
                failed.error = str(exc) if isinstance(exc, probe.BackendError) else f"{type(exc).__name__}: {exc}"
                return QueuedAnswer(failed, ticket)
            answer = probe.ask(
                text, lang, backend=backend, model=model, engine=engine, max_tokens=tokens, images=images,
                on_piece=on_piece,
            )  # fmt: skip
        return QueuedAnswer(answer, ticket)


_SHARED: ProbeService | None = None
_SHARED_LOCK = threading.Lock()


def shared_service(limits: ProbeLimits | None = None) -> ProbeService:
    """The process's one probe service (every dashboard session shares it); `limits`, when given,
    replace its limits for the questions asked from now on."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = ProbeService(limits)
        elif limits is not None:
            _SHARED.queue.set_limits(limits)
        return _SHARED
