"""`translate-questions`: the VQA questions and their ten answers translated by any configured backend into the
layout `ingest vqa` reads (ZNO-Vision §3 translated its 1,000 question-answer pairs with a model). A generation job,
so it lives with the answers, not with the dataset reader it writes for."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pipeline.backends.base import Message, Request
from pipeline.core.errors import DataError
from pipeline.datasets.vqa import _load, _one

# `translate-questions`: the paper translated its 1,000 question-answer pairs with GPT-4o (§3) and prints no
# prompt; this wording is ours. Any configured backend answers it.
TRANSLATE_PROMPT = "Translate this {source} text into {target}. Reply with the translation only.\n\n{text}"
LANGUAGE_NAMES = {"en": "English", "uk": "Ukrainian", "ru": "Russian"}


def translate_folder(source: Path, out: Path, backend, source_lang: str = "en", target_lang: str = "uk") -> int:
    """The VQA folder's `source_lang` questions and their ten answers translated into `target_lang` by `backend`,
    written beside a copy of the source in the layout `ingest vqa` reads (OUT/<lang>/questions.json,
    annotations.json): ids, image ids and answer types kept (§3: "preserving original associations and metadata").
    Each distinct text is asked once. Returns how many texts were translated."""
    folder = source / source_lang
    questions_path, annotations_path = _one(folder, "*questions*.json"), _one(folder, "*annotations*.json")
    questions, annotations = _load(questions_path, "questions"), _load(annotations_path, "annotations")
    texts = sorted(
        {str(q.get("question") or "") for q in questions}
        | {str(a.get("answer", "")) for row in annotations for a in row.get("answers") or [] if isinstance(a, dict)}
    )
    names = {lang: LANGUAGE_NAMES.get(lang, lang) for lang in (source_lang, target_lang)}
    prompts = [TRANSLATE_PROMPT.format(source=names[source_lang], target=names[target_lang], text=t) for t in texts]
    requests = [
        Request(hashlib.sha256(f"{target_lang}\0{text}".encode()).hexdigest(), (Message("user", asked),), 64)
        for text, asked in zip(texts, prompts, strict=True)
    ]
    asked_for = {request.key: text for request, text in zip(requests, texts, strict=True)}
    translated = {}
    for response in backend.generate(requests):  # answers come back by key, in whatever order
        if response.text is None:
            why = f"the backend gave no translation of {asked_for[response.key]!r}: {response.error}"
            raise DataError(questions_path, why)
        translated[asked_for[response.key]] = response.text.strip()
    target = out / target_lang
    target.mkdir(parents=True, exist_ok=True)
    (out / source_lang).mkdir(parents=True, exist_ok=True)
    for path in (questions_path, annotations_path):
        (out / source_lang / path.name).write_bytes(path.read_bytes())
    moved = [q | {"question": translated[str(q.get("question") or "")]} for q in questions]
    answered = [
        row | {"answers": [a | {"answer": translated[str(a.get("answer", ""))]} for a in row.get("answers") or []]}
        for row in annotations
    ]
    (target / "questions.json").write_text(json.dumps({"questions": moved}, ensure_ascii=False), encoding="utf-8")
    (target / "annotations.json").write_text(
        json.dumps({"annotations": answered}, ensure_ascii=False), encoding="utf-8"
    )
    return len(texts)
