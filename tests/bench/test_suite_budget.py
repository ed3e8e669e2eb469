"""bench/suite_budget.py counts each CPU-second of the suite once, in the row of the process that spent it."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from bench.suite_budget import Budget, CommandCost, Seen, _sample, command_costs, kind_of, largest, table

FORK_SERVER = "python -B -c from multiprocessing.forkserver import main; main(3, 4, ['tests.cli_server'], **{})"


def test_each_kind_of_process_is_named_from_its_command_line() -> None:
    assert kind_of(FORK_SERVER) == "CLI commands (forked)"
    assert kind_of("/usr/lib/chromium/chromium --type=renderer") == "Chromium"
    assert kind_of("python -m streamlit run app/main.py") == "Streamlit servers"
    assert kind_of("/venv/lib/python3.11/site-packages/ray/core/src/ray/raylet/raylet --x") == "Ray"
    assert kind_of("ray::IDLE") == "Ray"
    assert kind_of("python -m pipeline --warehouse W demo") == "CLI commands (interpreter)"
    assert kind_of("python -m pytest -q") == "pytest workers"
    assert kind_of("bash -c true") == "other"


def test_a_reaped_child_counts_once_whether_or_not_it_was_sampled() -> None:
    budget = Budget(root=1)
    budget.processes = {
        1: Seen("pytest workers", parent=0, command="pytest", first_own=0.0, first_children=0.0, own=2.0, children=0.0),
        # the fork server: 1 CPU-s of its own; its reaped commands added 10, of which the sampled one spent 4
        2: Seen("CLI commands (forked)", 1, FORK_SERVER, first_own=0.0, first_children=0.0, own=1.0, children=10.0),
        3: Seen("CLI commands (forked)", 2, FORK_SERVER, first_own=0.0, first_children=0.0, own=4.0, children=0.0),
        # running before the suite started (counted from its first sample), and not the suite's
        4: Seen("other", parent=0, command="sleep", first_own=100.0, first_children=0.0, own=103.0, children=0.0),
    }
    assert dict(table(budget)) == {
        "CLI commands (forked)": 1.0 + 4.0 + 6.0,
        "pytest workers": 2.0,
        "not the suite's (other work on the machine)": 3.0,
    }
    assert largest(budget, "CLI commands (forked)") == [(7.0, FORK_SERVER), (4.0, FORK_SERVER)]


def test_a_real_process_and_its_parent_are_sampled_with_their_cpu() -> None:
    busy = subprocess.Popen([sys.executable, "-c", "import time\nend = time.process_time() + 0.3\n"
                             "while time.process_time() < end: pass\ntime.sleep(30)"])  # fmt: skip
    try:
        budget = Budget()
        deadline = time.monotonic() + 20
        seen = None
        while (seen is None or seen.own < 0.3) and time.monotonic() < deadline:
            time.sleep(0.1)
            _sample(budget)
            seen = budget.processes.get(busy.pid)
        assert seen is not None and seen.parent == os.getpid() and seen.own >= 0.3
        assert budget.processes[os.getpid()].kind == "pytest workers"
    finally:
        busy.kill()
        busy.wait()


def test_logged_commands_are_summed_by_their_words_before_the_first_option_and_by_their_test_module() -> None:
    lines = [
        {"words": ["score"], "test": "tests/a/test_x.py::test_one", "cpu": 2.0, "publish": 0.5, "audit": 0.25},
        {
            "words": ["--no-publish", "score", "--rescore"],
            "test": "tests/b/test_y.py::test_two[p]",
            "cpu": 1.0,
            "publish": 0.0,
            "audit": 0.25,
        },
        {
            "words": ["export", "dishes", "--out", "x"],
            "test": "tests/a/test_x.py::test_three",
            "cpu": 0.5,
            "publish": 0.0,
            "audit": 0.0,
        },
        {"words": ["--version"], "test": "", "cpu": 0.25, "publish": 0.0, "audit": 0.0},
    ]
    by_command = dict(command_costs(lines, "command"))
    assert list(by_command) == ["score", "export dishes", "(options only)"]
    assert by_command["score"] == CommandCost(commands=2, cpu=3.0, publish=0.5, audit=0.5)
    by_module = dict(command_costs(lines, "module"))
    assert list(by_module) == ["tests/a/test_x.py", "tests/b/test_y.py", "(no test)"]
    assert by_module["tests/a/test_x.py"] == CommandCost(commands=2, cpu=2.5, publish=0.5, audit=0.25)
