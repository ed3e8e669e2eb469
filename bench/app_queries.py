"""Dashboard query speed on a synthetic warehouse of millions of scored answers.

Builds a synthetic warehouse (default 5,000,000 scored answers: 40 models x 25 prompt languages x
5,000 items about 1,000 dishes) directly in DuckDB SQL into the *core* tables, publishes it with
`Warehouse.publish()` so the real marts are built (and timed), then times every query function each
dashboard page calls, warm, median of 5 runs, against the same result computed by a naive pandas pass
over the raw rows (the needed core tables are loaded into pandas once, outside the timing; each naive
run then joins, pivots and groups the raw rows as a script without marts would).

Target per page query: <= 200 ms and >= 10x faster than the naive pass.

    .venv/bin/python bench/app_queries.py                 # 5M answers, temporary directory
    .venv/bin/python bench/app_queries.py --answers 1000000 --keep /tmp/synth

The data: countries follow a skewed (Zipf-like) distribution over ~150 countries; each dish has one
origin country (one in ten has two; one in fifty is from both Russia and Ukraine); a model names the
gold country with a probability that grows with the model's rank, else a popular country or (one time
in six) a country where the prompt language is spoken; statuses ok / no_country / refusal / empty.
Random numbers come from `hash()` of the row number, so a given size always gives the same warehouse.
"""

from __future__ import annotations

import argparse
import gc
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pipeline.reference.countries import country_table, language_countries  # noqa: E402
from pipeline.reference.geo import country_shapes  # noqa: E402
from warehouse.db import Warehouse  # noqa: E402
from warehouse.io import insert  # noqa: E402
from warehouse.queries import confusion, dish, geo, language  # noqa: E402
from warehouse.queries.answers import Filters, leaderboard  # noqa: E402

DATASET, TASK = "synthetic", "origin_qa"
TASK_ID = f"{DATASET}.{TASK}"
N_MODELS, N_LANGS, N_DISHES = 40, 25, 1_000
TARGET_MS, TARGET_RATIO = 200.0, 10.0

# 25 WorldCuisines prompt-language codes and a country where each is spoken (the "pull" target).
LANGS = {
    "en": "US", "ru_formal": "RU", "ru_casual": "RU", "zh_cn": "CN", "ja_formal": "JP", "ko_formal": "KR",
    "es": "ES", "fr": "FR", "it": "IT", "ar": "SA", "hi": "IN", "id_formal": "ID", "th": "TH", "yue": "HK",
    "cs": "CZ", "bn": "BD", "mr": "IN", "az": "AZ", "tl": "PH", "yo": "NG", "sc": "IT", "jv_krama": "ID",
    "su_loma": "ID", "si_formal_spoken": "LK", "nan": "TW",
}  # fmt: skip
# Where dishes (and wrong guesses) most often come from, most first; the other countries follow.
POPULAR = (
    "IT", "FR", "CN", "JP", "IN", "MX", "US", "TH", "ES", "TR", "KR", "GR", "VN", "ID", "RU", "UA", "DE", "LB",
    "PE", "MA", "GB", "BR", "PH", "MY", "IR", "PL", "HU", "AR", "ET", "NG", "PT", "GE", "UZ", "PK", "SE",
)  # fmt: skip
N_COUNTRIES = 150


def log(message: str) -> None:
    print(message, flush=True)


# --------------------------------------------------------------------------------------------
# The synthetic warehouse
# --------------------------------------------------------------------------------------------


def build(path: Path, n_answers: int) -> dict:
    """Write the synthetic core tables into the working database of `path`; returns the sizes."""
    n_items = max(1, n_answers // (N_MODELS * N_LANGS))
    n = n_items * N_MODELS * N_LANGS
    n_dishes = min(N_DISHES, n_items)
    with Warehouse(path).writer() as con:
        con.execute("SET preserve_insertion_order = false")
        insert(con, "core.countries", country_table())
        insert(con, "core.country_shapes", country_shapes())
        insert(con, "core.language_countries", language_countries())
        insert(
            con,
            "core.datasets",
            [{"dataset": DATASET, "title": "Synthetic answers (bench/app_queries.py)", "home": "synthetic",
              "license": "CC0", "is_sample": False}],
        )  # fmt: skip
        con.execute(
            "INSERT INTO core.tasks VALUES (?, ?, 'text', 'countries', 'countries', "
            "['jaccard', 'dice', 'overlap', 'accuracy'], 'synthetic origin question')",
            [TASK_ID, DATASET],
        )
        # Country popularity: the POPULAR list first, then other countries with an outline, Zipf weights
        # spread over 20,000 numbered slots so that picking a country is one join on the slot number.
        con.execute(
            """
            CREATE TEMP TABLE ranked AS
            WITH candidates AS (
                SELECT s.country, list_position($popular, s.country) AS pos
                FROM core.country_shapes s JOIN core.countries c USING (country)
            )
            SELECT country, row_number() OVER (ORDER BY pos NULLS LAST, hash(country)) AS rank
            FROM candidates QUALIFY rank <= $n_countries
            """,
            {"popular": list(POPULAR), "n_countries": N_COUNTRIES},
        )
        con.execute(
            """
            CREATE TEMP TABLE slots AS
            WITH w AS (SELECT country, rank, 1 / pow(rank, 1.1) AS weight FROM ranked),
                 c AS (SELECT country, rank, greatest(1, round(20000 * weight / sum(weight) OVER ()))::INT AS k FROM w)
            SELECT (row_number() OVER (ORDER BY rank) - 1)::BIGINT AS slot, country FROM c, range(k)
            """
        )
        con.execute(
            "CREATE TEMP TABLE langs AS SELECT unnest($langs) AS lang, unnest($homes) AS home, "
            "generate_subscripts($langs, 1) - 1 AS lang_idx",
            {"langs": list(LANGS), "homes": list(LANGS.values())},
        )
        con.execute(
            """CREATE MACRO u(i, salt) AS (hash(i, salt) % 1000003) / 1000003.0;
               """
        )
        n_slots = con.execute("SELECT count(*) FROM slots").fetchone()[0]
        con.execute(f"CREATE MACRO slot(x) AS floor(x * {n_slots})::BIGINT")
        t0 = time.perf_counter()
        con.execute(
            """
            CREATE TEMP TABLE dish_gold AS
            SELECT d, CASE WHEN d % 50 = 7 THEN ['RU', 'UA']
                           WHEN u(d, 'two') < 0.1 AND a.country <> b.country THEN [a.country, b.country]
                           ELSE [a.country] END AS gold
            FROM range($n_dishes) r(d)
            JOIN slots a ON a.slot = slot(u(d, 'g1')) JOIN slots b ON b.slot = slot(u(d, 'g2'))
            """,
            {"n_dishes": n_dishes},
        )
        con.execute(
            """
            INSERT INTO core.dishes (dish_key, dataset, lang, dish_id, name, display_name, source)
            SELECT 'synthetic:en:' || d, 'synthetic', 'en', d::VARCHAR, 'dish ' || d, 'Dish ' || d, 'synthetic'
            FROM dish_gold;
            INSERT INTO core.dish_origins SELECT 'synthetic:en:' || d, unnest(gold), generate_subscripts(gold, 1)
            FROM dish_gold;
            INSERT INTO core.dish_names
            SELECT 'synthetic:en:' || d, 'en', 'dish ' || d, 'Dish ' || d, 'dish ' || d, true FROM dish_gold;
            """
        )
        con.execute(
            """
            INSERT INTO core.ingested_items (item_id, task_id, dish_key, source_ref, subset, variant)
            SELECT $task_id || ':' || i, $task_id, 'synthetic:en:' || (i % $n_dishes), i::VARCHAR, 'full',
                   (i % 5)::VARCHAR
            FROM range($n_items) r(i)
            """,
            {"task_id": TASK_ID, "n_items": n_items, "n_dishes": n_dishes},
        )
        con.execute(
            """
            INSERT INTO core.item_gold_countries
            SELECT $task_id || ':' || i, unnest(g.gold)
            FROM range($n_items) r(i) JOIN dish_gold g ON g.d = i % $n_dishes
            """,
            {"task_id": TASK_ID, "n_items": n_items, "n_dishes": n_dishes},
        )
        con.execute(
            "INSERT INTO core.models (model_id, display_name, backend, is_vision) "
            "SELECT 'model-' || lpad(m::VARCHAR, 2, '0'), 'Model ' || m, 'replay', false FROM range($m) r(m)",
            {"m": N_MODELS},
        )
        # One row per answer, in model, language, item order (as imports write them).
        con.execute(
            """
            CREATE TEMP TABLE answers AS
            WITH base AS (
                SELECT i, i % $n_items AS item, (i // $n_items) % $n_langs AS lang_idx, i // ($n_items * $n_langs) AS m
                FROM range($n) r(i)
            ), drawn AS (
                SELECT b.*, l.lang, l.home, g.gold,
                       CASE WHEN u(i, 's') < 0.01 THEN 'empty' WHEN u(i, 's') < 0.03 THEN 'refusal'
                            WHEN u(i, 's') < 0.10 THEN 'no_country' ELSE 'ok' END AS status,
                       0.25 + 0.55 * m / ($n_models - 1) - CASE WHEN lang_idx % 5 = 3 THEN 0.1 ELSE 0 END AS p_right,
                       CASE WHEN u(i, 'n') < 0.7 THEN 1 WHEN u(i, 'n') < 0.9 THEN 2 ELSE 3 END AS n_named
                FROM base b JOIN langs l USING (lang_idx) JOIN dish_gold g ON g.d = b.item % $n_dishes
            ), named AS (
                SELECT d.*,
                       CASE WHEN u(i, 'r') < p_right THEN gold[(1 + hash(i, 'w') % len(gold))::BIGINT]
                            WHEN u(i, 'p') < 0.17 THEN home ELSE a.country END AS c1,
                       b.country AS c2, c.country AS c3
                FROM drawn d
                JOIN slots a ON a.slot = slot(u(i, 'c1'))
                JOIN slots b ON b.slot = slot(u(i, 'c2'))
                JOIN slots c ON c.slot = slot(u(i, 'c3'))
            ), countries AS (
                SELECT *,
                       CASE WHEN status <> 'ok' THEN []::VARCHAR[]
                            ELSE [c1] || CASE WHEN n_named >= 2 AND c2 <> c1 THEN [c2] ELSE [] END
                                      || CASE WHEN n_named >= 3 AND c3 NOT IN (c1, c2) THEN [c3] ELSE [] END
                       END AS predicted
                FROM named
            )
            SELECT md5('g' || i) AS generation_id, 'model-' || lpad(m::VARCHAR, 2, '0') AS model_id,
                   $task_id || ':' || item AS item_id, lang, (item % 5)::VARCHAR AS variant, status, predicted,
                   len(list_intersect(predicted, gold)) AS hit, len(predicted) AS n_pred, len(gold) AS n_gold,
                   CASE WHEN len(predicted) > 0 AND list_contains(gold, predicted[1]) THEN 1.0 ELSE 0.0 END AS accuracy,
                   CASE status WHEN 'empty' THEN NULL WHEN 'refusal' THEN 'I cannot say where this dish is from.'
                               WHEN 'no_country' THEN 'It is a popular street food, often eaten hot.'
                               ELSE 'This dish comes from ' || array_to_string(predicted, ', ') || '. It is well known '
                                    || 'there and often served at family meals.' END AS response
            FROM countries
            """,
            {"n": n, "n_items": n_items, "n_langs": N_LANGS, "n_models": N_MODELS, "n_dishes": n_dishes,
             "task_id": TASK_ID},
        )  # fmt: skip
        log(f"  answers drawn in {time.perf_counter() - t0:.1f} s")
        con.execute(
            "INSERT INTO core.generations (generation_id, run_id, model_id, item_id, lang, variant, response, origin) "
            "SELECT generation_id, 'synthetic', model_id, item_id, lang, variant, response, 'import' FROM answers"
        )
        log(f"  core.generations written in {time.perf_counter() - t0:.1f} s")
        con.execute(
            """
            INSERT INTO core.extractions (generation_id, extractor, status, countries, regions, dish_names)
            SELECT generation_id, 'countries@1', status, predicted, [], [] FROM answers
            """
        )
        log(f"  core.extractions written in {time.perf_counter() - t0:.1f} s")
        con.execute(  # the answers are English (the languages step's one table, which the marts join)
            """
            INSERT INTO core.answer_languages (generation_id, detector, prompt_lang, answer_lang, kind, switched,
                                               segments)
            SELECT generation_id, 'synthetic', lang, CASE WHEN response IS NULL THEN NULL ELSE 'en' END,
                   CASE WHEN response IS NULL THEN 'empty' WHEN lang = 'en' THEN 'prompt' ELSE 'other' END,
                   CASE WHEN response IS NULL THEN NULL ELSE lang <> 'en' END, '[]'
            FROM answers
            """
        )
        log(f"  core.answer_languages written in {time.perf_counter() - t0:.1f} s")
        con.execute(
            """
            INSERT INTO core.scores
            SELECT generation_id, unnest(['jaccard', 'dice', 'overlap', 'accuracy']),
                   unnest([hit / (n_pred + n_gold - hit), 2 * hit / (n_pred + n_gold),
                           CASE WHEN n_pred = 0 THEN 0 ELSE hit / least(n_pred, n_gold) END, accuracy])
            FROM answers
            """
        )
        log(f"  core.scores written in {time.perf_counter() - t0:.1f} s")
        con.execute("DROP TABLE answers")
    return {"answers": n, "items": n_items, "dishes": n_dishes}


# --------------------------------------------------------------------------------------------
# The naive pass: pandas over the raw core rows
# --------------------------------------------------------------------------------------------


def load_raw(path: Path) -> dict[str, pd.DataFrame]:
    """The core tables a script without marts would read, as pandas frames (loaded once, untimed)."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        raw = {
            "generations": con.sql(
                "SELECT generation_id, model_id, item_id, lang, variant, response FROM core.generations"
            ).df(),
            "extractions": con.sql("SELECT generation_id, status, countries FROM core.extractions").df(),
            "scores": con.sql("SELECT generation_id, metric, value FROM core.scores").df(),
            "items": con.sql("SELECT item_id, task_id, dish_key, source_ref FROM core.items").df(),
            "tasks": con.sql("SELECT task_id, dataset, answer_kind FROM core.tasks").df(),
            "gold": con.sql("SELECT item_id, country FROM core.item_gold_countries").df(),
            "countries": con.sql("SELECT country, name_en FROM core.countries").df(),
            "language_countries": con.sql("SELECT lang, country FROM core.language_countries").df(),
            "dish_origins": con.sql("SELECT dish_key, country FROM core.dish_origins").df(),
        }  # fmt: skip
    finally:
        con.close()
    return raw


def naive_answers(raw: dict[str, pd.DataFrame], filters: Filters) -> pd.DataFrame:
    """What marts.origin_scores holds, from the raw rows: generations x items x tasks x extractions
    x the four scores (pivoted) x the gold countries, filtered to the selection."""
    tasks = raw["tasks"].assign(task=lambda t: t["task_id"].str.split(".").str[1])
    tasks = tasks[(tasks["answer_kind"] == "countries") & (tasks["dataset"] == filters.dataset)]
    if filters.task:
        tasks = tasks[tasks["task"] == filters.task]
    frame = raw["generations"]
    if filters.models:
        frame = frame[frame["model_id"].isin(filters.models)]
    if filters.langs:
        frame = frame[frame["lang"].isin(filters.langs)]
    frame = frame.merge(raw["items"].merge(tasks, on="task_id"), on="item_id")
    frame = frame.merge(raw["extractions"], on="generation_id")
    scores = raw["scores"].pivot(index="generation_id", columns="metric", values="value")
    frame = frame.merge(scores, left_on="generation_id", right_index=True)
    gold = raw["gold"].sort_values("country").groupby("item_id")["country"].agg(list).rename("gold_list")
    frame = frame.merge(gold, left_on="item_id", right_index=True, how="left")
    return frame.rename(columns={"model_id": "model", "item_id": "item_key", "source_ref": "item_id"})


def naive_pairs(answers: pd.DataFrame) -> pd.DataFrame:
    """One row per (answer, gold country) with the matrix label, as marts.answer_pairs."""
    pairs = answers[["generation_id", "model", "lang", "item_id", "dish_key", "countries", "gold_list"]].explode(
        "gold_list"
    )
    pairs = pairs.rename(columns={"gold_list": "true_country"})
    hits = named_countries(answers).rename(columns={"country": "true_country"}).assign(hit=True)
    pairs = pairs.merge(hits, on=["generation_id", "true_country"], how="left")
    first = pairs["countries"].str[0].fillna("-")
    return pairs.assign(predicted_country=pairs["true_country"].where(pairs["hit"].notna(), first))


def named_countries(answers: pd.DataFrame) -> pd.DataFrame:
    """One row per (answer, country it named)."""
    named = answers[["generation_id", "countries"]].explode("countries").dropna(subset=["countries"])
    return named.rename(columns={"countries": "country"}).drop_duplicates()


def gold_flags(answers: pd.DataFrame, named: pd.DataFrame, gold: pd.DataFrame) -> pd.Series:
    """For each (answer, named country) row: is the country among the answer's gold countries?"""
    keyed = named.merge(answers[["generation_id", "item_key"]], on="generation_id")
    keyed = keyed.merge(gold.rename(columns={"item_id": "item_key"}).assign(in_gold=True), on=["item_key", "country"],
                        how="left")  # fmt: skip
    return keyed


def naive_leaderboard(raw, filters):
    a = naive_answers(raw, filters)
    a = a.assign(no_country=(a["status"] == "no_country").astype(float))
    agg = {"n": ("generation_id", "size"), "jaccard": ("jaccard", "mean"), "accuracy": ("accuracy", "mean"),
           "no_country_share": ("no_country", "mean")}  # fmt: skip
    per_lang = a.groupby(["model", "lang"]).agg(**agg).reset_index()
    pooled = a.groupby("model").agg(**agg).reset_index().assign(lang="*")
    return pd.concat([per_lang, pooled]).sort_values("jaccard", ascending=False)


def naive_recall(raw, filters):
    pairs = naive_pairs(naive_answers(raw, filters))
    pairs["hit"] = pairs["predicted_country"] == pairs["true_country"]
    out = pairs.groupby("true_country").agg(n_answers=("hit", "size"), n_hits=("hit", "sum")).reset_index()
    out["recall"] = out["n_hits"] / out["n_answers"]
    return out.merge(raw["countries"], left_on="true_country", right_on="country", how="left")


def naive_overprediction(raw, filters):
    a = naive_answers(raw, filters)
    named = gold_flags(a, named_countries(a), raw["gold"])
    out = named[named["in_gold"].isna()].groupby("country").size().rename("n_wrong").reset_index()
    out["share"] = out["n_wrong"] / len(a)
    return out.sort_values("n_wrong", ascending=False)


def naive_arcs(raw, filters, top=geo.DEFAULT_ARCS):
    pairs = naive_pairs(naive_answers(raw, filters))
    pairs = pairs[(pairs["predicted_country"] != pairs["true_country"]) & (pairs["predicted_country"] != "-")]
    out = pairs.groupby(["true_country", "predicted_country"]).size().rename("n").reset_index()
    return out.sort_values(["n", "true_country", "predicted_country"], ascending=[False, True, True]).head(top)


def naive_country_answers(raw, filters, country, limit=2_000):
    a = naive_answers(raw, filters)
    a = a[a["item_key"].isin(raw["gold"].loc[raw["gold"]["country"] == country, "item_id"])]
    a = a.assign(order=pd.to_numeric(a["item_id"], errors="coerce"), n_total=len(a))
    return a.sort_values(["order", "item_id", "model", "lang"]).head(limit)


def naive_confusion_countries(raw, filters):
    pairs = naive_pairs(naive_answers(raw, filters))
    true = pairs.groupby("true_country").size().rename("n_answers")
    named = pairs[pairs["predicted_country"] != "-"].groupby("predicted_country").size().rename("n_predicted")
    return pd.concat([true, named], axis=1).fillna(0).sort_values(["n_answers", "n_predicted"], ascending=False)


def naive_matrix(raw, filters, chosen):
    pairs = naive_pairs(naive_answers(raw, filters))
    pairs = pairs[pairs["true_country"].isin(chosen)]
    label = pairs["predicted_country"].where(pairs["predicted_country"].isin(chosen), confusion.OTHER)
    label = label.where(pairs["predicted_country"] != "-", confusion.NONE)
    out = pairs.assign(predicted=label).groupby(["true_country", "predicted"]).size().rename("n").reset_index()
    out["row_n"] = out.groupby("true_country")["n"].transform("sum")
    out["share"] = out["n"] / out["row_n"]
    return out


def naive_cell(raw, filters, true_country, predicted, chosen, limit=confusion.CELL_LIMIT):
    pairs = naive_pairs(naive_answers(raw, filters))
    cell = pairs[(pairs["true_country"] == true_country) & (pairs["predicted_country"] == predicted)]
    return cell.sort_values(["model", "lang", "item_id"]).head(limit)


def naive_language_pull(raw, filters):
    a = naive_answers(raw, filters)
    wrong = a[(a["status"] == "ok") & (a["accuracy"] == 0)]
    langs = pd.DataFrame({"lang": wrong["lang"].unique()})
    langs["language"] = langs["lang"].str.split("_").str[0]
    langs.loc[langs["lang"] == "zh_cn", "language"] = "zh"
    langs.loc[langs["lang"] == "tl", "language"] = "fil"
    spoken = langs.merge(raw["language_countries"].rename(columns={"lang": "language"}), on="language")
    named = named_countries(wrong).merge(wrong[["generation_id", "lang"]], on="generation_id")
    per_lang = wrong.groupby("lang").size().rename("n_wrong").to_frame()
    hits = named.merge(spoken, on=["lang", "country"]).drop_duplicates("generation_id")
    per_lang["n_pulled"] = hits.groupby("lang").size()
    english = named[named["lang"] == "en"].drop(columns="lang")
    base = english.merge(spoken[["language", "country"]], on="country").drop_duplicates(["generation_id", "language"])
    base = base.groupby("language").size().rename("n_base")
    out = per_lang.fillna(0).reset_index().merge(langs, on="lang").merge(base, on="language", how="left")
    out["pull_share"] = out["n_pulled"] / out["n_wrong"]
    out["base_share"] = out["n_base"].fillna(0) / per_lang.loc["en", "n_wrong"] if "en" in per_lang.index else None
    return out.assign(lift=out["pull_share"] - out["base_share"]).sort_values("lift", ascending=False)


def naive_ru_ua(raw, filters):
    a = naive_answers(raw, filters)
    origins = raw["dish_origins"].groupby("dish_key")["country"].agg(set)
    shared = set(origins[[{"RU", "UA"} <= s for s in origins]].index)
    a = a[a["dish_key"].isin(shared)]
    named = named_countries(a)
    a = a.assign(ru=a["generation_id"].isin(named.loc[named["country"] == "RU", "generation_id"]),
                 ua=a["generation_id"].isin(named.loc[named["country"] == "UA", "generation_id"]))  # fmt: skip
    out = a.groupby("lang").agg(n_answers=("ru", "size"), n_ru=("ru", "sum"), n_ua=("ua", "sum")).reset_index()
    either = a[a["ru"] | a["ua"]].groupby("lang").size().rename("n_either")
    out = out.merge(either, left_on="lang", right_index=True, how="left")
    return out.assign(ru_share=out["n_ru"] / out["n_either"])


def naive_dish_answers(raw, dish_key, filters):
    a = naive_answers(raw, filters)
    return a[a["dish_key"] == dish_key].sort_values(["model", "lang", "variant", "item_id"])


def naive_dish_scores(raw, dish_key, filters):
    a = naive_answers(raw, filters)
    a = a[a["dish_key"] == dish_key]
    return a.groupby(["model", "lang", "variant"]).agg(n=("jaccard", "size"), jaccard=("jaccard", "mean")).reset_index()


# --------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------


def median_ms(fn: Callable[[], object], runs: int, warm: bool) -> tuple[float, object]:
    result = fn() if warm else None
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--answers", type=int, default=5_000_000, help="scored answers to generate (default 5M)")
    parser.add_argument("--keep", type=Path, help="build the warehouse in this directory and keep it")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per mart query (median; default 5)")
    parser.add_argument("--naive-runs", type=int, default=3, help="timed runs per naive pass (median; default 3)")
    args = parser.parse_args()

    directory = args.keep or Path(tempfile.mkdtemp(prefix="dish-atlas-bench-"))
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "warehouse.duckdb"
    for stale in directory.glob("warehouse*"):
        stale.unlink()
    try:
        run(path, args)
    finally:
        if args.keep is None:
            shutil.rmtree(directory, ignore_errors=True)


def run(path: Path, args: argparse.Namespace) -> None:
    log(f"building a synthetic warehouse of {args.answers:,} answers in {path.parent}")
    start = time.perf_counter()
    sizes = build(path, args.answers)
    log(f"core tables: {sizes['answers']:,} answers, {sizes['items']:,} items, {sizes['dishes']:,} dishes, "
        f"{N_MODELS} models x {N_LANGS} prompt languages, in {time.perf_counter() - start:.1f} s")  # fmt: skip

    start = time.perf_counter()
    Warehouse(path).publish(force=True)
    publish_s = time.perf_counter() - start
    log(f"publish (copy + all marts + integrity checks): {publish_s:.1f} s")
    mart_times = time_marts(path)

    con = duckdb.connect(str(path), read_only=True)
    filters = Filters(dataset=DATASET, task=TASK)  # the app's default: every model and prompt language
    recall = geo.country_recall(con, filters)
    top = tuple(recall["country"].head(12))  # the confusion page's default: the 12 countries with most answers
    country = top[0]
    errors = geo.error_arcs(con, filters, 1)
    cell = (str(errors["true_country"].iloc[0]), str(errors["predicted_country"].iloc[0]))
    if cell[1] not in top:
        cell = (top[0], top[1])
    dish_key = "synthetic:en:7"  # a dish from both Russia and Ukraine
    cases = [
        ("overview", "leaderboard", lambda: leaderboard(con, filters), lambda: naive_leaderboard(raw, filters)),
        ("map", "country_recall", lambda: geo.country_recall(con, filters), lambda: naive_recall(raw, filters)),
        ("map", "country_overprediction", lambda: geo.country_overprediction(con, filters),
         lambda: naive_overprediction(raw, filters)),
        ("map", "error_arcs", lambda: geo.error_arcs(con, filters), lambda: naive_arcs(raw, filters)),
        ("map", f"country_answers({country})", lambda: geo.country_answers(con, filters, country),
         lambda: naive_country_answers(raw, filters, country)),
        ("confusion", "countries", lambda: confusion.countries(con, filters),
         lambda: naive_confusion_countries(raw, filters)),
        ("confusion", "matrix(12)", lambda: confusion.matrix(con, filters, top),
         lambda: naive_matrix(raw, filters, top)),
        ("confusion", f"cell_answers({cell[0]}->{cell[1]})", lambda: confusion.cell_answers(con, filters, *cell, top),
         lambda: naive_cell(raw, filters, *cell, top)),
        ("language pull", "language_pull", lambda: language.language_pull(con, filters),
         lambda: naive_language_pull(raw, filters)),
        ("language pull", "ru_ua_pull", lambda: language.ru_ua_pull(con, filters), lambda: naive_ru_ua(raw, filters)),
        ("dish", f"answers({dish_key})", lambda: dish.answers(con, dish_key, filters),
         lambda: naive_dish_answers(raw, dish_key, filters)),
        ("dish", "scores", lambda: dish.scores(con, dish_key, filters),
         lambda: naive_dish_scores(raw, dish_key, filters)),
    ]  # fmt: skip

    log(f"timing: marts warm (one untimed run first), median of {args.runs}")
    marts = {name: median_ms(mart_fn, args.runs, warm=True) for _, name, mart_fn, _ in cases}
    con.close()
    start = time.perf_counter()
    raw = load_raw(path)
    log(f"naive baseline: core tables loaded into pandas once in {time.perf_counter() - start:.1f} s (not timed below)")
    log(f"timing: naive pandas pass over the raw rows (joins included), median of {args.naive_runs}\n")
    rows = []
    for page, name, _, naive_fn in cases:
        mart_ms, mart_result = marts[name]
        naive_ms, naive_result = median_ms(naive_fn, args.naive_runs, warm=False)
        gc.collect()
        ratio = naive_ms / mart_ms
        ok = mart_ms <= TARGET_MS and ratio >= TARGET_RATIO
        rows.append((page, name, mart_ms, naive_ms, ratio, len(mart_result), len(naive_result), ok))
        log(f"  {page:<13} {name:<28} {mart_ms:8.1f} ms  {naive_ms:10.1f} ms  {ratio:7.1f}x  rows {len(mart_result)}"
            f"/{len(naive_result)}  {'PASS' if ok else 'FAIL'}")  # fmt: skip

    log(f"\n{sizes['answers']:,} scored answers; publish {publish_s:.1f} s; targets: <= {TARGET_MS:.0f} ms and "
        f">= {TARGET_RATIO:.0f}x the naive pass\n")  # fmt: skip
    log("| page | query | marts ms | naive ms | ratio | rows (marts/naive) | result |")
    log("|---|---|---:|---:|---:|---:|---|")
    for page, name, mart_ms, naive_ms, ratio, n_mart, n_naive, ok in rows:
        log(f"| {page} | `{name}` | {mart_ms:.1f} | {naive_ms:,.0f} | {ratio:,.0f}x | {n_mart}/{n_naive} | "
            f"{'PASS' if ok else 'FAIL'} |")  # fmt: skip
    log("\nmarts built at publish (seconds):")
    for name, seconds in mart_times:
        log(f"  {name:<28} {seconds:6.1f}")
    failed = [r for r in rows if not r[-1]]
    log(f"\n{'ALL PASS' if not failed else f'{len(failed)} FAIL'}")


def time_marts(path: Path) -> list[tuple[str, float]]:
    """Rebuild each mart file once more on a scratch copy, timed, to name any slow one."""
    from warehouse.marts import MARTS

    scratch = path.with_name("marts-timing.duckdb")
    shutil.copyfile(path, scratch)
    times = []
    con = duckdb.connect(str(scratch))
    try:
        for mart in MARTS.values():
            start = time.perf_counter()
            mart.run(con)
            times.append((mart.file, time.perf_counter() - start))
    finally:
        con.close()
        scratch.unlink(missing_ok=True)
        scratch.with_name(scratch.name + ".wal").unlink(missing_ok=True)
    return times


if __name__ == "__main__":
    main()
