"""ZNO-Vision's own reading of an exam answer (§3, "Evaluation Framework"): the model is asked to
write the letter in square brackets, and the LAST bracketed match counts, as on the paper exam
only the answer in the box counts. Kept beside our `choice` extractor (which calls two different
letters `several`), so `--method paper` reproduces the paper and `--method atlas` stays ours.

Assumption (the study's code is not public here): the match is the regular expression `\\[(.*?)\\]`
over the whole answer, and its content, stripped, must equal one of the item's option letters
exactly (a Latin "A" is not the Cyrillic "А"), as a string comparison with the gold letter would.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pipeline.extract.choice import PaperChoice, clean_answer

ZNO_LETTERS = "АБВГДЕ"  # the exam letters options А, Б, В, Г, Д (Е in a few six-option questions)
_BRACKETED = re.compile(r"\[(.*?)\]", re.DOTALL)


def last_bracket(text: str | None) -> str | None:
    """The content of the last [...] in the answer (stripped), or None when there is none."""
    found = _BRACKETED.findall(clean_answer(text))
    return found[-1].strip() if found else None


def paper_last_bracket(text: str | None, letters: Sequence[str] = ZNO_LETTERS) -> PaperChoice:
    """The option (1-based) the paper's rule reads: `bracket` when the last bracketed content is one of
    `letters`, `bracket_other` when it is something else, `unparsed` when the answer has no brackets."""
    content = last_bracket(text)
    if content is None:
        return PaperChoice("unparsed")
    options = list(letters)  # one letter each: "АБ" or "" is no option
    if content in options:
        return PaperChoice("bracket", options.index(content) + 1)
    return PaperChoice("bracket_other")
