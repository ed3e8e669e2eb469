"""The country extractor as a spaCy pipeline component, for people who already work in spaCy.

    import spacy
    import pipeline.extract.spacy_component  # registers the factory (entry points do it once installed)
    nlp = spacy.blank("ru")
    nlp.add_pipe("dish_atlas_countries")
    doc = nlp("Это блюдо не из России, а из Украины.")
    doc._.origin_countries  # ("UA",)

Every mention becomes a span in ``doc.spans["countries"]`` (label: the alpha-2 code) with
``span._.negated`` set for mentions under a negation ("не из России"); negated ones are also in
``doc.spans["countries_negated"]``, broad regions in ``doc.spans["regions"]`` (label: the region).
``doc._.origin_countries`` and ``doc._.origin_status`` are the extractor's own answer (negation,
corrections and spread already applied). The gazetteer itself is exported as EntityRuler patterns
by :func:`entity_ruler_patterns`.
"""

from __future__ import annotations

from spacy.language import Language
from spacy.tokens import Doc, Span

from pipeline.extract.countries import extract_countries, search_langs
from pipeline.extract.gazetteer import entries_for

FACTORY = "dish_atlas_countries"

for _name, _default in (("origin_countries", ()), ("origin_regions", ()), ("origin_status", None)):
    if not Doc.has_extension(_name):
        Doc.set_extension(_name, default=_default)
if not Span.has_extension("negated"):
    Span.set_extension("negated", default=False)


class CountryComponent:
    """Runs `extract_countries` on each doc and lays its spans onto the doc's tokens."""

    def __init__(self, lang: str, spans_key: str) -> None:
        self.lang = lang
        self.spans_key = spans_key

    def __call__(self, doc: Doc) -> Doc:
        result = extract_countries(doc.text, self.lang)
        countries, negated, regions = [], [], []
        for found in result.spans:
            span = doc.char_span(found.start, found.end, label=found.country or found.region, alignment_mode="expand")
            if span is None:
                continue
            span._.negated = found.negated
            if found.country:
                countries.append(span)
                if found.negated:
                    negated.append(span)
            else:
                regions.append(span)
        doc.spans[self.spans_key] = countries
        doc.spans[f"{self.spans_key}_negated"] = negated
        doc.spans["regions"] = regions
        doc._.origin_countries = result.countries
        doc._.origin_regions = result.regions
        doc._.origin_status = result.status
        return doc


@Language.factory(FACTORY, default_config={"lang": None, "spans_key": "countries"})
def make_country_component(nlp: Language, name: str, lang: str | None, spans_key: str) -> CountryComponent:
    """`lang` defaults to the pipeline's language; a WorldCuisines code ("zh_cn", "ru_formal") also works."""
    return CountryComponent(lang or nlp.lang, spans_key)


def entity_ruler_patterns(lang: str) -> list[dict]:
    """The gazetteer of `lang` (and of the languages its answers are searched with) as EntityRuler
    phrase patterns: label = alpha-2 code (or the broad region), id = the kind of name. Surfaces are
    lower case: add the ruler with ``config={"phrase_matcher_attr": "LOWER"}``."""
    patterns, seen = [], set()
    for search_lang in search_langs(lang):
        for entry in entries_for(search_lang):
            target = entry.country or entry.region
            if target is None or entry.surface in seen:
                continue
            seen.add(entry.surface)
            patterns.append({"label": target, "pattern": entry.surface, "id": entry.kind})
    return patterns
