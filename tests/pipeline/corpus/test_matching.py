"""Matching and counting one batch, with a pattern set written here (no warehouse needed)."""

from __future__ import annotations

import pyarrow as pa

from pipeline.corpus.compiled import Folder
from pipeline.corpus.matching import Counts, SampleContext, count_batch, find_matches, fold_column, shared_sentence
from pipeline.corpus.patterns import COUNTRY, DISH, PatternSet, Target

TARGETS = [Target(DISH, "borscht"), Target(DISH, "ukrainian borscht"), Target(COUNTRY, "US"), Target(COUNTRY, "UA")]
SURFACES = {  # surface: (targets, case-sensitive, acronym)
    "borscht": ((0,), False, False),
    "ukrainian borscht": ((1,), False, False),
    "us": ((2,), True, True),
    "usa": ((2,), False, False),
    "ukrainian": ((3,), False, False),
    "ukraine": ((3,), False, False),
}


def pattern_set() -> PatternSet:
    surfaces = sorted(SURFACES)
    return PatternSet(
        lang="en",
        targets=TARGETS,
        surfaces=surfaces,
        pattern_targets=[SURFACES[s][0] for s in surfaces],
        case_sensitive=[SURFACES[s][1] for s in surfaces],
        acronym=[SURFACES[s][2] for s in surfaces],
        origins={0: (3,), 1: (3,)},
    )


def scan(docs: list[str]) -> Counts:
    patterns = pattern_set()
    counts = Counts(len(TARGETS))
    batch = fold_column(Folder(patterns.literals.alphabet), pa.array(docs))
    count_batch(patterns, batch, counts, SampleContext("shard", "sha", {}))
    return counts


def test_whole_words_only_in_any_case_and_punctuation() -> None:
    patterns = pattern_set()
    batch = fold_column(Folder(patterns.literals.alphabet), pa.array(["BORSCHT!", "borschts", "(borscht)", "xborscht"]))
    found = find_matches(patterns.literals, batch.folded)
    assert found.doc.tolist() == [0, 2]


def test_acronyms_count_in_upper_case_only() -> None:
    counts = scan(["Borscht in the US.", "Let us eat borscht.", "Borscht, USA or usa."])
    assert counts.docs[2] == 2  # "US" and "USA"/"usa", not "us"
    assert (counts.docs[0], counts.any_country[0], counts.true_country[0]) == (3, 2, 0)


def test_a_country_inside_a_longer_dish_name_is_no_mention() -> None:
    counts = scan(["Ukrainian borscht tonight.", "Ukrainian borscht, as in Ukraine.", "A Ukrainian cook."])
    assert counts.docs[1] == 2 and counts.any_country[1] == 1 and counts.true_country[1] == 1
    assert counts.docs[3] == 2  # the second and third documents


def test_samples_are_sentences_with_a_non_origin_country() -> None:
    counts = scan(["Borscht is Ukrainian. Borscht is popular in the USA too! Fine."])
    assert [(s["dish_key"], s["country"], s["sentence"]) for s in counts.samples] == [
        ("borscht", "US", "Borscht is popular in the USA too!")
    ]


def sample(text: str, dish: str = "borscht", country: str = "USA") -> tuple[int, str] | None:
    return shared_sentence(text, [text.lower().index(dish)], [(text.index(country), 7)])


def test_a_sample_is_its_whole_sentence_however_far_back_the_sentence_starts() -> None:
    words = "w " * 400  # 800 characters without a sentence end before the names
    assert sample("Intro. " + words + "borscht and USA. Next one.") == (7, " ".join(["w"] * 400) + " borscht and USA.")


def test_sentences_end_at_punctuation_runs_before_white_space_and_at_line_ends() -> None:
    assert sample("Borscht?! Yes. USA") is None
    assert sample("Borscht…\nUSA") is None
    assert sample("Borscht\nUSA") is None
    assert sample("Borscht costs 3.5 in the USA.Still one sentence. Bye") == (
        7,
        "Borscht costs 3.5 in the USA.Still one sentence.",
    )
    assert sample("A. B. USA, borscht! C.") == (7, "USA, borscht!")
