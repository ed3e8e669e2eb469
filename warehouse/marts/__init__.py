"""The marts, in build order, each with its column contract: one explicit list (no file-name
discovery). A mart is a SQL file here, or a Python `build(con)` for what SQL cannot say simply
(bootstrap intervals). Publishing builds them in this order and checks that each table starts
with its contract columns, in order: columns are only ever added at the end (the exports and the
app's queries rely on them). Adding a mart = a file here + an entry in `MARTS` (a `Registry`)."""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from warehouse.marts import (
    accuracy,
    borsch_human_eval,
    borsch_table4,
    captions,
    culturemix,
    culturemix_mitigation,
    imagined_correlations,
    language_gap,
    leaderboard,
    map_outlines,
    method_audit,
)
from warehouse.registry import Registry

MARTS_DIR = Path(__file__).parent


@dataclass(frozen=True)
class Mart:
    """One mart file and the tables it builds with their contract columns (in order)."""

    file: str
    columns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    build: Callable[[duckdb.DuckDBPyConnection], None] | None = None
    # `export NAME` -> the table it writes: an export's column contract is its table's (docs/contracts.md)
    exports: dict[str, str] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        return MARTS_DIR / self.file

    @functools.cached_property
    def source(self) -> str:
        """The SQL file, or the Python mart's module."""
        if self.build is None:
            return self.path.read_text(encoding="utf-8")
        return inspect.getsource(inspect.getmodule(self.build))

    @functools.cached_property
    def writes(self) -> frozenset[str]:
        return _created(self.source) | frozenset(self.columns)

    def run(self, con: duckdb.DuckDBPyConnection, changed: set[str] | None = None) -> bool:
        """Build the mart; returns whether it ran. With `changed` (the source tables that differ from the snapshot
        the database was copied from, and the marts rebuilt so far, updated here), only what depends on them runs:
        a SQL statement that creates a mart table is skipped when it names no changed table, does not read the clock
        and follows no other statement that named one (the copy already holds what it would build); other statements
        (temporary macros) always run; a Python mart runs when its module names a changed table."""
        if self.build is not None:
            if changed is not None:
                if not _needed(self.source, changed):
                    return False
                changed |= self.writes
            self.build(con)
            return True
        if changed is None:
            con.execute(self.source)
            return True
        ran = tainted = False  # tainted: a temporary object built from changed tables (later statements may read it)
        for statement in con.extract_statements(self.source):
            creates, needed = _created(statement.query), _needed(statement.query, changed)
            if creates and not (needed or tainted):
                continue
            con.execute(statement.query)
            changed |= creates
            ran = ran or bool(creates)
            tainted = tainted or (needed and not creates)
        return ran

    def broken_contracts(self, found: dict[str, list[str]]) -> list[str]:
        """'marts.T: expected columns … first, found …' for each table whose columns break its contract. `found`:
        every table's columns in order (`table_columns`), read once for all the marts of a publish."""
        problems = []
        for table, expected in self.columns.items():
            columns = found.get(table, [])
            if tuple(columns[: len(expected)]) != expected:
                problems.append(f"{table}: expected columns {list(expected)} first, found {columns}")
        return problems


def table_columns(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    """'schema.table' -> its column names in order, for the current database: one catalog query (one per mart table
    was a tenth of a small warehouse's publish)."""
    rows = con.execute(
        "SELECT schema_name || '.' || table_name, list(column_name ORDER BY column_index) FROM duckdb_columns() "
        "WHERE database_name = current_database() GROUP BY ALL"
    ).fetchall()
    return dict(rows)


_TABLE = re.compile(r"\b(raw|core|meta|marts)\.([a-z_][a-z0-9_]*)")
_CREATED = re.compile(r"create\s+(?:or\s+replace\s+)?table\s+(marts\.[a-z_][a-z0-9_]*)")
_CLOCK = re.compile(r"current_timestamp|now\(\)|current_date|today\(\)|random\(\)")


def _created(code: str) -> frozenset[str]:
    return frozenset(_CREATED.findall(code.lower()))


def _needed(code: str, changed: set[str]) -> bool:
    """Whether `code` names a changed table (`schema.table`) or reads the clock or a random number."""
    code = code.lower()
    return _CLOCK.search(code) is not None or any(f"{s}.{t}" in changed for s, t in _TABLE.findall(code))


# One row per scored origin answer: marts.origin_scores, and marts.dish_answers (the same rows sorted
# for the Dish page) share the columns.
ORIGIN_SCORE_COLUMNS = (
    "dataset",
    "model",
    "task",
    "lang",
    "item_id",
    "variant",
    "gold",
    "predicted",
    "jaccard",
    "dice",
    "overlap",
    "status",
    "accuracy",
    "answer_lang",
    "regions",
    "response",
    "dish_key",
    "task_id",
    "item_key",
    "generation_id",
    "extractor",
    "no_country",  # the one definition of "no country" (030_origin_scores.sql)
    "gold_nations",  # the UK nation a dataset names as gold (GB-SCT...), '' otherwise
    "uk_nation_match",  # 1/0 where gold_nations is set, NULL otherwise
    # issue 35: the reading of the question behind `predicted`, and BORSch's rule (§4.1) beside ours
    "reading",
    "paper_predicted",
    "paper_jaccard",
    "paper_dice",
    "paper_overlap",
    "paper_exact",
)

# Where the answers of an analysis row come from, added at the end of the corpus and language-pull
# marts: `answers_from` 'own' (asked about the dataset's own dish) or 'linked' (asked about a linked
# record of `answer_dataset`, marts.linked_origin_answers), and `gold`, the dataset whose gold scored them.
LINKED_COLUMNS = ("answers_from", "answer_dataset", "gold")

# The marts in build order (the same `Registry` form as every pluggable kind, keyed by file name without its suffix):
# adding a mart = its file + one `Mart(...)` entry here.
MARTS: Registry[Mart] = Registry("mart", ordered=True)
for _mart in (
    Mart(
        "010_dishes.sql",
        exports={"dishes": "marts.dishes"},
        columns={
            "marts.dishes": (
                "dataset",
                "lang",
                "dish_id",
                "name",
                "origins",
                "source",
                "display_name",
                "dish_key",
                "n_origins",
                "names_ru",
                "names_uk",
                "names_en",
                "description",
                "category",
                "n_images",
                "first_image_url",
                "is_sample",
            ),
        },
    ),
    Mart(
        "020_composition.sql",
        columns={
            "marts.dataset_summary": (
                "dataset",
                "title",
                "is_sample",
                "home",
                "n_dishes",
                "n_origin_countries",
                "n_items",
                "n_generations",
                "n_models",
                "subset",
            ),
            "marts.dishes_per_origin": (
                "dataset",
                "lang",
                "country",
                "country_name",
                "alpha3",
                "post_soviet",
                "n_dishes",
                "n_shared_dishes",
            ),
            "marts.dishes_per_source": ("dataset", "lang", "source", "n_dishes"),
            "marts.ingest_report": ("dataset", "file", "kind", "severity", "n", "first_line", "example"),
            "marts.answers_per_model": ("dataset", "task_id", "model_id", "lang", "n_answers", "n_empty"),
            "marts.published": ("published_at", "schema_version"),
        },
    ),
    Mart(
        "030_origin_scores.sql",
        exports={"origin-scores": "marts.origin_scores"},
        columns={
            "marts.origin_scores": ORIGIN_SCORE_COLUMNS,
            "marts.extraction_status": ("dataset", "model", "task", "lang", "status", "n", "share"),
        },
    ),
    Mart(
        "035_linked_origin_answers.sql",
        columns={
            "marts.linked_origin_answers": (
                "dish_key",
                "dataset",
                "answer_dish_key",
                "answer_dataset",
                "via",
                "link_score",
                "task",
                "model",
                "lang",
                "item_id",
                "variant",
                "generation_id",
                "status",
                "predicted",
                "dish_gold",
                "answer_gold",
                "jaccard_dish_gold",
                "jaccard_answer_gold",
                "accuracy_dish_gold",
                "accuracy_answer_gold",
            ),
        },
    ),
    Mart(
        "leaderboard.py",
        build=leaderboard.build,
        columns={
            "marts.leaderboard": (
                "dataset",
                "task",
                "model",
                "lang",
                "n",
                "jaccard",
                "jaccard_low",
                "jaccard_high",
                "accuracy",
                "accuracy_low",
                "accuracy_high",
                "no_country_share",
                "n_uk_nation",
                "uk_nation_match",
                "uk_nation_match_low",
                "uk_nation_match_high",
            ),
        },
    ),
    Mart(
        "accuracy.py",
        exports={"accuracy": "marts.accuracy", "choice-scores": "marts.choice_scores"},
        build=accuracy.build,
        columns={
            "marts.accuracy": ("method", "dataset", "model", "task", "lang", "n", "accuracy"),
            "marts.choice_scores": (
                "dataset",
                "model",
                "task",
                "lang",
                "item_id",
                "gold_choice",
                "parsed_choice",
                "status",
                "correct",
            ),
        },
    ),
    Mart(
        "language_gap.py",
        exports={"language-gap": "marts.language_gap"},
        build=language_gap.build,
        columns={
            "marts.language_gap": tuple(language_gap.SCHEMA),
            "marts.language_gap_items": tuple(language_gap.ITEM_SCHEMA),
        },
    ),
    Mart(
        "046_language_switching.sql",
        exports={"language-switching": "marts.language_switching"},
        columns={
            "marts.language_switching": (
                "dataset",
                "model",
                "task",
                "lang",
                "item_id",
                "answer_lang",
                "switched",
                "segments",
            ),
            "marts.language_switching_summary": ("dataset", "task", "model", "lang", "prompt_lang", "n"),
        },
    ),
    Mart(
        "method_audit.py",
        build=method_audit.build,
        columns={
            "marts.method_disagreements": ("dataset", "task", "model", "lang", "item_id"),
            "marts.method_audit": ("dataset", "task", "model", "lang", "n", "paper_accuracy", "atlas_accuracy"),
            "marts.method_gold_checks": ("dataset", "task", "lang", "n_items"),
        },
    ),
    Mart(
        "045_uacuisine_classes.sql",
        columns={"marts.uacuisine_classes": ("dataset", "task", "model", "lang", "class", "precision", "recall")},
    ),
    Mart(
        "130_uacuisine_table4.sql",
        exports={"uacuisine-table4": "marts.uacuisine_table4"},
        columns={
            "marts.uacuisine_table4": (
                "model",
                "lang",
                "bertscore",
                "em",
                "im",
                "bertscore_model",
                "em_atlas",
                "im_atlas",
                "em_identification",
                "em_taste",
                "em_temperature",
                "n_recipes",
                "n_em",
                "n_ingredients",
            ),
        },
    ),
    Mart(
        "050_countries.sql",
        columns={
            "marts.answer_pairs": (
                "dataset",
                "task",
                "model",
                "lang",
                "true_country",
                "predicted_country",
                "item_id",
                "dish_key",
                "generation_id",
                "gold",
                "predicted",
                "status",
                "jaccard",
                "response",
                "paper_hit",
                "origins",
                "confusion_label",
            ),
            "marts.confusion": (
                "dataset",
                "task",
                "model",
                "lang",
                "true_country",
                "predicted_country",
                "n",
                "confusion_label",
            ),
            "marts.country_recall": (
                "dataset",
                "task",
                "model",
                "lang",
                "country",
                "country_name",
                "n_answers",
                "n_hits",
                "recall",
            ),
            "marts.country_overprediction": (
                "dataset",
                "task",
                "model",
                "lang",
                "country",
                "country_name",
                "n_wrong",
                "n_answers",
                "share",
            ),
            "marts.country_shapes": ("country", "name_en", "post_soviet", "geojson", "lon", "lat"),
        },
    ),
    Mart(
        "map_outlines.py",
        build=map_outlines.build,
        columns={"marts.map_outlines": ("country", "polygons")},
    ),
    Mart(
        "060_language_pull.sql",
        columns={
            "marts.language_pull": (
                "dataset",
                "task",
                "model",
                "lang",
                "language",
                "n_wrong",
                "n_pulled",
                "pull_share",
                "base_share",
                "language_countries",
                *LINKED_COLUMNS,
            ),
            "marts.ru_ua_pull": (
                "dataset",
                "task",
                "model",
                "lang",
                "n_answers",
                "n_ru",
                "n_ua",
                "ru_share",
                *LINKED_COLUMNS,
            ),
        },
    ),
    Mart(
        "070_dish_pages.sql",
        columns={
            "marts.dish_names": ("dish_key", "lang", "name", "display_name", "is_primary"),
            "marts.dish_images": ("dish_key", "position", "url", "license"),
            "marts.answer_spans": ("generation_id", "span_start", "span_end", "text", "country", "region", "negated"),
            "marts.dish_answers": ORIGIN_SCORE_COLUMNS,
        },
    ),
    Mart(
        "080_corpus_exports.sql",
        exports={"cooccurrence": "marts.cooccurrence", "codemix": "marts.codemix"},
        columns={
            "marts.cooccurrence": (
                "lang",
                "dataset",
                "dish_id",
                "name",
                "docs_with_dish",
                "docs_with_true_country",
                "docs_with_any_country",
                "dish_key",
                "corpus_id",
                "ratio",
                "display_name",
                "origins",
                "corpus_docs",
            ),
            "marts.codemix": (
                "dish_id",
                "uk_name",
                "ru_name",
                "docs_uk_name",
                "docs_ru_name",
                "pair_id",
                "lang",
                "corpus_id",
                "difference",
                "identical_names",
                "uk_dish_key",
                "ru_dish_key",
                "origins",
            ),
        },
    ),
    Mart(
        "085_dish_identity.sql",
        exports={"name-scores": "marts.name_scores", "dish-links": "marts.dish_links"},
        columns={
            "marts.dish_links": ("dish_key", "linked_dish_key", "method", "score", "dataset", "linked_dataset"),
            "marts.dish_origin_disagreements": (
                "dish_key",
                "linked_dish_key",
                "dataset",
                "linked_dataset",
                "display_name",
                "linked_display_name",
                "method",
                "score",
                "origins",
                "linked_origins",
                "only_here",
                "only_linked",
                "shared",
            ),
            # the `export name-scores` contract, then what the pages and the corpus analyses read
            "marts.name_scores": (
                "dataset",
                "model",
                "task",
                "lang",
                "item_id",
                "gold",
                "prediction",
                "matched_name",
                "named_dish_key",
                "exact",
                "lev1",
                "stem",
                "similarity",
                "paper",
                "status",
                "dish_key",
                "dish_name",
                "named_dish_name",
                "named_name",
                "matched_lang",
                "matched_rule",
                "candidates",
                "similarity_ok",
                "name_match",
                "variant",
            ),
            "marts.name_accuracy": ("dataset", "task", "model", "lang", "rule", "n", "correct", "accuracy"),
            "marts.name_confusions": (
                "dataset",
                "task",
                "model",
                "lang",
                "dish_key",
                "dish_name",
                "named_dish_key",
                "named_dish_name",
                "n",
                "example_answer",
                "image_url",
                "named_image_url",
            ),
            "marts.linked_answers": (
                "dish_key",
                "answer_dish_key",
                "via",
                "link_score",
                "dataset",
                "task",
                "model",
                "lang",
                "variant",
                "item_id",
                "kind",
                "answer_gold",
                "prediction",
                "response",
                "status",
                "score_own_gold",
                "generation_id",
                "score_dish_gold",
                "dish_gold",
            ),
        },
    ),
    Mart(
        "090_corpus_analyses.sql",
        columns={
            "marts.cooccurrence_dishes": (
                "corpus_id",
                "corpus_lang",
                "dish_key",
                "dataset",
                "name",
                "origins",
                "docs_with_dish",
                "docs_with_true_country",
                "docs_with_any_country",
                "ratio",
                "log_count",
                "max_log_count",
                "count_bin",
                "ratio_bin",
                "true_country_mentions",  # issue 35: BORSch §4.3's ratio by mentions, log-spaced bins
                "any_country_mentions",
                "mention_ratio",
                "min_log_mention_ratio",
                "mention_ratio_bin",
            ),
            "marts.cooccurrence_bins": (
                "corpus_id",
                "corpus_lang",
                "measure",
                "bin",
                "bin_low",
                "bin_high",
                "dataset",
                "task",
                "model",
                "lang",
                "n_dishes",
                "n_answers",
                "jaccard",
                "jaccard_low",
                "jaccard_high",
                "jaccard_sum",
                "jaccard_sumsq",
                "dishes",
                *LINKED_COLUMNS,
            ),
            "marts.codemix_pairs": (
                "corpus_id",
                "corpus_lang",
                "pair_id",
                "dataset",
                "ru_dish_key",
                "uk_dish_key",
                "ru_name",
                "uk_name",
                "origins",
                "docs_uk_name",
                "docs_ru_name",
                "d",
                "y",
                "max_abs_y",
                "bin",
                "y_low",
                "y_high",
                "d_low",
                "d_high",
            ),
            "marts.codemix_excluded": (
                "corpus_id",
                "corpus_lang",
                "n_parallel",
                "n_identical",
                "n_binned",
                "n_not_counted",
            ),
            "marts.codemix_bins": (
                "corpus_id",
                "corpus_lang",
                "metric",
                "bin",
                "d_low",
                "d_high",
                "dataset",
                "task",
                "model",
                "lang",
                "n_pairs",
                "n_answers",
                "mean",
                "mean_low",
                "mean_high",
                "value_sum",
                "value_sumsq",
                "dishes",
                *LINKED_COLUMNS,
            ),
            "marts.corpus_samples": (
                "sample_id",
                "corpus_id",
                "lang",
                "dish_key",
                "dataset",
                "name",
                "country",
                "country_name",
                "origins",
                "sentence",
                "shard_path",
                "doc_index",
            ),
            "marts.corpora": (
                "corpus_id",
                "lang",
                "source",
                "text_field",
                "n_docs",
                "n_bytes",
                "n_shards",
                "n_corrupt_shards",
                "n_dishes_counted",
                "datasets",
                "n_pairs_binned",
                "n_samples",
            ),
        },
    ),
    Mart(
        "culturemix.py",
        exports={"culturemix": "marts.culturemix_answers"},
        build=culturemix.build,
        columns={
            "marts.culturemix_answers": (*culturemix.CONTRACT, "generation_id", "food_similarity"),
            "marts.culturemix_entropy": tuple(culturemix.ENTROPY_SCHEMA),
            "marts.culturemix_images": ("image", "image_id", "origin", "subset", "subtask"),
            "marts.culturemix_sources": ("model", "backend", "n_answers", "n_images", "prompts", "is_test_model"),
        },
    ),
    # CultureMix's analyses as published (issue 37): Fig. 3a/5/8/9/17/19, Tables 2, 6-11
    Mart(
        "140_culturemix_analyses.sql",
        columns={
            "marts.culturemix_cells": (
                "analysis",
                "model",
                "prompt",
                "subtask",
                "cell",
                "n_answers",
                "n_foods",
                "country_accuracy",
                "food_accuracy",
                "country_entropy",
                "food_entropy",
                "country_entropy_across_images",
                "food_entropy_across_images",
                "samples_per_image",
            ),
            "marts.culturemix_transitions": (
                "model",
                "prompt",
                "subtask",
                "measure",
                "sf_correct",
                "mixed_correct",
                "n_answers",
                "share",
                "cell",
            ),
            "marts.culturemix_cell_answers": (
                "analysis",
                "model",
                "prompt",
                "subtask",
                "cell",
                "generation_id",
                "image",
            ),
            "marts.culturemix_pairs": (
                "analysis",
                "model",
                "prompt",
                "subtask",
                "variant",
                "n_pairs",
                "country_consistency",
                "food_consistency",
                "original_country_accuracy",
                "variant_country_accuracy",
                "original_food_accuracy",
                "variant_food_accuracy",
            ),
            "marts.culturemix_combinations": ("target_country", "distractor_country", "n_images", "n_foods"),
        },
    ),
    Mart(
        "culturemix_mitigation.py",
        build=culturemix_mitigation.build,
        columns={"marts.culturemix_mitigation": tuple(culturemix_mitigation.SCHEMA)},
    ),
    Mart(
        "100_imagined.sql",
        exports={"imagined": "marts.imagined"},
        columns={
            "marts.imagined": (
                "model",
                "dataset",
                "dish_id",
                "description",
                "translation",
                "image",
                "generator",
                "seed",
                "encoder",
                "intra_cosine",
                "inter_cosine",
                "qa_jaccard",
            ),
            "marts.imagined_real_images": ("dish_key", "image_id", "image", "position"),
            "marts.imagined_models": ("model", "role", "tiny_random"),
        },
    ),
    Mart(
        "imagined_correlations.py",
        build=imagined_correlations.build,
        columns={"marts.imagined_correlations": tuple(imagined_correlations.SCHEMA)},
    ),
    Mart(
        "120_zno.sql",
        exports={"zno-accuracy": "marts.zno_accuracy"},
        columns={
            "marts.zno_answers": ("model", "split", "subject", "item_id", "year", "question", "gold_letter"),
            "marts.zno_accuracy": ("method", "model", "split", "subject", "n", "correct", "accuracy", "low", "high"),
            "marts.zno_baselines": ("split", "subject", "n", "first_choice", "random"),
            "marts.zno_questions": ("split", "subject", "year", "n"),
            "marts.zno_visual_only": ("grouped_by", "name", "n", "n_flagged", "n_visual_only", "share_visual_only"),
        },
    ),
    Mart(
        "captions.py",
        exports={"captions": "marts.caption_scores"},
        build=captions.build,
        columns={
            "marts.caption_answers": ("model", "split", "lang", "item_id", "reference", "response", "caption_bleu"),
            "marts.caption_scores": tuple(captions.SCHEMA),
        },
    ),
    Mart(
        "121_vqa.sql",
        exports={"vqa-languages": "marts.vqa_languages"},
        columns={
            "marts.vqa_answers": ("model", "lang", "question_id", "answer_type", "question", "response"),
            "marts.vqa_languages": ("model", "n_uk", "vqa_uk", "n_en", "vqa_en", "gap"),
        },
    ),
    Mart(  # issue 35: BORSch §4.2's surzhyk statistics
        "110_surzhyk.sql",
        columns={
            "marts.surzhyk_names": ("dataset", "n_pairs", "n_distinct_names", "share_distinct_names"),
            "marts.surzhyk_corpora": ("corpus_id", "corpus_lang", "n_pairs", "docs_own_name", "docs_other_name"),
        },
    ),
    Mart(  # issue 35: BORSch Table 4 (Appendix J.2), every correlation x metric x QA/VQA cell
        "borsch_table4.py",
        build=borsch_table4.build,
        columns={"marts.imagined_table4": tuple(borsch_table4.SCHEMA)},
    ),
    Mart(  # issue 48: BORSch's human evaluation (§5 Table 3, Fig. 15; §3.2 Cohen's kappa) from imported ratings
        "borsch_human_eval.py",
        build=borsch_human_eval.build,
        columns={
            "marts.borsch_human_ratings": ("model", "lang", "encoder", "dish_id", "dish_name", "rating", "cosine"),
            "marts.borsch_table3": tuple(borsch_human_eval.TABLE3_SCHEMA),
            "marts.borsch_table3_published": ("correlation", "column", "value"),
            "marts.human_agreement": tuple(borsch_human_eval.AGREEMENT_SCHEMA),
        },
    ),
    Mart(  # issue 35: BORSch Figs. 2b, 11, 12, 14 and Table 2
        "111_borsch_figures.sql",
        columns={
            "marts.borsch_origins": ("lang", "found_by", "parallel", "country", "country_name", "post_soviet"),
            "marts.borsch_wrong_predictions": ("model", "task", "lang", "method", "country", "country_name"),
            "marts.borsch_vqa_name_gain": ("model", "lang", "dish_key", "dish_name", "vqa_jaccard"),
            "marts.borsch_name_accuracy_by_origin": ("model", "lang", "country", "country_name", "n_answers"),
        },
    ),
    Mart(  # issue 35: BORSch §5's real-photo reference (intra vs inter dish among real photos)
        "112_imagined_reference.sql",
        columns={
            "marts.imagined_reference_photos": ("dataset", "lang", "encoder", "dish_key", "dish_id", "display_name"),
            "marts.imagined_reference": ("dataset", "lang", "encoder", "n_dishes", "n_photos", "intra_mean"),
        },
    ),
    Mart(  # issue 48: BORSch §2, the share of BORSch's Russian and Ukrainian dishes WorldCuisines covers
        "116_borsch_worldcuisines_coverage.sql",
        columns={"marts.borsch_worldcuisines_coverage": ("scope", "n_dishes", "n_covered", "share")},
    ),
    Mart(  # issue 35: BORSch Table 4 as the paper prints it, beside ours (marts.imagined_table4)
        "115_borsch_table4_published.sql",
        columns={"marts.imagined_table4_published": ("setup", "metric", "correlation", "paper_model", "lang", "value")},
    ),
    Mart(  # issue 35: the photos an image question showed, generated or imported answers alike
        "114_answer_photos.sql",
        columns={"marts.answer_photos": ("dish_key", "item_id", "task", "position", "image_id", "image", "url")},
    ),
    Mart(  # issue 35: BORSch Fig. 8, the imagined-vs-real cosine by origin region of the dish
        "113_imagined_regions.sql",
        columns={
            "marts.imagined_region_dishes": ("model", "dataset", "lang", "encoder", "region", "dish_key", "dish_id"),
            "marts.imagined_regions": ("model", "dataset", "lang", "encoder", "region", "n_dishes", "n_images"),
        },
    ),
    Mart(
        "150_finetune.sql",
        columns={
            "marts.finetune_runs": (
                "finetune_id",
                "recipe",
                "source",
                "base_model",
                "method",
                "learning_rate",
                "batch_size",
                "gradient_accumulation",
                "optimizer",
                "epochs",
                "n_train",
                "n_test",
            ),
            "marts.finetune_losses": ("finetune_id", "step", "epoch", "loss"),
            "marts.finetune_models": ("finetune_id", "epoch", "model_path", "weights_hash"),
            "marts.finetune_comparison": (
                "finetune_id",
                "recipe",
                "source",
                "base_model",
                "epoch",
                "tuned_model",
                "task",
                "lang",
                "metric",
                "n_test_items",
                "n_before",
                "before",
                "n_after",
                "after",
                "n_pairs",
                "before_paired",
                "after_paired",
                "change",
            ),
        },
    ),
    Mart("160_answer_sheets.sql", columns={"marts.answer_sheets": ("dataset", "source_ref", "lang")}),
):
    MARTS.add(Path(_mart.file).stem, _mart)


# Every export, declared beside the mart that builds its table: `export NAME` writes the table, contract columns
# first (pipeline/export/tables.py).
EXPORTS: Registry[str] = Registry("export")
for _mart in MARTS.values():
    for _name, _table in _mart.exports.items():
        EXPORTS.add(_name, _table)


def export_contract(name: str) -> tuple[str, ...]:
    """The columns `export NAME` guarantees, in order: its table's contract."""
    table = EXPORTS[name]
    return next(mart.columns[table] for mart in MARTS.values() if table in mart.columns)
