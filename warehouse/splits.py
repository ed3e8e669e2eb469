"""CultureMix's 7:3 train-test split (§6.1), in one home: the fine-tuning stage trains on one side of it
(pipeline/finetune/data.py) and Table 2 compares the prompt methods and the fine-tuned model on the other
(warehouse/marts/culturemix_mitigation.py), so both draw the very same split."""

from __future__ import annotations

import random

# §6.1: "SF images are divided with a 7:3 train-test ratio, ensuring balanced country distribution"; the seed is ours
# (the paper's split is not published): the culturemix_sft recipe's default seed.
CULTUREMIX_TRAIN_SHARE = 0.7
CULTUREMIX_SEED = 0


def split_groups(countries: dict[str, str | None], share: float, seed: int) -> set[str]:
    """The groups that go to training: within each country, a seeded shuffle of its groups and the first
    round(share x n) of them (at least one), so every country is in both sets in the same proportion where it
    has groups enough (CultureMix §6.1: "balanced country distribution")."""
    by_country: dict[str, list[str]] = {}
    for group, country in countries.items():
        by_country.setdefault(country or "", []).append(group)
    train: set[str] = set()
    for country, groups in sorted(by_country.items()):
        ordered = sorted(groups)
        random.Random(f"{seed}:{country}").shuffle(ordered)
        train.update(ordered[: max(1, round(share * len(ordered)))])
    return train
