"""Scoring functions, written as the rules they promise."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pipeline.core.text import norm_name
from pipeline.score.metrics import (
    METRICS,
    DuplicateMetric,
    crude_stem,
    dice,
    entropy,
    first_in_gold,
    get_metric,
    jaccard,
    metric,
    name_match,
    normalize_dish_name,
    overlap,
    stem_match,
    tokenize,
    word_set_match,
    word_set_overlap,
)

CODES = ["UA", "RU", "PL", "GE", "FR", "IT", "US", "JP"]
country_sets = st.frozensets(st.sampled_from(CODES))
nonempty_country_sets = st.frozensets(st.sampled_from(CODES), min_size=1)
SET_METRICS = [jaccard, dice, overlap]

# --- registry ------------------------------------------------------------------------------


def test_registry_names_every_pairwise_score() -> None:
    assert {"jaccard", "dice", "overlap", "first_in_gold", "name_match"} <= set(METRICS)
    assert {"stem_match", "word_set_match", "word_set_overlap"} <= set(METRICS)
    assert METRICS["jaccard"] is jaccard


def test_accuracy_is_first_in_gold_as_task_files_name_it() -> None:
    assert get_metric("accuracy") is first_in_gold


def test_registering_a_taken_name_raises_and_changes_nothing() -> None:
    with pytest.raises(DuplicateMetric, match="jaccard"):

        @metric("a_fresh_name_that_must_not_stick", "jaccard")
        def impostor(pred: object, gold: object) -> float:
            return 0.0

    assert METRICS["jaccard"] is jaccard
    assert "a_fresh_name_that_must_not_stick" not in METRICS


def test_registry_cannot_be_edited_from_outside() -> None:
    with pytest.raises(TypeError):
        METRICS["jaccard"] = dice  # type: ignore[index]


def test_unknown_metric_error_lists_known_names() -> None:
    with pytest.raises(KeyError, match="jaccard"):
        get_metric("jacard")


# --- set overlap ---------------------------------------------------------------------------


def test_partial_overlap_examples() -> None:
    pred, gold = ["UA", "RU"], ["UA", "PL", "GE"]
    assert jaccard(pred, gold) == pytest.approx(1 / 4)
    assert dice(pred, gold) == pytest.approx(2 / 5)
    assert overlap(pred, gold) == pytest.approx(1 / 2)


def test_overlap_is_one_when_one_set_contains_the_other() -> None:
    assert overlap(["UA"], ["UA", "RU", "PL"]) == 1.0
    assert overlap(["UA", "RU", "PL"], ["UA"]) == 1.0


@pytest.mark.parametrize("score", SET_METRICS)
def test_both_empty_is_perfect_agreement(score) -> None:
    assert score([], set()) == 1.0


@pytest.mark.parametrize("score", [jaccard, dice, overlap, first_in_gold])
def test_exactly_one_empty_scores_zero(score) -> None:
    assert score([], ["UA"]) == 0.0
    assert score(["UA"], []) == 0.0


def test_first_in_gold_with_nothing_predicted_is_zero_even_for_empty_gold() -> None:
    assert first_in_gold([], []) == 0.0


def test_first_in_gold_looks_only_at_the_first_prediction() -> None:
    assert first_in_gold(["UA", "RU"], ["UA"]) == 1.0
    assert first_in_gold(["RU", "UA"], ["UA"]) == 0.0
    assert first_in_gold(iter(["PL"]), ("PL", "UA")) == 1.0


def test_inputs_are_treated_as_sets_whatever_the_iterable() -> None:
    assert jaccard(["UA", "UA", "RU"], ("RU", "UA")) == 1.0
    assert dice(iter(["UA", "RU"]), {"RU": 1, "UA": 2}) == 1.0


@pytest.mark.parametrize("score", [*SET_METRICS, first_in_gold])
def test_a_bare_string_is_refused_not_split_into_letters(score) -> None:
    with pytest.raises(TypeError, match="bare string"):
        score("UA", ["UA"])
    with pytest.raises(TypeError, match="bare string"):
        score(["UA"], "UA")


@given(country_sets, country_sets)
def test_every_set_score_is_between_zero_and_one(p: frozenset, g: frozenset) -> None:
    for score in [*SET_METRICS, first_in_gold]:
        assert 0.0 <= score(sorted(p), g) <= 1.0


@given(country_sets, country_sets)
def test_set_scores_are_symmetric(p: frozenset, g: frozenset) -> None:
    for score in SET_METRICS:
        assert score(p, g) == score(g, p)


@given(country_sets, country_sets)
def test_overlap_is_at_least_dice_which_is_at_least_jaccard(p: frozenset, g: frozenset) -> None:
    assert overlap(p, g) >= dice(p, g) - 1e-12
    assert dice(p, g) >= jaccard(p, g) - 1e-12


@given(country_sets, country_sets)
def test_dice_is_a_function_of_jaccard(p: frozenset, g: frozenset) -> None:
    assume(p or g)
    j = jaccard(p, g)
    assert math.isclose(dice(p, g), 2 * j / (1 + j))


@given(nonempty_country_sets)
def test_identical_nonempty_sets_score_one(s: frozenset) -> None:
    for score in SET_METRICS:
        assert score(s, set(s)) == 1.0


@given(nonempty_country_sets, nonempty_country_sets)
def test_disjoint_nonempty_sets_score_zero(p: frozenset, g: frozenset) -> None:
    g = g - p
    assume(g)
    for score in [*SET_METRICS, first_in_gold]:
        assert score(sorted(p), g) == 0.0


# --- BORSch's own rule (§4.1): the set measures of §J on every country the answer names ---------


@given(st.lists(st.sampled_from(CODES), max_size=6), country_sets)
def test_the_paper_rule_s_scores_are_the_set_measures_on_the_countries_it_names(named: list, g: frozenset) -> None:
    """Repeats in the rule's reading (a country named twice) count once; both sets empty is agreement (§J eq. 1-3)."""
    for name, ours in (("paper_jaccard", jaccard), ("paper_dice", dice), ("paper_overlap", overlap)):
        assert get_metric(name)(named, g) == ours(named, g)
    assert get_metric("paper_exact")(named, g) == (1.0 if set(named) == g else 0.0)


def test_the_paper_rule_s_scores_read_the_countries_it_names() -> None:
    """The score stage hands them core.extractions.paper_countries, not the extractor's countries."""
    assert {getattr(get_metric(name), "reads", None) for name in METRICS if name.startswith("paper_")} >= {
        "paper_countries"
    }
    for name in ("paper_jaccard", "paper_dice", "paper_overlap", "paper_exact"):
        assert get_metric(name).reads == "paper_countries"
    assert get_metric("paper_exact")(["UA", "RU", "UA"], ["RU", "UA"]) == 1.0
    assert get_metric("paper_exact")([], []) == 1.0
    assert get_metric("paper_exact")(["UA"], ["UA", "RU"]) == 0.0


# --- dish names ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("predicted", "gold", "expected"),
    [
        (["Борщ"], ["борщ"], 1.0),
        (["Кулеб'яка"], ["кулебʼяка"], 1.0),
        (["Оливье"], ["Олів'є"], 0.0),
        (["Пельмени"], ["Пельмень"], 1.0),
        (["Селёдка под шубой"], ["селедка под шубой"], 1.0),
        (["«Борщ»."], ["борщ"], 1.0),
        (["Вареники", "Голубці", "Борщ"], ["борщ", "борщ український"], 1.0),
        (["Вареники", "Голубці"], ["борщ"], 0.0),
    ],
)
def test_name_match_examples(predicted: list[str], gold: list[str], expected: float) -> None:
    assert name_match(predicted, gold) == expected


def test_name_match_with_nothing_to_compare_is_zero() -> None:
    assert name_match([], ["борщ"]) == 0.0
    assert name_match(["борщ"], []) == 0.0
    assert name_match([], []) == 0.0


def test_names_empty_after_normalisation_never_match() -> None:
    assert name_match(["«»", " ... "], ["", "-"]) == 0.0
    assert name_match([""], ["а"]) == 0.0  # one edit away, but an empty answer is not a near miss


def test_max_edits_sets_the_tolerance() -> None:
    assert name_match(["Пельмени"], ["Пельмень"], max_edits=0) == 0.0
    assert name_match(["Оливье"], ["Олів'є"], max_edits=3) == 1.0
    with pytest.raises(ValueError):
        name_match(["борщ"], ["борщ"], max_edits=-1)


def test_name_match_refuses_a_bare_string() -> None:
    with pytest.raises(TypeError, match="bare string"):
        name_match("борщ", ["борщ"])


def test_dish_name_normaliser_is_the_shared_one() -> None:
    assert normalize_dish_name is norm_name


@given(st.text())
def test_any_name_matches_itself(x: str) -> None:
    assume(norm_name(x))
    assert name_match([x], [x]) == 1.0


@given(st.lists(st.text(max_size=12), max_size=4), st.lists(st.text(max_size=12), max_size=4))
def test_name_match_is_zero_or_one_and_symmetric(p: list[str], g: list[str]) -> None:
    assert name_match(p, g) in (0.0, 1.0)
    assert name_match(p, g) == name_match(g, p)


# --- free text: words and stems ------------------------------------------------------------


def test_words_keep_inner_apostrophes_and_drop_punctuation_and_digits() -> None:
    assert tokenize("М’ясо, кулебʼяка; 2 шт. — «смачно»!") == ["м'ясо", "кулеб'яка", "шт", "смачно"]
    assert tokenize("") == []


@pytest.mark.parametrize(
    ("word", "stem"),
    [("борщу", "борщ"), ("борщ", "борщ"), ("вареників", "вареник"), ("вареники", "вареник"), ("пельмені", "пельмен")],
)
def test_crude_stem_strips_inflection_endings(word: str, stem: str) -> None:
    assert crude_stem(word) == stem


def test_crude_stem_prefers_the_longest_ending() -> None:
    assert crude_stem("українського") == crude_stem("український") == "українськ"


@given(st.text(alphabet="абвгдеєжзиіїйклмнопрстуфхцчшщьюяыэъ", max_size=12))
def test_crude_stem_is_a_prefix_keeping_at_least_three_letters(word: str) -> None:
    stem = crude_stem(word)
    assert word.startswith(stem)
    assert len(stem) >= min(len(word), 3)


def test_stem_match_forgives_inflection_case_and_order() -> None:
    assert stem_match("Борщ український", "борщу українського") == 1.0
    assert stem_match("український борщ", "Борщ український") == 1.0


def test_stem_match_is_still_exact_at_the_stem_level() -> None:
    assert stem_match("вареники", "пельмені") == 0.0
    assert stem_match("борщ", "борщ український") == 0.0


def test_stem_match_of_empty_text_is_zero() -> None:
    assert stem_match("", "") == 0.0
    assert stem_match("...", "борщ") == 0.0


def test_stem_match_takes_a_custom_stemmer() -> None:
    assert stem_match("борщу", "борщ", stem=lambda w: w) == 0.0
    assert stem_match("вареники", "варенье", stem=lambda w: w[:5]) == 1.0


@given(st.text())
def test_text_with_words_stem_matches_itself(text: str) -> None:
    assume(tokenize(text))
    assert stem_match(text, text) == 1.0
    assert word_set_match(text, text) == 1.0


def test_word_set_match_needs_one_shared_word() -> None:
    assert word_set_match("картопля, цибуля, сіль", "сіль") == 1.0
    assert word_set_match("Картопля і Цибуля", "цибуля") == 1.0
    assert word_set_match("картопля, цибуля", "буряк, морква") == 0.0
    assert word_set_match("", "") == 0.0


def test_word_set_overlap_is_the_share_of_gold_words_named() -> None:
    assert word_set_overlap("картопля, сіль", "картопля, цибуля, сіль, перець") == pytest.approx(2 / 4)
    assert word_set_overlap("буряк", "картопля") == 0.0
    assert word_set_overlap("картопля, цибуля, сіль", "сіль") == 1.0


def test_word_set_overlap_with_no_gold_words_is_undefined() -> None:
    assert math.isnan(word_set_overlap("сіль", ""))


# --- consistency across prompt variants ----------------------------------------------------


def test_entropy_examples() -> None:
    assert entropy(["UA"] * 5) == 0.0
    assert entropy(["UA", "UA", "RU", "RU"]) == pytest.approx(1.0)
    assert entropy(["UA", "RU", "PL", "GE", "FR"]) == pytest.approx(math.log2(5))
    assert entropy([]) == 0.0


def test_no_answer_counts_as_its_own_label() -> None:
    assert entropy([None, None]) == 0.0
    assert entropy(["UA", None]) == pytest.approx(1.0)


def test_entropy_base_changes_the_unit() -> None:
    assert entropy(["UA", "RU", "PL"], base=math.e) == pytest.approx(math.log(3))
    assert entropy(["UA", "RU", "PL"], base=3) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        entropy(["UA"], base=1)


@given(st.lists(st.one_of(st.none(), st.sampled_from(CODES))))
def test_entropy_is_between_zero_and_log_n(labels: list[str | None]) -> None:
    h = entropy(labels)
    assert 0.0 <= h <= math.log2(max(len(labels), 1)) + 1e-9
    assert h == pytest.approx(entropy(list(reversed(labels))))


def test_every_registered_metric_resolves_by_name_in_a_fresh_process() -> None:
    """A metric registered outside metrics.py is found through the registry's module map, not because some other
    module happened to import its module first (`name_contains_lev1` once resolved only that way)."""
    import ast
    import subprocess
    import sys

    from tests.helpers import REPO

    declared = sorted(
        arg.value
        for path in (REPO / "pipeline").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "metric"
        for arg in node.args
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
    )
    assert "name_contains_lev1" in declared
    script = "import sys; from pipeline.score.metrics import get_metric; [get_metric(n) for n in sys.argv[1:]]"
    result = subprocess.run([sys.executable, "-c", script, *declared], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
