"""The live probe shared by a server's users (pipeline/answers/probe_queue.py): ten people asking at
once share one loaded model, answered one at a time in arrival order with their place in the queue
shown; each question finishes or is turned away with a clear message. Real tiny models and a real
HTTP model server on 127.0.0.1; threads stand in for the dashboard's sessions (Streamlit runs each
session's script in a thread of its own)."""

from __future__ import annotations

import itertools
import threading
import time
from pathlib import Path

import pytest

from pipeline.answers import probe
from pipeline.answers.probe_queue import ProbeLimits, ProbeQueue, ProbeRefused, ProbeService, Ticket
from tests.local_server import serve

ASKERS = 10


def take_turn(queue: ProbeQueue, user: str, on_position=None) -> Ticket:
    """One question's turn in the queue, given back at once."""
    with queue.turn(user, on_position) as ticket:
        return ticket


def test_ten_people_asking_at_once_share_one_model_and_each_finishes_or_is_told_why(tiny_text_model: Path):
    service = ProbeService(ProbeLimits(max_waiting=6, max_new_tokens=8))
    start = threading.Barrier(ASKERS)
    outcomes: dict[int, object] = {}
    positions: dict[int, list[int]] = {i: [] for i in range(ASKERS)}
    streamed: dict[int, list[float]] = {i: [] for i in range(ASKERS)}  # when each piece arrived

    def asker(i: int) -> None:
        start.wait()
        try:
            outcomes[i] = service.ask(
                f"session-{i}", "Борщ", "ru", backend="transformers", model=str(tiny_text_model),
                settings=(("device", "cpu"), ("threads", 1)), on_position=positions[i].append,
                on_piece=lambda piece, i=i: streamed[i].append(time.monotonic()),
            )  # fmt: skip
        except ProbeRefused as exc:
            outcomes[i] = exc

    threads = [threading.Thread(target=asker, args=(i,)) for i in range(ASKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads)
    assert len(outcomes) == ASKERS  # nobody was left without an answer or a message

    answered = {i: o for i, o in outcomes.items() if not isinstance(o, ProbeRefused)}
    refused = {i: o for i, o in outcomes.items() if isinstance(o, ProbeRefused)}
    assert len(answered) >= 7  # the one answered first and the six the queue holds
    for exc in refused.values():
        assert "The live probe is busy" in str(exc) and "Try again in a minute" in str(exc)
    for i, queued in answered.items():
        assert queued.answer.error is None and queued.answer.text, queued.answer
        assert queued.answer.prompt == probe.prompt_text("ru", "Борщ")
        assert positions[i][-1] == 1 and positions[i] == sorted(positions[i], reverse=True)
        assert queued.ticket.position_at_join == positions[i][0]
    assert service.models.loads == 1  # one model in memory for everyone
    assert max(queued.ticket.position_at_join for queued in answered.values()) >= 5  # the queue was shown
    # one question at a time: no two answers streamed at once
    spans = sorted((times[0], times[-1]) for times in streamed.values() if times)
    assert len(spans) == len(answered)
    assert all(earlier[1] <= later[0] for earlier, later in itertools.pairwise(spans))
    assert service.queue.waiting() == 0


def test_each_user_may_ask_a_few_questions_per_window():
    now = [1000.0]
    queue = ProbeQueue(ProbeLimits(asks_per_window=2, window_s=60), clock=lambda: now[0])
    for _ in range(2):
        take_turn(queue, "alice")
    with pytest.raises(ProbeRefused, match=r"asked 2 questions in the last 60 s.*try again in 60 s"):
        take_turn(queue, "alice")
    take_turn(queue, "bob")  # the limit is per user
    now[0] += 45
    with pytest.raises(ProbeRefused, match="try again in 15 s"):
        take_turn(queue, "alice")
    now[0] += 15
    take_turn(queue, "alice")  # the window moved on


def test_a_second_question_of_one_user_waits_for_the_first_and_the_wait_is_bounded():
    queue = ProbeQueue(ProbeLimits(max_wait_s=0.6, max_waiting=1))
    holding, release = threading.Event(), threading.Event()

    def first() -> None:
        with queue.turn("alice"):
            holding.set()
            release.wait(10)

    thread = threading.Thread(target=first)
    thread.start()
    assert holding.wait(10)
    with pytest.raises(ProbeRefused, match="previous question is still being answered"):
        take_turn(queue, "alice")
    seen: list[int] = []
    started = time.monotonic()
    with pytest.raises(ProbeRefused, match=r"waited \d+ s without reaching the model \(1 still ahead"):
        take_turn(queue, "bob", seen.append)
    assert 0.5 <= time.monotonic() - started < 5 and seen == [2]
    release.set()
    thread.join(10)
    assert queue.waiting() == 0  # a refused or given-up question leaves no place behind
    assert take_turn(queue, "bob", seen.append).position_at_join == 1
    assert seen == [2, 1]


def test_question_length_and_new_tokens_are_capped_whatever_the_caller_asks():
    asked: list[int] = []

    def respond(messages: list[dict], max_tokens: int) -> str:
        asked.append(max_tokens)
        return "Украина"

    service = ProbeService(ProbeLimits(max_new_tokens=12, max_question_chars=20))
    with serve(respond, model_name="m") as url:
        settings = (("base_url", url),)
        with pytest.raises(probe.ProbeInputError, match="21 characters long; at most 20"):
            service.ask("u", "б" * 21, "ru", backend="openai", model="m", settings=settings)
        queued = service.ask("u", "Борщ", "ru", backend="openai", model="m", settings=settings, max_tokens=4000)
    assert asked == [12]  # 4000 asked for, 12 allowed
    assert queued.answer.countries == ("UA",) and queued.answer.status == "ok"
    assert queued.ticket.position_at_join == 1
    with pytest.raises(probe.ProbeInputError, match="at most 200"):
        probe.ask("б" * 201, "ru")  # the command's own cap, before any model is loaded


def test_a_model_that_cannot_load_is_an_answer_with_its_error(tmp_path: Path):
    service = ProbeService()
    queued = service.ask("u", "Борщ", "uk", backend="transformers", model=str(tmp_path / "no-such-model"))
    assert queued.answer.stage == "load" and queued.answer.status == "error"
    assert "model folder not found" in queued.answer.error
    assert service.queue.waiting() == 0


def test_bad_limits_are_refused():
    with pytest.raises(ValueError, match="asks_per_window must be at least 1"):
        ProbeLimits(asks_per_window=0)


def test_an_answer_left_midway_frees_the_model_before_the_next_question(tiny_text_model: Path):
    """A user who leaves mid-answer (the page stops reading the stream) stops the generation at its next
    token, so the queue's next question never shares the model with a leftover generation."""
    service = ProbeService()
    engine = service.models.get("transformers", str(tiny_text_model), (("device", "cpu"), ("threads", 1)))
    request = probe.build_request(probe.prompt_text("en", "Paella"), limit=3000)
    running = set(threading.enumerate())
    pieces = engine.stream(request)
    assert next(pieces)
    pieces.close()  # what a page does when its session ends mid-answer
    assert set(threading.enumerate()) <= running  # the generation thread has ended, not run on to 3000 tokens
