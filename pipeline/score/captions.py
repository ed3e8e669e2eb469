"""Caption scores of the ZNO-Vision study (§3, Multi30K-UK): SacreBLEU and BERTScore against the image's
reference caption, with the paper's BERTScore model, bert-base-multilingual-cased, as the default.

Per answer the score stage stores the sentence-level BLEU (`caption_bleu`: sacrebleu's sentence_bleu,
its defaults: 13a tokens, exp smoothing, effective order), the BERTScore F1 (`caption_bertscore`), and the
BLEU sufficient statistics (`bleu_sys_len`, `bleu_ref_len`, `bleu_correct_1..4`, `bleu_total_1..4`), so the
marts compute the corpus-level BLEU of any set of answers exactly as sacrebleu's corpus_bleu would, without
importing the pipeline (warehouse/marts/captions.py). Table 2 of the paper is the mean ± std of the
sentence-level scores per model; the corpus BLEU is kept beside it (named) as the usual way to report BLEU.

The BERTScore model is a setting: DISH_ATLAS_CAPTION_BERTSCORE_MODEL (a hub id or a local folder) and
DISH_ATLAS_CAPTION_BERTSCORE_LAYERS (default: bert-score's own choice for known models, else the last layer).
"""

from __future__ import annotations

import functools
import os

from pipeline.score.uacuisine import bertscorer

NAN = float("nan")
BERTSCORE_MODEL_ENV = "DISH_ATLAS_CAPTION_BERTSCORE_MODEL"
BERTSCORE_LAYERS_ENV = "DISH_ATLAS_CAPTION_BERTSCORE_LAYERS"
DEFAULT_BERTSCORE_MODEL = "bert-base-multilingual-cased"  # §3: "the same BERT score" as the recipes
MAX_ORDER = 4
STATS = ("bleu_sys_len", "bleu_ref_len", *(f"bleu_correct_{n}" for n in range(1, 5)),
         *(f"bleu_total_{n}" for n in range(1, 5)))  # fmt: skip


@functools.cache
def _bleu(effective_order: bool):
    from sacrebleu.metrics import BLEU

    return BLEU(effective_order=effective_order)


@functools.lru_cache(maxsize=65_536)
def bleu_statistics(predicted: str | None, reference: str) -> dict[str, float]:
    """The BLEU statistics of one answer against its reference (what corpus BLEU sums over answers)."""
    result = _bleu(True).sentence_score(predicted or "", [reference])
    stats = {"bleu_sys_len": float(result.sys_len), "bleu_ref_len": float(result.ref_len)}
    for n in range(MAX_ORDER):
        stats[f"bleu_correct_{n + 1}"] = float(result.counts[n])
        stats[f"bleu_total_{n + 1}"] = float(result.totals[n])
    return stats


def sentence_bleu(predicted: str | None, reference: str | None) -> float:
    """sacrebleu's sentence BLEU (0-100) of the answer; no reference is NaN."""
    if not reference or not reference.strip():
        return NAN
    return float(_bleu(True).sentence_score(predicted or "", [reference]).score)


def statistic(name: str, predicted: str | None, reference: str | None) -> float:
    if not reference or not reference.strip():
        return NAN
    return bleu_statistics(predicted, reference)[name]


def corpus_bleu(stats: list[dict[str, float]]) -> float:
    """Corpus BLEU from summed statistics, as sacrebleu.corpus_bleu computes it (exp smoothing)."""
    from sacrebleu.metrics import BLEU

    summed = {name: sum(s[name] for s in stats) for name in STATS}
    return float(
        BLEU.compute_bleu(
            [int(summed[f"bleu_correct_{n}"]) for n in range(1, 5)],
            [int(summed[f"bleu_total_{n}"]) for n in range(1, 5)],
            int(summed["bleu_sys_len"]),
            int(summed["bleu_ref_len"]),
            smooth_method="exp",
        ).score
    )


def bertscore_f1(predicted: str | None, reference: str | None, model: str | None = None) -> float:
    """BERTScore F1 of a caption against its reference; an empty answer scores 0, no reference is NaN."""
    if not reference or not reference.strip():
        return NAN
    if not predicted or not predicted.strip():
        return 0.0
    model = model or os.environ.get(BERTSCORE_MODEL_ENV) or DEFAULT_BERTSCORE_MODEL
    layers = os.environ.get(BERTSCORE_LAYERS_ENV)
    _, _, f1 = bertscorer(model, int(layers) if layers else None).score([predicted], [reference])
    return float(f1[0])
