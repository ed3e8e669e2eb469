"""Small Multi30K-UK and VQA 2.0 folders written in code, in the layouts pipeline/datasets/multi30k.py
and pipeline/datasets/vqa.py read, with answers whose scores the tests work out by hand."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import run_cli


def write_multi30k(root: Path) -> Path:
    splits, raw = root / "data" / "task1" / "image_splits", root / "data" / "task1" / "raw"
    splits.mkdir(parents=True)
    raw.mkdir(parents=True)
    (splits / "test_2017_flickr.txt").write_text("1.jpg\n2.jpg\n", encoding="utf-8")
    (raw / "test_2017_flickr.uk").write_text("кіт сидить на килимі\nсобака біжить по траві\n", encoding="utf-8")
    (raw / "test_2017_flickr.en").write_text("a cat sits on a mat\na dog runs on the grass\n", encoding="utf-8")
    (splits / "test_2018_flickr.txt").write_text("3.jpg\n", encoding="utf-8")
    (raw / "test_2018_flickr.uk").write_text("дівчина читає книгу\n", encoding="utf-8")
    return root


CAPTIONS = [
    ("m1", "test_2017_flickr/1.jpg", "uk", "кіт сидить на килимі"),  # the reference itself: BLEU 100
    ("m1", "test_2017_flickr/2.jpg", "uk", "собака біжить"),  # 2 of 4 words, all n-grams right: BLEU 100 e^-1
    ("m1", "test_2017_flickr/1.jpg", "en", "a cat sits on the mat"),  # 5/6, 3/5, 2/4, 1/3: BLEU (1/12)^(1/4)
]


def write_vqa(root: Path) -> Path:
    questions = {
        "en": [(1, 42, "What color is the cat?"), (2, 43, "How many dogs?"), (3, 44, "Is it raining?")],
        "uk": [(1, 42, "Якого кольору кіт?"), (2, 43, "Скільки собак?")],
    }
    answers = {
        "en": {1: ["black"] * 4 + ["white"] * 6, 2: ["2"] * 10, 3: ["no"] * 9},  # q3: nine answers, left out
        "uk": {1: ["чорний"] * 2 + ["білий"] * 8, 2: ["2"] * 10},
    }
    for lang in ("en", "uk"):
        folder = root / lang
        folder.mkdir(parents=True)
        (folder / "v2_OpenEnded_mscoco_val2014_questions.json").write_text(
            json.dumps(
                {"questions": [{"question_id": q, "image_id": i, "question": t} for q, i, t in questions[lang]]},
                ensure_ascii=False,
            ),
            encoding="utf-8",
        )
        annotations = [
            {
                "question_id": q,
                "image_id": 41 + q,
                "answer_type": "number" if q == 2 else "other",
                "multiple_choice_answer": given[0],
                "answers": [{"answer": a, "answer_confidence": "yes", "answer_id": n + 1} for n, a in enumerate(given)],
            }
            for q, given in answers[lang].items()
        ]
        (folder / "v2_mscoco_val2014_annotations.json").write_text(
            json.dumps({"annotations": annotations}, ensure_ascii=False), encoding="utf-8"
        )
    return root


VQA_ANSWERS = [
    ("m1", "1", "en", "Black."),  # annotators disagree: normalised to "black", 4 of 10 said it: 1.0
    ("m1", "2", "en", "two"),  # all said "2": the official script does not normalise: 0; ours: 1.0
    ("m1", "1", "uk", "чорний"),  # 2 of 10 said it: (2 x 1/3 + 8 x 2/3) / 10 = 0.6
    ("m1", "2", "uk", "2"),  # 1.0
    ("m2", "1", "uk", "Не знаю"),  # 0
]


def write_lines(path: Path, rows: list[tuple[str, str, str, str | None]]) -> Path:
    path.write_text(
        "".join(
            json.dumps({"model": m, "id": i, "lang": lang, "response": r}, ensure_ascii=False) + "\n"
            for m, i, lang, r in rows
        ),
        encoding="utf-8",
    )
    return path


def tiny_bert(folder: Path) -> Path:
    """A random 2-layer BERT with a 40-word vocabulary, saved and read back through from_pretrained."""
    from transformers import BertConfig, BertModel, BertTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    words = [*special, "кіт", "сидить", "на", "килимі", "собака", "біжить", "по", "траві", "a", "cat", "sits", "mat"]
    vocab = folder / "vocab.txt"
    vocab.write_text("\n".join([*words, *(f"w{i}" for i in range(40 - len(words)))]) + "\n", encoding="utf-8")
    BertTokenizer(str(vocab), do_lower_case=True).save_pretrained(folder)
    config = BertConfig(vocab_size=40, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=37)
    BertModel(config).save_pretrained(folder)
    return folder


def load_captions_and_vqa(warehouse: Path, root: Path) -> None:
    """The Multi30K-UK and VQA files written in `root`, ingested into `warehouse` and their answers imported, not
    yet published: the caller's `score` (with the tiny BERTScore model set) scores and publishes them."""
    run_cli(warehouse, "--no-publish", "ingest", "multi30k", "--source", str(write_multi30k(root / "multi30k")))
    run_cli(warehouse, "--no-publish", "ingest", "vqa", "--source", str(write_vqa(root / "vqa")))
    for name, answers in (("multi30k", CAPTIONS), ("vqa", VQA_ANSWERS)):
        answers_file = write_lines(root / f"{name}.jsonl", answers)
        run_cli(warehouse, "--no-publish", "import-responses", "--format", name, str(answers_file))
