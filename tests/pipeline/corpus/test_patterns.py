"""Pattern building: inflected forms, and the one-byte-per-character folding the literals are matched in."""

from __future__ import annotations

import numpy as np

from pipeline.corpus.compiled import Folder
from pipeline.corpus.fold import SPACE, UPPER, Alphabet
from pipeline.corpus.patterns import forms


def test_forms_cover_the_declension_of_ukrainian_and_russian_names() -> None:
    assert {"борщ", "борщу", "борщем", "борщі"} <= forms("БОРЩ", "uk")
    assert {"вареники", "вареників", "варениками"} <= forms("ВАРЕНИКИ", "uk")
    assert {"плов", "плова", "пловом"} <= forms("ПЛОВ", "ru")


def test_forms_fold_case_and_yo() -> None:
    assert "щетка" in forms("ЩЁТКА", "ru")
    assert forms("Pad Thai", "en") == {"pad thai"}


def fold_text(alphabet: Alphabet, docs: list[str]):
    data = "".join(docs).encode()
    offsets = np.cumsum([0] + [len(d.encode()) for d in docs]).astype(np.int64)
    return Folder(alphabet)(np.frombuffer(data, dtype=np.uint8), offsets)


def test_text_and_names_fold_alike_whatever_the_case_apostrophe_or_dash() -> None:
    alphabet = Alphabet.of(["кулеб'яка", "чіг-кефте", "борщ"])
    assert alphabet.encode("Кулеб’яка") == alphabet.encode("кулебʼяка") == alphabet.encode("кулеб'яка")
    assert alphabet.encode("чіг—кефте") == alphabet.encode("чіг-кефте") == alphabet.encode("ЧІГ КЕФТЕ")
    assert alphabet.encode("Бо́рщ") == alphabet.encode("борщ")  # a stress mark is dropped
    assert alphabet.encode("«Борщ»!") == alphabet.encode("борщ")  # edge boundaries are stripped
    folded = fold_text(alphabet, ["Борщ, ЁЖ і soup", "", "🍲борщ"])
    first = folded.text[folded.starts[0] : folded.ends[0]].tobytes()
    word, space = b"\x01", bytes([SPACE])
    # one byte per character: "ё" is "е", letters the names do not use ("ж", Latin) are one word byte
    assert (
        first
        == alphabet.encode("борщ")
        + 2 * space
        + alphabet.encode("е")
        + word
        + space
        + alphabet.encode("і")
        + space
        + 4 * word
    )
    assert folded.case[folded.starts[0]] & UPPER and not folded.case[folded.starts[0] + 1] & UPPER
    assert folded.ends[1] == folded.starts[1]  # the empty document
    third = folded.text[folded.starts[2] : folded.ends[2]].tobytes()
    assert third == space + alphabet.encode("борщ")  # an emoji is a boundary
    # documents are framed by spaces and a newline, so no name spans two of them
    assert folded.text[folded.starts[1] - 2] == 0x0A and folded.text[0] == SPACE and folded.text[-1] == SPACE
