"""The choice extractor reads every shape of multiple-choice answer seen in real files, and the
paper's own rule reads them exactly as WorldCuisines' score.py did."""

from __future__ import annotations

import pytest

from pipeline.extract import get_extractor
from pipeline.extract.choice import extract_choice, letter_value, options_from_prompt, paper_choice

OPTIONS = ("Thailand", "South Africa", "Canada", "Brazil", "Korea")
PROMPT = (
    "Which country is this dish associated with?\n1. Thailand\n2. South Africa\n3. Canada\n4. Brazil\n5. Korea\n\n"
    "Print only the answer with a single answer id (1,2,3,4,5)."
)


@pytest.mark.parametrize(
    ("answer", "status", "choices"),
    [
        ("2", "ok", (2,)),
        ("2.", "ok", (2,)),
        (" 2 ", "ok", (2,)),
        ("3<|im_end|>", "ok", (3,)),  # a chat-template token left in the file
        ("2. South Africa", "ok", (2,)),
        ("Answer: 2", "ok", (2,)),
        ("Option 4", "ok", (4,)),
        ("The correct answer is 3. Canada.", "ok", (3,)),
        ("The dish is related to option 5, Korea.", "ok", (5,)),
        ("Відповідь: 4", "ok", (4,)),
        ("٣", "ok", (3,)),  # Arabic-Indic digit
        ("(B)", "ok", (2,)),
        ("B", "ok", (2,)),
        ("Canada.", "ok", (3,)),  # the option's text instead of its number
        ("I think it is Brazil", "ok", (4,)),
        ("South Africa", "ok", (2,)),  # not "Africa" nor anything shorter
        ("2 or 3", "several", (2, 3)),
        ("Canada or Brazil", "several", (3, 4)),
        ("7", "unparsed", ()),  # no option 7
        ("The dish in the image is a type of egg tart.", "unparsed", ()),
        ("No puedo determinar el origen de este plato.", "refusal", ()),
        ("对不起，我无法确定这道菜的起源地。", "refusal", ()),
        ("", "empty", ()),
        (None, "empty", ()),
        ("<|im_end|>", "empty", ()),
    ],
)
def test_choice_answers_get_an_option_and_a_status(answer: str | None, status: str, choices: tuple) -> None:
    result = extract_choice(answer, OPTIONS)
    assert (result.status, result.choices) == (status, choices)
    assert result.choice == (choices[0] if status == "ok" else None)


@pytest.mark.parametrize(
    ("answer", "choice"),
    [
        ("[А]", 1),
        ("[Б]", 2),
        ("[В]", 3),
        ("[Г]", 4),
        ("[Д]", 5),
        ("Відповідь: [Г]", 4),
        ("Б", 2),
        ("[B]", 3),  # a Latin B typed for the Cyrillic В: the third ZNO option
        ("A", 1),  # a Latin A for the Cyrillic А
    ],
)
def test_zno_bracketed_cyrillic_letters(answer: str, choice: int) -> None:
    result = extract_choice(answer, lettering="cyrillic", n_options=5)
    assert (result.status, result.choice) == ("ok", choice)


def test_look_alike_letters_follow_the_options_alphabet() -> None:
    assert letter_value("В", "latin") == 2  # Cyrillic В read as Latin B
    assert letter_value("В", "cyrillic") == 3
    assert letter_value("B", "cyrillic") == 3
    assert letter_value("С", "latin") == 3  # Cyrillic С read as Latin C
    assert letter_value("Д", "latin") == 5
    assert letter_value("Z", "latin") is None


@pytest.mark.parametrize(
    ("prediction", "status", "choice"),
    [
        ("2", "number", 2),
        (" 3\n", "number", 3),  # Python int() forgives outer whitespace
        ("٣", "number", 3),  # and reads any Unicode digit
        ("2.", "number_dot", 2),
        ("4. أذربيجان", "number_dot", 4),
        (" 1. Jordánsko", "unparsed", None),  # a leading space defeats their ^(\d+)\. pattern
        ("Canada.", "option_text", None),  # found in the prompt, then compared as text: never right
        ("3<|im_end|>", "unparsed", None),
        ("Answer: 2", "unparsed", None),
        (None, "unparsed", None),
    ],
)
def test_paper_rule_reads_as_worldcuisines_score_py(prediction: str | None, status: str, choice: int | None) -> None:
    result = paper_choice(prediction, PROMPT)
    assert (result.status, result.choice) == (status, choice)


def test_options_are_read_from_the_prompt() -> None:
    assert options_from_prompt(PROMPT) == list(enumerate(OPTIONS, start=1))


def test_the_choice_extractor_is_registered_by_name() -> None:
    name, extract = get_extractor("choice")
    assert name == "choice@1"
    assert extract("Answer: 2", "en", OPTIONS).choices == (2,)
    assert extract("[В]", "uk").choices == (3,)  # ZNO lettering for Ukrainian prompts
