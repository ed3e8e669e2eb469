"""The `finetune` step: examples from the warehouse -> split and order (the recipe) -> Trainer -> the run, its
examples, its epoch models and its losses recorded, so the tuned model is evaluated like any other
(`generate --backend transformers --model <epoch folder>`) and marts.finetune_comparison sets its answers on
the test items beside the base model's."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from pipeline.backends.base import local_weights_hash
from pipeline.core.run_settings import FinetuneSpec
from pipeline.finetune import data as finetune_data
from pipeline.finetune import train as training
from pipeline.finetune.recipes import RECIPES
from pipeline.tiny.marker import is_tiny_random
from warehouse.io import insert, transaction


@dataclass
class FinetuneSummary:
    finetune_id: str
    train: int
    test: int
    left_out: int
    models: dict[int, Path]
    skipped: bool = False
    resumed_from: str | None = None
    first_loss: float | None = None
    last_loss: float | None = None


def _base_identity(model: str) -> tuple[str, str | None]:
    path = Path(model).expanduser()
    return (str(path.resolve()), local_weights_hash(path)) if path.is_dir() else (model, None)


def run(
    con: duckdb.DuckDBPyConnection, spec: FinetuneSpec, say: Callable[[str], None] = lambda line: None
) -> FinetuneSummary:
    """Train (or resume, or skip when done) one run and record it."""
    recipe = RECIPES.get(spec.recipe)
    hp = recipe.hyperparameters(**spec.overrides)
    if hp["method"] not in ("full", "lora"):
        raise ValueError(f"method must be full or lora, not {hp['method']!r}")
    examples, left_out = finetune_data.load_examples(
        con, list(spec.tasks), spec.lang, variant=spec.variant, limit=spec.limit, images_dir=spec.images
    )
    arranged = finetune_data.arrange(examples, recipe, int(hp["seed"]))
    left_out += arranged.left_out
    if not arranged.train:
        raise ValueError(
            f"no training examples for {', '.join(spec.tasks)} in {spec.lang!r}"
            + (f" ({len(left_out)} items left out, e.g. {left_out[0][0]}: {left_out[0][1]})" if left_out else "")
        )
    base, base_hash = _base_identity(spec.model)
    description = {
        "tasks": list(spec.tasks),
        "lang": spec.lang,
        "variant": spec.variant,
        "limit": spec.limit,
        "split": recipe.split,
        "train_share": recipe.train_share,
        "sample_share": recipe.sample_share,
        "curriculum": list(recipe.curriculum),
        "train": len(arranged.train),
        "test": len(arranged.test),
        "left_out": len(left_out),
    }
    data_sha = arranged.sha256()
    key = json.dumps([base, base_hash, recipe.name, hp, description, data_sha], sort_keys=True, default=str)
    finetune_id = hashlib.sha256(key.encode()).hexdigest()[:24]
    out = spec.out.expanduser().resolve()
    summary = FinetuneSummary(finetune_id, len(arranged.train), len(arranged.test), len(left_out), {})
    done = con.execute(
        "SELECT epoch, model_path FROM core.finetune_models WHERE finetune_id = ? ORDER BY epoch", [finetune_id]
    ).fetchall()
    if done and all(Path(path).is_dir() for _, path in done) and {e for e, _ in done} == set(hp["epochs"]):
        summary.models, summary.skipped = {e: Path(p) for e, p in done}, True
        return summary
    training.write_marker(out, finetune_id, {"base_model": base, "recipe": recipe.name})
    started = datetime.now(UTC).replace(tzinfo=None)
    with transaction(con):
        for table in ("finetune_runs", "finetune_examples", "finetune_models", "finetune_losses"):
            con.execute(f"DELETE FROM core.{table} WHERE finetune_id = ?", [finetune_id])
        insert(con, "core.finetune_runs", [_run_row(finetune_id, recipe, base, base_hash, hp, description, data_sha,
                                                    out, started)])  # fmt: skip
        insert(con, "core.finetune_examples", _example_rows(finetune_id, [*arranged.train, *arranged.test]))
    say(f"fine-tuning {base} ({recipe.name}, {hp['method']}): {len(arranged.train)} train, {len(arranged.test)} test")
    result = training.train(base, out, arranged.train, hp, device=spec.device, say=say)
    with transaction(con):
        insert(con, "core.finetune_models", [
            {"finetune_id": finetune_id, "epoch": epoch, "model_path": str(path),
             "weights_hash": local_weights_hash(path)}
            for epoch, path in sorted(result.models.items())
        ])  # fmt: skip
        if result.losses:
            insert(con, "core.finetune_losses", [
                {"finetune_id": finetune_id, "step": step, "epoch": epoch, "loss": loss}
                for step, epoch, loss in result.losses
            ])  # fmt: skip
        con.execute(
            """UPDATE core.finetune_runs SET status = 'done', resumed_from = ?, train_steps = ?, first_loss = ?,
               last_loss = ?, seconds = ?, finished_at = ? WHERE finetune_id = ?""",
            [
                result.resumed_from,
                result.steps,
                result.losses[0][2] if result.losses else None,
                result.losses[-1][2] if result.losses else None,
                result.seconds,
                datetime.now(UTC).replace(tzinfo=None),
                finetune_id,
            ],
        )
    summary.models, summary.resumed_from = result.models, result.resumed_from
    if result.losses:
        summary.first_loss, summary.last_loss = result.losses[0][2], result.losses[-1][2]
    return summary


def _run_row(finetune_id, recipe, base, base_hash, hp, description, data_sha, out, started) -> dict:
    return {
        "finetune_id": finetune_id,
        "recipe": recipe.name,
        "source": recipe.source,
        "base_model": base,
        "base_weights_hash": base_hash,
        "method": hp["method"],
        "hyperparameters": json.dumps(hp, sort_keys=True),
        "data": json.dumps(description, sort_keys=True),
        "data_sha256": data_sha,
        "output_dir": str(out),
        "status": "running",
        "started_at": started,
        "base_tiny_random": is_tiny_random(base),
    }


def _example_rows(finetune_id: str, examples: list) -> list[dict]:
    return [
        {
            "finetune_id": finetune_id,
            "item_id": e.item_id,
            "lang": e.lang,
            "variant": e.variant,
            "split": e.split,
            "position": e.position,
            "stage": e.stage,
            "group_key": e.group_key,
            "country": e.country,
            "answer": e.answer,
        }
        for e in examples
    ]
