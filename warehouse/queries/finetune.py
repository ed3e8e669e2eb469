"""Queries for the Fine-tuning page: the runs, their losses and the before/after comparison on each run's
test items (marts.finetune_*, built by warehouse/marts/150_finetune.sql)."""

from __future__ import annotations

import pandas as pd

from warehouse.queries import Source, _frame


def runs(source: Source) -> pd.DataFrame:
    """Every fine-tuning run, newest last, with its recipe, settings and data counts."""
    return _frame(
        source,
        """SELECT finetune_id, recipe, source, base_model, method, optimizer, learning_rate, batch_size,
                  gradient_accumulation, epochs, n_train, n_test, split_rule, tasks, lang, train_steps, first_loss,
                  last_loss, status, output_dir, resumed_from, base_tiny_random, started_at, finished_at
           FROM marts.finetune_runs ORDER BY started_at, finetune_id""",
    )


def losses(source: Source, finetune_id: str) -> pd.DataFrame:
    return _frame(
        source, "SELECT step, epoch, loss FROM marts.finetune_losses WHERE finetune_id = $id ORDER BY step",
        {"id": finetune_id},
    )  # fmt: skip


def models(source: Source, finetune_id: str) -> pd.DataFrame:
    return _frame(
        source, "SELECT epoch, model_path FROM marts.finetune_models WHERE finetune_id = $id ORDER BY epoch",
        {"id": finetune_id},
    )  # fmt: skip


def comparison(source: Source, finetune_id: str) -> pd.DataFrame:
    """Base model against each tuned epoch on the run's test items, per task, language and metric."""
    return _frame(
        source,
        """SELECT task, lang, metric, epoch, tuned_model, n_test_items, n_before, before, n_after, after, n_pairs,
                  before_paired, after_paired, change
           FROM marts.finetune_comparison WHERE finetune_id = $id ORDER BY task, lang, metric, epoch""",
        {"id": finetune_id},
    )
