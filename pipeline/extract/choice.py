"""Multiple-choice answers -> the option a model picked, and how the papers themselves read them.

Models answer a numbered question in many shapes: "2", "2.", "2. Japan", "Answer: 2", "Option 2",
"The correct answer is 3. Turkey.", a letter (Latin A-E, or the ZNO exam's Cyrillic А Б В Г Д,
often in brackets: "[Б]"), the option's text instead of its number ("Japan."), several options
("2 or 3"), or a refusal. `extract_choice` reads all of them and gives each answer a status:

- `ok`: exactly one option (`choice`);
- `several`: more than one distinct option named (`choices` lists them, in order of mention);
- `unparsed`: nothing that maps to an option;
- `refusal`: the model declined;
- `empty`: no answer.

Letters that look alike across scripts are read in the alphabet the options use: with Cyrillic
lettering a Latin "B" typed by mistake is Cyrillic В (the 3rd option), with Latin lettering a
Cyrillic "В" is Latin B (the 2nd).

`paper_choice` is WorldCuisines' own reading (their `evaluation/score/score.py`), kept apart so the
published numbers can be reproduced: Python `int()` of the whole prediction, else a number followed
by a dot at the very start, else the prediction (dots removed) searched in the prompt text. The last
case yields a *character* of the prompt, which their code then compares with the integer gold and
so never counts as right: we keep that as status `option_text` with no number.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

EXTRACTOR = "choice@1"

LATIN_LETTERS = "ABCDE"
CYRILLIC_LETTERS = "АБВГД"  # ZNO: А Б В Г Д are options 1-5
# Look-alikes: what a letter of the *other* alphabet stands for.
_CYRILLIC_AS_LATIN = {"А": "A", "В": "B", "С": "C", "Е": "E"}
_LATIN_AS_CYRILLIC = {"A": "А", "B": "В"}

_SPECIAL_TOKEN = re.compile(r"<\|[^|<>]{1,40}\|>|</s>|<end_of_turn>|<eos>")
_LETTER = f"[{LATIN_LETTERS}{CYRILLIC_LETTERS}СЕ]"
_KEYWORDS = (
    r"answer|option|choice|number|the\s+correct\s+answer\s+is|"
    r"відповідь|варіант|ответ|вариант|номер|"
    r"respuesta|opción|réponse|risposta|opzione|resposta|opção|jawaban|pilihan|odpověď|možnost|cavab|"
    r"답|정답|選択肢|答え|答案|选项|選項|选择|選擇|الإجابة|الخيار"
)
# "Answer: 2", "option 5", "відповідь — Б", "the correct answer is 3. Turkey"
_KEYWORD_CHOICE = re.compile(
    rf"(?:{_KEYWORDS})\s*(?:is|es|est|è|é|adalah|je|:|：|-|—|№|#|\s)*\s*[\(\[«\"']?(\d+|{_LETTER})(?![\w])",
    re.IGNORECASE,
)
# The whole answer is one number or letter ("2", "[Б]", "C.")
_WHOLE = re.compile(rf"[\W_]*(\d+|{_LETTER})[\W_]*", re.IGNORECASE)
_BRACKETED = re.compile(rf"[\[(]\s*(\d+|{_LETTER})\s*[\])]")
_LEADING_NUMBER = re.compile(r"^\W*(\d+)(?:\s*[.)\]:,\-–—]|\s+(?=\S)|\s*$)")
_LEADING_LETTER = re.compile(rf"^\W*({_LETTER})\s*[.)\]:]")
_LONE_NUMBER = re.compile(r"(?<![\w.,])(\d+)(?![\w]|[.,]\d)")
_WORD = re.compile(r"\w+")

_REFUSAL = re.compile(
    r"\bi\s+(?:can(?:no|')t|am\s+unable|'m\s+unable|am\s+not\s+able|don't\s+know)|\bunable\s+to\b|\bsorry\b|"
    r"cannot\s+(?:determine|identify|tell|help)|not\s+possible\s+to|"
    r"no\s+puedo|no\s+es\s+posible|lo\s+siento|non\s+posso|mi\s+dispiace|je\s+ne\s+peux\s+pas|désolé|"
    r"не\s+(?:могу|можу|знаю)|невозможно|неможливо|вибачте|извините|на\s+жаль|к\s+сожалению|"
    r"tidak\s+dapat|maaf|nemohu|无法|無法|对不起|對不起|抱歉|できません|わかりません|수\s*없|죄송|لا\s+أستطيع|عذرا",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ChoiceResult:
    status: str  # ok | several | unparsed | refusal | empty
    choice: int | None = None
    choices: tuple[int, ...] = ()


@dataclass(frozen=True)
class PaperChoice:
    """How WorldCuisines' score.py read a prediction: `number` (int() of it), `number_dot` ("2."
    at the start), `option_text` (found in the prompt: compared as text, never right) or `unparsed`."""

    status: str
    choice: int | None = None


def clean_answer(text: str | None) -> str:
    """The answer without chat-template tokens (<|im_end|>, </s>) and outer whitespace."""
    return _SPECIAL_TOKEN.sub("", text or "").strip()


def letter_value(letter: str, lettering: str) -> int | None:
    """1-based option number of a letter under the options' `lettering` (latin | cyrillic)."""
    letter = letter.upper()
    if lettering == "cyrillic":
        letter = _LATIN_AS_CYRILLIC.get(letter, letter)
        return CYRILLIC_LETTERS.index(letter) + 1 if letter in CYRILLIC_LETTERS else None
    letter = _CYRILLIC_AS_LATIN.get(letter, letter)
    if letter in LATIN_LETTERS:
        return LATIN_LETTERS.index(letter) + 1
    return CYRILLIC_LETTERS.index(letter) + 1 if letter in CYRILLIC_LETTERS else None


def _value(token: str, n_options: int, lettering: str) -> int | None:
    if token.isdigit():
        try:
            number = int(token)
        except ValueError:
            return None
        return number if 1 <= number <= n_options else None
    number = letter_value(token, lettering)
    return number if number is not None and number <= n_options else None


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _option_mentions(text: str, options: Sequence[str]) -> list[int]:
    """Options whose text occurs in the answer (longest first, so "South Korea" hides "Korea"),
    in order of first mention."""
    folded = _fold(text)
    taken = [False] * len(folded)
    found: list[tuple[int, int]] = []
    order = sorted(range(len(options)), key=lambda i: -len(options[i]))
    for index in order:
        needle = _fold(options[index]).strip(" .")
        if len(needle) < 2:
            continue
        for match in re.finditer(re.escape(needle), folded):
            start, end = match.span()
            if any(taken[start:end]):
                continue
            # whole words where the script has spaces
            before = folded[start - 1] if start else " "
            after = folded[end] if end < len(folded) else " "
            if needle[0].isalnum() and (before.isalnum() and _spaced(before)):
                continue
            if needle[-1].isalnum() and (after.isalnum() and _spaced(after)):
                continue
            taken[start:end] = [True] * (end - start)
            found.append((start, index + 1))
            break
    return [number for _, number in sorted(found)]


def _spaced(char: str) -> bool:
    """Scripts that separate words with spaces (CJK and Thai do not)."""
    name = unicodedata.name(char, "")
    return not any(s in name for s in ("CJK", "HIRAGANA", "KATAKANA", "THAI", "HANGUL"))


def extract_choice(
    text: str | None, options: Sequence[str] = (), lettering: str = "latin", n_options: int | None = None
) -> ChoiceResult:
    """The option an answer picks. `options` are the option texts in order (option 1 first);
    `lettering` is the alphabet the options are lettered in when letters are used."""
    answer = clean_answer(text)
    if not answer:
        return ChoiceResult("empty")
    n = n_options or len(options) or 5
    whole = _WHOLE.fullmatch(answer)
    if whole:
        value = _value(whole.group(1), n, lettering)
        return ChoiceResult("ok", value, (value,)) if value else ChoiceResult("unparsed")
    marked: list[int] = []
    for pattern in (_KEYWORD_CHOICE, _BRACKETED):
        for match in pattern.finditer(answer):
            token = match.group(1)
            if not token.isdigit() and pattern is _KEYWORD_CHOICE and token.islower():
                continue  # "answer is a dish": a lower-case word, not a letter
            value = _value(token, n, lettering)
            if value and value not in marked:
                marked.append(value)
    numbers = list(dict.fromkeys(v for m in _LONE_NUMBER.finditer(answer) if (v := _value(m.group(1), n, lettering))))
    words = [w for w in _WORD.findall(answer) if not w.isdigit()]
    if not marked and len(numbers) > 1 and all(len(w) <= 4 for w in words):
        marked = numbers  # "2 or 3", "1, 4": only numbers and short connectives
    if not marked:
        leading = _LEADING_NUMBER.match(answer) or _LEADING_LETTER.match(answer)
        value = _value(leading.group(1), n, lettering) if leading else None
        if value:
            marked.append(value)
    if not marked:
        marked = _option_mentions(answer, options) if options else []
    if not marked and len(numbers) == 1 and len(words) <= 12:
        marked = numbers
    if len(marked) == 1:
        return ChoiceResult("ok", marked[0], tuple(marked))
    if len(marked) > 1:
        return ChoiceResult("several", None, tuple(marked))
    if _REFUSAL.search(answer):
        return ChoiceResult("refusal")
    return ChoiceResult("unparsed")


_PAPER_NUMBER_DOT = re.compile(r"^(\d+)\.")


def paper_choice(prediction: str | None, prompt: str | None) -> PaperChoice:
    """WorldCuisines' reading of a multiple-choice prediction, rule for rule (see the module doc)."""
    if prediction is None:
        return PaperChoice("unparsed")
    try:
        return PaperChoice("number", int(prediction))
    except ValueError:
        pass
    matched = _PAPER_NUMBER_DOT.match(prediction)
    if matched:
        return PaperChoice("number_dot", int(matched.group(1)))
    if prompt is not None and prompt.find(prediction.replace(".", "")) != -1:
        return PaperChoice("option_text")
    return PaperChoice("unparsed")


def options_from_prompt(prompt: str) -> list[tuple[int, str]]:
    """The numbered options of a WorldCuisines multiple-choice prompt ("1. Thailand" lines)."""
    return [(int(number), text.strip()) for number, text in re.findall(r"^\s*(\d+)\.\s*(.+?)\s*$", prompt, re.M)]
