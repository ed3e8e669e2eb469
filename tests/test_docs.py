"""The documentation a newcomer follows is checked, not trusted: every relative link and anchor of README.md and
docs/**/*.md leads somewhere, every `python -m pipeline ...` command written in them is one the CLI has (command
and options, parsed against its own command tree in this process), and the generated reference pages
(docs/cli.md, the contract tables of docs/contracts.md) are what tools/docs_reference.py writes from the code now."""

from __future__ import annotations

import re
import shlex
from functools import cache
from pathlib import Path

import pytest
import typer
from typer.core import TyperGroup

from tests.helpers import REPO
from tools import docs_reference

PAGES = sorted({REPO / "README.md", REPO / "bench" / "README.md", *(REPO / "docs").rglob("*.md")})
FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
COMMAND = re.compile(r"(?:^|[\s/(])python3? -m pipeline\b(.*)")
# A command ends where the shell takes over; `...` stands for "more of the same" in prose.
STOPS = {"|", "<", ">", ">>", "&&", "||", ";", "2>&1", "&", "...", "…"}


def _split(page: Path) -> tuple[list[str], list[str]]:
    """The page's prose lines (fenced blocks left out) and its fenced code lines."""
    prose, code, fenced = [], [], False
    for line in page.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif fenced:
            code.append(line)
        else:
            prose.append(line)
    return prose, code


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: the text of links and code kept, lower case, punctuation dropped, spaces as
    hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


@cache
def anchors(page: Path) -> frozenset[str]:
    """Every anchor a page's headings make (a repeated heading gets -1, -2, ... as on GitHub)."""
    seen: dict[str, int] = {}
    found = set()
    for line in _split(page)[0]:
        match = HEADING.match(line)
        if match:
            base = slug(match.group(2))
            found.add(base if base not in seen else f"{base}-{seen[base]}")
            seen[base] = seen.get(base, 0) + 1
    return frozenset(found)


def broken_links(page: Path, base: Path = REPO) -> list[str]:
    """'PAGE:LINE: TARGET (why)' for each relative link or anchor that leads nowhere (PAGE relative to `base`)."""
    problems = []
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if number in _code_line_numbers(page):
            continue
        for target in LINK.findall(CODE_SPAN.sub("", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...: not ours to check offline
                continue
            path_part, _, fragment = target.partition("#")
            linked = (page.parent / path_part).resolve() if path_part else page
            where = f"{page.relative_to(base)}:{number}: {target}"
            if not linked.exists():
                problems.append(f"{where} (no such file)")
            elif fragment and linked.suffix == ".md" and fragment not in anchors(linked):
                problems.append(f"{where} (no heading with that anchor)")
    return problems


@cache
def _code_line_numbers(page: Path) -> frozenset[int]:
    numbers, fenced = set(), False
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            numbers.add(number)
        elif fenced:
            numbers.add(number)
    return frozenset(numbers)


def documented_commands(page: Path) -> list[str]:
    """Every `python -m pipeline ...` of a page: in its code blocks (a trailing backslash continues the line) and in
    its inline code spans."""
    prose, code = _split(page)
    joined = "\n".join(code).replace("\\\n", " ")
    found = [match.group(1) for line in joined.splitlines() if (match := COMMAND.search(line))]
    for line in prose:
        for _, span in CODE_SPAN.findall(line):
            if match := COMMAND.search(span):
                found.append(match.group(1))
    return found


@cache
def root() -> TyperGroup:
    return docs_reference.root_command()


def _tokens(text: str) -> list[str]:
    try:
        tokens = shlex.split(text, comments=True)
    except ValueError:  # a quote opened in one line of a multi-line example
        tokens = text.split()
    # Optional parts are written [--limit N]; the brackets are notation, not part of the word.
    return [token.strip("[]") for token in tokens if token.strip("[]")]


def unknown_words(arguments: str) -> list[str]:
    """The commands and options of `python -m pipeline ARGUMENTS` that the CLI does not have; `a|b` where a command
    is expected names alternatives, each checked. Values and positional placeholders are not judged."""
    command = root()
    context = typer.Context(command, info_name=docs_reference.PROGRAM)
    problems: list[str] = []
    tokens = _tokens(arguments)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token in STOPS:
            break
        params = command.get_params(context)
        if token.startswith("-") and token != "-":
            name, has_value = token.split("=", 1)[0], "=" in token
            param = next((p for p in params if name in (*p.opts, *p.secondary_opts)), None)
            if param is None:
                problems.append(f"{' '.join(context.command_path.split()[3:]) or 'pipeline'}: no option {name}")
            elif not param.is_flag and not has_value:
                index += 1  # its value
        elif isinstance(command, TyperGroup):
            names = command.list_commands(context)
            missing = [alternative for alternative in token.split("|") if alternative not in names]
            if missing:
                problems += [f"no command {' '.join([*context.command_path.split()[3:], m])}" for m in missing]
                break
            command = command.get_command(context, token.split("|")[0])
            context = typer.Context(command, info_name=token.split("|")[0], parent=context)
    if isinstance(command, TyperGroup) and command is not root() and not problems:
        problems.append(f"{context.command_path}: a group, not a command")
    return problems


def test_the_checks_catch_what_they_are_for(tmp_path: Path) -> None:
    """The link and command checks fail on a missing file, a missing anchor, an unknown command and an unknown
    option, and pass their valid counterparts (a check that cannot fail would prove nothing)."""
    page = tmp_path / "page.md"
    page.write_text(
        "# Title here\n\n[ok](#title-here) [gone](#nowhere) [file](page.md) [missing](missing.md)\n"
        "```\n[not a link](inside-code.md)\n```\n",
        encoding="utf-8",
    )
    problems = [p.split(": ", 1)[1] for p in broken_links(page, base=tmp_path)]
    assert problems == ["#nowhere (no heading with that anchor)", "missing.md (no such file)"]
    assert unknown_words("--warehouse W.duckdb export dishes --format csv --out -") == []
    assert unknown_words("import-responses --format zno|multi30k|vqa FILE... [--skip-bad-lines]") == []
    assert unknown_words("export choice-scores|language-switching --format csv") == []
    assert unknown_words("export dishes --colour red") == ["export dishes: no option --colour"]
    assert unknown_words("export everything --format csv") == ["no command export everything"]
    assert unknown_words("export") == ["python -m pipeline export: a group, not a command"]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO)))
def test_every_relative_link_and_anchor_leads_somewhere(page: Path) -> None:
    assert broken_links(page) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO)))
def test_every_documented_command_is_one_the_cli_has(page: Path) -> None:
    problems = [
        f"python -m pipeline {args.strip()}: {why}" for args in documented_commands(page) for why in unknown_words(args)
    ]
    assert problems == []


def test_the_readme_stays_a_way_in() -> None:
    """About 150 lines: what the project is, a screenshot, the two commands, where to go next (the reference lives
    in docs/)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 160
    for must in ("docs/screenshots/map.png", "make demo", "make test", "docs/ARCHITECTURE.md", "docs/cli.md"):
        assert must in readme


def test_the_generated_reference_pages_are_up_to_date() -> None:
    """docs/cli.md and the contract tables of docs/contracts.md are what the code says now; after changing a command
    or a contract, run `python tools/docs_reference.py`."""
    stale = [
        str(path.relative_to(REPO))
        for path, text in docs_reference.pages().items()
        if path.read_text(encoding="utf-8") != text
    ]
    assert stale == [], "run `python tools/docs_reference.py` to regenerate these pages"
