"""Captions (Multi30K-UK layout) and VQA in two languages on small files in the published layouts: the
scores worked out by hand (BLEU from its n-gram counts, VQA accuracy over the ten leave-one-out subsets),
the paper's Table 2 and Table 3 as marts, and bad input."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from pipeline.score import captions as caption_metrics
from pipeline.score import vqa as vqa_metrics
from tests.helpers import query, run_cli
from tests.pipeline.datasets.caption_vqa_files import load_captions_and_vqa, tiny_bert, write_multi30k, write_vqa

BLEU_HALF = 100 * math.exp(-1)  # "собака біжить": every n-gram right, brevity penalty e^(1 - 4/2)
BLEU_EN = 100 * (1 / 12) ** 0.25  # 5/6 x 3/5 x 2/4 x 1/3 = 1/12, same length


def test_sentence_bleu_and_its_statistics_by_hand() -> None:
    assert caption_metrics.sentence_bleu("кіт сидить на килимі", "кіт сидить на килимі") == pytest.approx(100)
    assert caption_metrics.sentence_bleu("собака біжить", "собака біжить по траві") == pytest.approx(BLEU_HALF)
    assert caption_metrics.sentence_bleu("a cat sits on the mat", "a cat sits on a mat") == pytest.approx(BLEU_EN)
    stats = caption_metrics.bleu_statistics("a cat sits on the mat", "a cat sits on a mat")
    assert [stats[f"bleu_correct_{n}"] for n in range(1, 5)] == [5, 3, 2, 1]
    assert [stats[f"bleu_total_{n}"] for n in range(1, 5)] == [6, 5, 4, 3]
    assert math.isnan(caption_metrics.sentence_bleu("x", ""))
    assert caption_metrics.DEFAULT_BERTSCORE_MODEL == "bert-base-multilingual-cased"  # §3


def test_vqa_accuracy_by_hand() -> None:
    two_of_ten = json.dumps(["чорний"] * 2 + ["білий"] * 8)
    assert vqa_metrics.vqa_accuracy("чорний", two_of_ten) == pytest.approx(0.6)
    assert vqa_metrics.vqa_accuracy("білий", two_of_ten) == 1.0
    three_of_ten = json.dumps(["yes"] * 3 + ["no"] * 7)
    assert vqa_metrics.vqa_accuracy("yes", three_of_ten) == pytest.approx(0.9)  # (3 x 2/3 + 7 x 1) / 10
    # the standard normalisation: punctuation, number words, articles, contractions
    mixed = json.dumps(["2"] * 9 + ["3"])
    assert vqa_metrics.vqa_accuracy("Two.", mixed) == 1.0
    assert vqa_metrics.vqa_accuracy("the dog", json.dumps(["dog"] * 5 + ["cat"] * 5)) == 1.0
    assert vqa_metrics.vqa_accuracy("dont", json.dumps(["don't"] * 3 + ["no"] * 7)) == pytest.approx(0.9)
    # the official script normalises only when the annotators disagree; ours always
    same = json.dumps(["2"] * 10)
    assert vqa_metrics.vqa_accuracy("two", same) == 0.0
    assert vqa_metrics.vqa_accuracy_atlas("two", same) == 1.0
    assert math.isnan(vqa_metrics.vqa_accuracy("x", None))


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("captions-vqa")
    warehouse = root / "warehouse.duckdb"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(caption_metrics.BERTSCORE_MODEL_ENV, str(tiny_bert(root / "tiny-bert")))
        load_captions_and_vqa(warehouse, root)
        run_cli(warehouse, "score")
    return warehouse


def test_caption_table_per_model_sentence_and_corpus(scored: Path) -> None:
    rows = {
        (split, lang): (n, bleu_mean, bleu_std, corpus)
        for split, lang, n, bleu_mean, bleu_std, corpus in query(
            scored,
            "SELECT split, lang, n, bleu_mean, bleu_std, corpus_bleu FROM marts.caption_scores WHERE model = 'm1'",
        )
    }
    n, mean, std, corpus = rows["test_2017_flickr", "uk"]
    assert n == 2
    assert mean == pytest.approx((100 + BLEU_HALF) / 2)
    assert std == pytest.approx((100 - BLEU_HALF) / 2)  # numpy's std (ddof=0) of two values
    # corpus: 6 words, every n-gram right, reference 8 words: 100 e^(1 - 8/6)
    assert corpus == pytest.approx(100 * math.exp(1 - 8 / 6))
    assert rows["test_2017_flickr", "en"][1:] == (pytest.approx(BLEU_EN), 0.0, pytest.approx(BLEU_EN))
    bert = query(
        scored,
        """SELECT item_id, lang, caption_bertscore FROM marts.caption_answers WHERE model = 'm1' ORDER BY 1, 2""",
    )
    assert bert[0][:2] == ("test_2017_flickr/1.jpg", "en") and 0 < bert[0][2] <= 1
    assert bert[1][:2] == ("test_2017_flickr/1.jpg", "uk") and bert[1][2] == pytest.approx(1.0, abs=1e-5)
    items = query(scored, "SELECT count(*), count(DISTINCT subset) FROM core.items WHERE task_id = 'multi30k.caption'")
    assert items == [(3, 2)]


def test_vqa_ua_vs_en_per_model(scored: Path) -> None:
    rows = {
        model: values
        for model, *values in query(
            scored,
            """SELECT model, n_uk, vqa_uk, n_en, vqa_en, gap, n_paired, vqa_uk_atlas, vqa_en_atlas
               FROM marts.vqa_languages""",
        )
    }
    n_uk, uk, n_en, en, gap, paired, uk_atlas, en_atlas = rows["m1"]
    assert (n_uk, n_en, paired) == (2, 2, 2)
    assert uk == pytest.approx(80.0) and en == pytest.approx(50.0) and gap == pytest.approx(30.0)
    assert uk_atlas == pytest.approx(80.0) and en_atlas == pytest.approx(100.0)
    assert rows["m2"][:4] == [1, 0.0, None, None]
    quirks = query(scored, "SELECT kind FROM meta.ingest_reports WHERE dataset = 'vqa' ORDER BY kind")
    assert quirks == [("no_answers",), ("not_ten_answers",)]  # question 3: nine answers


def test_exports_of_tables_2_and_3(scored: Path, tmp_path: Path) -> None:
    run_cli(scored, "export", "captions", "--out", str(tmp_path / "c.csv"))
    run_cli(scored, "export", "vqa-languages", "--out", str(tmp_path / "v.csv"))
    captions = (tmp_path / "c.csv").read_text(encoding="utf-8").splitlines()
    assert captions[0].startswith("model,split,lang,n,bleu_mean,bleu_std,bertscore_mean,bertscore_std,corpus_bleu")
    vqa = (tmp_path / "v.csv").read_text(encoding="utf-8").splitlines()
    assert vqa[0].startswith("model,n_uk,vqa_uk,n_en,vqa_en,gap")
    assert vqa[1].startswith("m1,2,80.0,2,50.0,30.0")


def test_a_caption_file_out_of_step_with_its_images_is_one_error(tmp_path: Path) -> None:
    root = write_multi30k(tmp_path / "m")
    (root / "data/task1/raw/test_2017_flickr.uk").write_text("лише один підпис\n", encoding="utf-8")
    result = run_cli(tmp_path / "w.duckdb", "ingest", "multi30k", "--source", str(root), check=False)
    assert result.returncode == 2
    assert (
        "error:" in result.stderr and "test_2017_flickr.uk" in result.stderr and "1 captions for the 2" in result.stderr
    )


def test_data_fetch_multi30k_writes_the_layout_ingest_reads(tmp_path: Path) -> None:
    """`data fetch multi30k`'s files (image lists, gzipped English captions), served by a local host in place of
    Multi30K's repository, are read by the dataset module as they land."""
    import gzip
    from dataclasses import replace

    from pipeline.datasets import multi30k
    from pipeline.datasets.fetch import fetch
    from tests.pipeline.datasets.test_fetch import file_host

    served = tmp_path / "served"
    for split, images, caption in (
        ("test_2017_flickr", "1.jpg\n", "a cat\n"),
        ("test_2018_flickr", "3.jpg\n", "a girl\n"),
    ):
        (served / "data/task1/image_splits").mkdir(parents=True, exist_ok=True)
        (served / "data/task1/raw").mkdir(parents=True, exist_ok=True)
        (served / f"data/task1/image_splits/{split}.txt").write_text(images, encoding="utf-8")
        (served / f"data/task1/raw/{split}.en.gz").write_bytes(gzip.compress(caption.encode()))
    with file_host(served) as host:
        local = [replace(r, url=f"{host}/{r.dest}") for r in multi30k.remote_files()]
        assert len(fetch(tmp_path / "dest", local)) == 4
    captions, _ = multi30k.read(tmp_path / "dest")
    assert captions == {("test_2017_flickr", "1.jpg"): {"en": "a cat"}, ("test_2018_flickr", "3.jpg"): {"en": "a girl"}}


def test_more_than_the_papers_1000_vqa_questions_are_cut_by_a_seeded_draw() -> None:
    """§3's 1,000 questions: a folder holding VQA 2.0's own (larger) files is sampled the same way every time,
    whatever order its files list the questions in."""
    from pipeline.datasets.vqa import SAMPLE_SIZE, sample_questions

    found = {str(qid): {"en": qid} for qid in range(5000, 3499, -1)}  # 1,501 ids, listed in descending order
    drawn = sample_questions(found)
    assert len(drawn) == SAMPLE_SIZE == 1000 and set(drawn) <= set(found)
    assert drawn == sample_questions(dict(reversed(list(found.items()))))  # the listing order does not matter
    assert set(sample_questions(found, seed=1)) != set(drawn)  # the seed does
    small = {"1": {"en": 1}, "2": {"en": 2}}
    assert sample_questions(small) is small  # up to 1,000: every question kept


def test_translate_questions_writes_the_layout_ingest_reads_with_any_backend(
    tmp_path: Path, tiny_text_model: Path
) -> None:
    """ZNO-Vision §3 translated VQA with a model: `translate-questions` asks any backend (here a tiny random
    transformers model, so the words are noise) and keeps ids, image ids and the ten answers per question."""
    source = write_vqa(tmp_path / "vqa")
    out = tmp_path / "translated"
    warehouse = tmp_path / "wh" / "warehouse.duckdb"
    result = run_cli(
        warehouse, "translate-questions", str(source), "--out", str(out), "--backend", "transformers",
        "--model", str(tiny_text_model), "--to", "uk", "--setting", "max_new_tokens=4",
    )  # fmt: skip
    assert "translated" in result.stderr and f"ingest vqa --source {out}" in " ".join(result.stderr.split())
    questions = json.loads((out / "uk" / "questions.json").read_text(encoding="utf-8"))["questions"]
    assert [(q["question_id"], q["image_id"]) for q in questions] == [(1, 42), (2, 43), (3, 44)]
    annotations = json.loads((out / "uk" / "annotations.json").read_text(encoding="utf-8"))["annotations"]
    assert [len(a["answers"]) for a in annotations] == [10, 10, 9]  # q3's nine answers stay nine (left out later)
    assert (out / "en" / "v2_OpenEnded_mscoco_val2014_questions.json").is_file()  # the source beside it
    run_cli(warehouse, "ingest", "vqa", "--source", str(out))
    assert query(warehouse, "SELECT count(*) FROM core.vqa_questions WHERE lang = 'en'") == [(2,)]
