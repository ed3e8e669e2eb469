"""UACUISINE scored as the ZNO-Vision paper defines it (Appendix C), beside ours: the IM equation, EM at stem
level, BERTScore with the paper's model by default and the model recorded per answer, and Table 4 (mart and
export) from a UACUISINE table written here, every number computed by hand."""

from __future__ import annotations

import io
import math
from pathlib import Path

import polars as pl
import pytest

from pipeline.score import metrics, uacuisine_paper
from pipeline.score import uacuisine as uacuisine_metrics
from tests import shared_builds
from tests.helpers import query, run_cli

GOLD_INGREDIENTS = "буряк, капуста, картопля, морква"


def test_intersection_match_is_the_papers_equation_beside_ours() -> None:
    im = metrics.get_metric("intersection_match_paper")
    ours = metrics.get_metric("intersection_match")
    # W(y) = {буряк, капуста, картопля, морква}, W(ŷ) = {буряк, капусту, і, цибулю}: 1 shared of 7 words in all
    assert im("Буряк, капусту і цибулю", GOLD_INGREDIENTS) == pytest.approx(1 / 7)
    assert ours("Буряк, капусту і цибулю", GOLD_INGREDIENTS) == 0.5  # 2 of the 4 gold lemmas (капусту = капуста)
    # every gold word and one more: 4 / 5 by the paper's union, all gold named by ours
    assert im("Буряк, капуста, картопля, морква, сіль", GOLD_INGREDIENTS) == pytest.approx(4 / 5)
    assert ours("Буряк, капуста, картопля, морква, сіль", GOLD_INGREDIENTS) == 1.0
    assert im(GOLD_INGREDIENTS.upper(), GOLD_INGREDIENTS) == 1.0  # words compared case folded
    assert im("", GOLD_INGREDIENTS) == 0.0
    assert math.isnan(im("буряк", ""))


@pytest.mark.parametrize(
    ("answer", "gold", "expected"),
    [
        ("Солона", "солона", 1.0),
        ("солоною", "солона", 1.0),  # the same stem (lemma солоний): gender and case do not matter
        ("солодкі", "солодка", 1.0),  # "солодка" may be the noun too: a shared form is enough
        ("Ця страва солона", "солона", 0.0),  # more words than the gold: not an exact match
        ("Подається холодною", "гаряча", 0.0),
    ],
)
def test_exact_match_is_at_stem_level(answer: str, gold: str, expected: float) -> None:
    assert metrics.get_metric("stem_exact")(answer, gold) == expected
    assert uacuisine_paper.stem_exact(answer, gold) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Борщ", 1.0),
        ("борщу", 1.0),  # the same stem
        ("Український борщ", 1.0),  # the dish's other accepted name, word for word
        ("Це борщ", 0.0),  # the whole answer is compared (Appendix C, Eq. 1): a sentence is not the name
        ("Солянка", 0.0),
    ],
)
def test_the_dish_name_em_compares_the_whole_answer_as_the_paper_does(answer: str, expected: float) -> None:
    from pipeline.score.names import AcceptedName, NameAnswer, NameGold

    gold = NameGold((AcceptedName("Борщ", "uk"), AcceptedName("Український борщ", "uk")))
    assert metrics.get_metric("name_stem_exact")(NameAnswer(answer, (), "uk"), gold) == expected


def test_bertscore_defaults_to_the_papers_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(uacuisine_metrics.BERTSCORE_MODEL_ENV, raising=False)
    assert uacuisine_metrics.bertscore_model() == "bert-base-multilingual-cased"
    assert metrics.get_metric("bertscore").scored_by() == "bert-base-multilingual-cased"
    monkeypatch.setenv(uacuisine_metrics.BERTSCORE_MODEL_ENV, "xlm-roberta-large")
    assert metrics.get_metric("bertscore").scored_by() == "xlm-roberta-large"


def build_tiny_bert(folder: Path) -> Path:
    """A random 2-layer BERT built offline, its vocabulary the recipe's words (the scoring model is a setting)."""
    from transformers import BertConfig, BertModel, BertTokenizer

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "зварити", "буряк", "додати", "капуста", "посолити"]
    vocab = folder / "vocab.txt"
    vocab.write_text("\n".join([*words, *(f"w{i}" for i in range(40 - len(words)))]) + "\n", encoding="utf-8")
    BertTokenizer(str(vocab), do_lower_case=True).save_pretrained(folder)
    config = BertConfig(vocab_size=40, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=37)
    BertModel(config).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_bert() -> Path:
    """The scorer the shared Table 4 warehouse was scored with."""
    return shared_table4_warehouse()[1]


RECIPE = "зварити буряк, додати капуста, посолити"
# dish, question, gold, model, answer: the table layout `import-responses --format uacuisine` reads
ROWS = [
    ("Борщ", "Q1", "Борщ", "m1", "Це борщ"),  # EM 0 (the whole answer is not the name), ours 1 (it names it)
    ("Борщ", "Q4", GOLD_INGREDIENTS, "m1", "Буряк, капусту і цибулю"),  # IM 1/7, ours 1/2
    ("Борщ", "Q5", RECIPE, "m1", RECIPE),  # BERTScore 1
    ("Борщ", "Q6", "солона", "m1", "Солона"),  # EM 1, class 1
    ("Вареники", "Q6", "солодка", "m1", "солодкі"),  # EM 1, class 1
    ("Сирники", "Q6", "солодка", "m1", "Ця страва солодка"),  # EM 0, class 1
    ("Борщ", "Q7", "гаряча", "m1", "Подається холодною"),  # EM 0, class 0
    ("Борщ", "Q1", "Борщ", "m2", "Солянка"),  # EM 0
]
# The taste question in English too (the table's optional `lang`): ours (the class) 2 of 3, the paper's EM 1 of 3
ROWS_EN = [
    ("Борщ", "Q6", "salty", "m1", "Salty"),  # class 1, EM 1
    ("Вареники", "Q6", "sweet", "m1", "salty"),  # class 0, EM 0
    ("Сирники", "Q6", "sweet", "m1", "It is sweet"),  # class 1, EM 0
]


def build_table4_warehouse(folder: Path, scorer: Path) -> Path:
    """ROWS as a UACUISINE table, imported and scored (BERTScore by `scorer`) into a new warehouse."""
    table = folder / "uacuisine.tsv"
    lines = [(*r, "uk") for r in ROWS] + [(*r, "en") for r in ROWS_EN]
    header = "dish\tquestion\tgold\tmodel\tanswer\tlang\n"
    table.write_text(header + "".join("\t".join(r) + "\n" for r in lines), encoding="utf-8")
    warehouse = folder / "wh" / "warehouse.duckdb"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(uacuisine_metrics.BERTSCORE_MODEL_ENV, str(scorer))
        run_cli(warehouse, "import-responses", "--format", "uacuisine", str(table))
    return warehouse


def shared_table4_warehouse() -> tuple[Path, Path]:
    """`build_table4_warehouse` with a tiny BERT scorer, made once per test session and read by this module and the
    UACUISINE page's (none writes to it): the warehouse and the scorer's folder."""

    def build(folder: Path) -> Path:
        (folder / "tiny-bert").mkdir()
        return build_table4_warehouse(folder, build_tiny_bert(folder / "tiny-bert"))

    warehouse = shared_builds.made("uacuisine-table4", build)
    return warehouse, warehouse.parent.parent / "tiny-bert"


@pytest.fixture(scope="module")
def table4_warehouse() -> Path:
    return shared_table4_warehouse()[0]


def test_table4_by_hand(table4_warehouse: Path, tiny_bert: Path) -> None:
    out = run_cli(table4_warehouse, "export", "uacuisine-table4", "--format", "csv").stdout
    frame = pl.read_csv(io.BytesIO(out.encode()))
    assert frame.columns[:5] == ["model", "lang", "bertscore", "em", "im"]
    rows = {(r["model"], r["lang"]): r for r in frame.iter_rows(named=True)}
    m1, m2 = rows["m1", "uk"], rows["m2", "uk"]
    assert m1["lang"] == "uk"
    assert m1["bertscore"] == pytest.approx(1.0, abs=1e-5)  # the recipe word for word
    assert m1["bertscore_model"] == str(tiny_bert)  # the model that computed it, recorded per answer
    assert m1["em"] == pytest.approx(2 / 5)  # name 0 ("Це борщ" is not "Борщ"); taste 1, 1, 0; temperature 0
    assert m1["em_atlas"] == pytest.approx(4 / 5)  # ours finds the name and reads the taste class
    assert m1["im"] == pytest.approx(1 / 7) and m1["im_atlas"] == 0.5
    assert (m1["em_identification"], m1["em_taste"], m1["em_temperature"]) == (0.0, pytest.approx(2 / 3), 0.0)
    assert m1["em_identification_atlas"] == 1.0  # ours: "Це борщ" names the dish
    assert (m1["n_recipes"], m1["n_em"], m1["n_ingredients"]) == (1, 5, 1)
    assert (m2["em"], m2["n_em"]) == (0.0, 1)
    assert m2["bertscore"] is None and m2["im"] is None  # m2 answered no recipe and no ingredients


def test_the_model_behind_each_bertscore_is_stored(table4_warehouse: Path, tiny_bert: Path) -> None:
    rows = query(
        table4_warehouse,
        """SELECT m.metric, m.model, count(*) FROM core.score_models m JOIN core.scores s USING (generation_id, metric)
           GROUP BY ALL""",
    )
    assert rows == [("bertscore", str(tiny_bert), 1)]


def test_the_language_gap_covers_uacuisine_too(table4_warehouse: Path) -> None:
    # taste, uk against en on the same three dishes: ours 3/3 vs 2/3, the paper's EM 2/3 vs 1/3: +33.3 points
    for method, accuracy, accuracy_en in (("atlas", 100.0, 200 / 3), ("paper", 200 / 3, 100 / 3)):
        out = run_cli(table4_warehouse, "export", "language-gap", "--method", method).stdout
        frame = pl.read_csv(io.BytesIO(out.encode())).filter(pl.col("dataset") == "uacuisine")
        [row] = frame.filter(pl.col("task") == "taste").iter_rows(named=True)
        assert (row["model"], row["lang"], row["n"]) == ("m1", "uk", 3)
        assert row["accuracy"] == pytest.approx(accuracy) and row["accuracy_en"] == pytest.approx(accuracy_en)
        assert row["gap"] == pytest.approx(100 / 3)
        assert row["metric"] == ("taste_match" if method == "atlas" else "stem_exact")
        assert frame.height == 1  # no other UACUISINE question was asked in English
