"""The extractor as a spaCy component: `nlp.add_pipe("dish_atlas_countries")` on blank pipelines
of several languages, spans with alpha-2 labels, negation marked, the doc-level answer, the
gazetteer as EntityRuler patterns, and docs/reading-answers.md's example run verbatim."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import spacy

import pipeline.extract.spacy_component as component
from tests.helpers import REPO


@pytest.mark.parametrize(
    ("lang", "text", "spans", "origin"),
    [
        ("ru", "Это блюдо не из России, а из Украины.", [("России", "RU", True), ("Украины", "UA", False)], ("UA",)),
        ("uk", "Ця страва походить з Грузії.", [("Грузії", "GE", False)], ("GE",)),
        ("en", "Not from Italy: it comes from France.", [("Italy", "IT", True), ("France", "FR", False)], ("FR",)),
        ("it", "La cucina è indiana.", [("indiana", "IN", False)], ("IN",)),
        ("zh", "这道菜来自墨西哥。", [("墨西哥", "MX", False)], ("MX",)),
    ],
)
def test_blank_pipelines_get_country_spans(lang: str, text: str, spans: list, origin: tuple) -> None:
    nlp = spacy.blank(lang)
    nlp.add_pipe("dish_atlas_countries")
    doc = nlp(text)
    assert [(s.text, s.label_, s._.negated) for s in doc.spans["countries"]] == spans
    assert [s.label_ for s in doc.spans["countries_negated"]] == [label for _, label, neg in spans if neg]
    assert doc._.origin_countries == origin
    assert doc._.origin_status == "ok"


def test_a_worldcuisines_language_code_can_be_configured() -> None:
    nlp = spacy.blank("xx")
    nlp.add_pipe("dish_atlas_countries", config={"lang": "zh_cn"})
    assert nlp("起源于泰国")._.origin_countries == ("TH",)


def test_an_answer_without_a_country_has_its_status() -> None:
    nlp = spacy.blank("en")
    nlp.add_pipe("dish_atlas_countries")
    doc = nlp("I cannot determine where this dish is from.")
    assert doc._.origin_countries == ()
    assert doc._.origin_status == "refusal"
    assert list(doc.spans["countries"]) == []


def test_gazetteer_as_entity_ruler_patterns() -> None:
    patterns = component.entity_ruler_patterns("ru")
    assert {"label": "IT", "pattern": "италии", "id": "name"} in patterns
    nlp = spacy.blank("ru")
    ruler = nlp.add_pipe("entity_ruler", config={"phrase_matcher_attr": "LOWER"})
    ruler.add_patterns([p for p in patterns if p["label"] in {"IT", "UA"}])
    doc = nlp("Пицца из Италии, борщ из Украины")
    assert [(e.text, e.label_) for e in doc.ents] == [("Италии", "IT"), ("Украины", "UA")]


def test_entry_point_is_declared_in_pyproject() -> None:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    section = text.split("[project.entry-points.spacy_factories]", 1)[1].split("[", 1)[0]
    target = section.split("dish_atlas_countries", 1)[1].split('"')[1]
    module, _, attribute = target.partition(":")
    assert getattr(__import__(module, fromlist=[attribute]), attribute) is component.make_country_component


def test_the_documented_spacy_example_runs_verbatim() -> None:
    readme = (REPO / "docs" / "reading-answers.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "dish_atlas_countries" in b]
    assert len(blocks) == 1
    done = subprocess.run(
        [sys.executable, "-c", blocks[0]], cwd=REPO, capture_output=True, text=True, timeout=300, check=True
    )
    # Each print's expected output is the comment on its line, or on the line below it.
    lines = blocks[0].splitlines()
    expected = [
        (line if "  # " in line else lines[i + 1]).split("# ", 1)[1]
        for i, line in enumerate(lines)
        if line.startswith("print(")
    ]
    assert done.stdout.splitlines() == expected
