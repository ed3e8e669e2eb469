"""`finetune` on CPU with tiny models built in code: the split, sampling and curriculum as CultureMix §6.1 and
ZNO-Vision §4 give them (hand-computed), the loss going down on a toy set, a SIGKILL mid-run resumed from the
last checkpoint, and the tuned model evaluated like any other, before and after, in marts.finetune_comparison."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pipeline.backends.base import Message
from pipeline.finetune.data import Example, arrange, split_groups
from pipeline.finetune.recipes import RECIPES
from tests.helpers import REPO, cli_environment, copy_warehouse, query, run_cli, started_cli


def example(item: str, stage: str | None, group: str, country: str) -> Example:
    return Example(item, "t", "en", "base", (Message("user", item),), (), "a", stage, group, country)


def test_recipes_are_the_papers_settings() -> None:
    zno = RECIPES.get("zno_paligemma")  # ZNO-Vision §4, Table 4
    assert (zno.optimizer, zno.learning_rate, zno.batch_size, zno.gradient_accumulation, zno.epochs) == (
        "adamw_torch", 2e-5, 4, 4, (1, 2, 4)
    )  # fmt: skip
    sft = RECIPES.get("culturemix_sft")  # CultureMix §6.1
    assert (sft.split, sft.train_share, sft.sample_share, sft.curriculum) == (
        "culturemix_sf", 0.7, 1 / 3, ("SF", "MF", "SFB", "MFB")
    )  # fmt: skip
    assert zno.hyperparameters(learning_rate=1e-3, epochs=(2,))["learning_rate"] == 1e-3
    assert zno.hyperparameters(learning_rate=None)["learning_rate"] == 2e-5


def test_the_split_keeps_countries_balanced() -> None:
    # 10 foods of AA -> round(7.0) = 7 train; 3 of BB -> round(2.1) = 2; 1 of CC -> at least 1
    groups = {f"a{i}": "AA" for i in range(10)} | {f"b{i}": "BB" for i in range(3)} | {"c0": "CC"}
    train = split_groups(groups, 0.7, seed=5)
    assert sum(g.startswith("a") for g in train) == 7
    assert sum(g.startswith("b") for g in train) == 2
    assert "c0" in train
    assert split_groups(groups, 0.7, seed=5) == train  # seeded
    assert split_groups(groups, 0.7, seed=6) != train


def test_culturemix_sft_splits_by_sf_image_samples_a_third_and_orders_the_curriculum() -> None:
    examples = []
    for food in ("f1", "f2", "f3"):
        examples += [example(f"{food}-{stage}-{n}", stage, food, "AA") for stage in ("SF", "MF", "SFB", "MFB")
                     for n in range(1 if stage == "SF" else 2)]  # fmt: skip
    examples.append(example("orphan-MF", "MF", "nosf", "AA"))  # a food with no SF image
    arranged = arrange(examples, RECIPES.get("culturemix_sft"), seed=0)
    assert arranged.left_out == [("orphan-MF", "its target food has no SF image to split by")]
    train_foods = {e.group_key for e in arranged.train}
    test_foods = {e.group_key for e in arranged.test}
    assert len(train_foods) == 2 and len(test_foods) == 1 and not train_foods & test_foods  # round(0.7 * 3) = 2
    # the test food keeps all its 7 instances; each train food 7 -> ceil(7 / 3) = 3 sampled
    assert len(arranged.test) == 7 and len(arranged.train) == 6
    order = {"SF": 0, "MF": 1, "SFB": 2, "MFB": 3}
    for food in train_foods:
        stages = [order[e.stage] for e in arranged.train if e.group_key == food]
        assert stages == sorted(stages)
    # each food's examples are consecutive (a food is presented SF -> MF -> SFB -> MFB)
    foods = [e.group_key for e in arranged.train]
    assert foods == sorted(foods, key=foods.index)
    assert [e.position for e in arranged.train] == list(range(6))


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory, ingested_template, tiny_text_model: Path) -> dict:
    """`finetune` killed after its first checkpoint and run again (it resumes), then base and tuned model
    answering the same 12 items, scored and published."""
    root = tmp_path_factory.mktemp("finetune")
    warehouse = copy_warehouse(ingested_template("borsch"), root / "wh" / "warehouse.duckdb")
    out = root / "tuned"
    args = ["finetune", "--model", str(tiny_text_model), "--task", "borsch.origin_qa", "--lang", "ru", "--out",
            str(out), "--limit", "12", "--epochs", "2,10", "--save-steps", "2", "--seed", "1"]  # fmt: skip
    seen = []
    with started_cli(warehouse, *args, env={**cli_environment(), "OMP_NUM_THREADS": "1"}) as command:
        for line in command.lines():
            seen.append(line)
            if line.startswith("checkpoint 4 saved"):
                break
        command.kill()
    killed = {
        "status": query(warehouse.with_name("warehouse.work.duckdb"), "SELECT status FROM core.finetune_runs"),
        "checkpoints": sorted(p.name for p in (out / "checkpoints").iterdir()),
        "lines": seen,
    }
    resumed = run_cli(warehouse, *args)
    for model in (str(tiny_text_model), str(out / "epoch-10")):
        question = ["--task", "borsch.origin_qa", "--lang", "ru", "--limit", "12", "--variants", "1"]
        run_cli(warehouse, "--no-publish", "generate", *question, "--backend", "transformers", "--model", model,
                "--max-tokens", "6")  # fmt: skip
    run_cli(warehouse, "score")
    return {"warehouse": warehouse, "out": out, "killed": killed, "resumed": resumed, "base": tiny_text_model}


def test_a_killed_run_resumes_from_its_last_checkpoint(tuned: dict) -> None:
    killed = tuned["killed"]
    assert killed["status"] == [("running",)], killed["lines"]  # the kill came before the end
    assert "checkpoint-4" in killed["checkpoints"]
    assert "resuming from checkpoint-" in tuned["resumed"].stderr
    runs = query(tuned["warehouse"], "SELECT status, resumed_from, train_steps FROM marts.finetune_runs")
    # 12 items: 9 train (round(0.7 x n) per country), batch 4 -> 3 steps per epoch, 10 epochs
    ((status, resumed_from, steps),) = runs
    assert status == "done" and steps == 30
    assert int(resumed_from.rsplit("-", 1)[1]) >= 4
    losses = [step for (step,) in query(tuned["warehouse"], "SELECT step FROM marts.finetune_losses ORDER BY step")]
    assert losses == list(range(1, 31))  # the steps before the kill come back with the checkpoint's history


def test_the_loss_goes_down_on_the_toy_set(tuned: dict) -> None:
    first, last = query(
        tuned["warehouse"],
        "SELECT avg(loss) FILTER (WHERE epoch <= 1), avg(loss) FILTER (WHERE epoch > 9) FROM marts.finetune_losses",
    )[0]
    assert last < first * 0.8


def test_the_run_records_its_data_split_and_settings(tuned: dict) -> None:
    warehouse = tuned["warehouse"]
    ((recipe, lr, batch, accumulation, epochs, n_train, n_test),) = query(
        warehouse,
        "SELECT recipe, learning_rate, batch_size, gradient_accumulation, epochs, n_train, n_test "
        "FROM marts.finetune_runs",
    )
    assert (recipe, lr, batch, accumulation, epochs) == ("plain", 1e-3, 4, 1, [2, 10])
    counts = dict(query(warehouse, "SELECT split, count(*) FROM core.finetune_examples GROUP BY split"))
    assert counts == {"train": n_train, "test": n_test} and n_train + n_test == 12
    # the answer trained on is the item's gold countries named in Russian
    (answer, names), = query(
        warehouse,
        """SELECT e.answer, string_agg(k.name_ru, ', ' ORDER BY o.position) FROM core.finetune_examples e
           JOIN core.items i USING (item_id) JOIN core.dish_origins o ON o.dish_key = i.dish_key
           JOIN core.countries k ON k.country = o.country WHERE e.position = 0 AND e.split = 'train'
           GROUP BY e.answer""",
    )  # fmt: skip
    assert answer == names
    models = query(warehouse, "SELECT epoch, model_path FROM marts.finetune_models ORDER BY epoch")
    assert [e for e, _ in models] == [2, 10] and all((Path(p) / "config.json").is_file() for _, p in models)


def test_before_and_after_are_compared_on_the_test_items_only(tuned: dict) -> None:
    warehouse = tuned["warehouse"]
    rows = query(
        warehouse,
        """SELECT epoch, n_test_items, n_before, before, n_after, after, n_pairs, change FROM marts.finetune_comparison
           WHERE metric = 'accuracy' ORDER BY epoch""",
    )
    tuned_path = str(tuned["out"] / "epoch-10")
    expected = {}
    for model in (str(tuned["base"]), tuned_path):
        expected[model] = query(
            warehouse,
            """SELECT count(*), avg(s.value) FROM core.generations g JOIN core.scores s USING (generation_id)
               WHERE s.metric = 'accuracy' AND g.model_id = ? AND g.item_id IN
                     (SELECT item_id FROM core.finetune_examples WHERE split = 'test')""",
            [model],
        )[0]
    n_test = query(warehouse, "SELECT count(*) FROM core.finetune_examples WHERE split = 'test'")[0][0]
    epoch2, epoch10 = rows
    assert epoch2[:4] == (2, n_test, *expected[str(tuned["base"])]) and epoch2[4] == 0 and epoch2[5] is None
    assert epoch10 == (10, n_test, *expected[str(tuned["base"])], *expected[tuned_path], n_test,
                       expected[tuned_path][1] - expected[str(tuned["base"])][1])  # fmt: skip
    assert expected[tuned_path][0] == n_test  # the tuned model answered every test item


def test_a_rerun_of_a_finished_run_does_nothing(tuned: dict) -> None:
    again = run_cli(tuned["warehouse"], "finetune", "--model", str(tuned["base"]), "--task", "borsch.origin_qa",
                    "--lang", "ru", "--out", str(tuned["out"]), "--limit", "12", "--epochs", "2,10",
                    "--save-steps", "2", "--seed", "1")  # fmt: skip
    assert "is done already" in again.stderr


def test_another_run_is_refused_the_same_folder(tuned: dict) -> None:
    args = ["--model", str(tuned["base"]), "--task", "borsch.origin_qa", "--lang", "ru", "--out", str(tuned["out"])]
    other = run_cli(tuned["warehouse"], "finetune", *args, "--limit", "12", "--epochs", "1", check=False)
    assert other.returncode == 2
    assert other.stderr.count("error:") == 1 and "holds another fine-tuning run" in other.stderr


def test_culturemix_sft_trains_a_tiny_vision_model_with_lora(
    culturemix_warehouse: Path, tiny_vision_model: Path, tmp_path: Path
) -> None:
    out = tmp_path / "sft"
    tasks = "culturemix.sf,culturemix.mf,culturemix.sfb,culturemix.mfb"
    run_cli(culturemix_warehouse, "finetune", "--model", str(tiny_vision_model), "--task", tasks, "--lang", "en",
            "--out", str(out), "--recipe", "culturemix_sft", "--method", "lora", "--learning-rate", "1e-3",
            "--variant", "direct")  # fmt: skip
    ((recipe, method, source, n_train, n_test),) = query(
        culturemix_warehouse, "SELECT recipe, method, source, n_train, n_test FROM marts.finetune_runs"
    )
    assert (recipe, method, source) == ("culturemix_sft", "lora", "CultureMix §6.1")
    # every test item's food is a test food, and no food is on both sides
    overlap = query(
        culturemix_warehouse,
        """SELECT count(*) FROM core.finetune_examples a JOIN core.finetune_examples b USING (finetune_id, group_key)
           WHERE a.split = 'train' AND b.split = 'test'""",
    )
    assert overlap == [(0,)] and n_train > 0 and n_test > 0
    answer = query(culturemix_warehouse, "SELECT answer FROM core.finetune_examples WHERE position = 0 LIMIT 1")[0][0]
    assert answer.startswith("Food: ") and ". Country: " in answer
    saved = out / "epoch-1"
    assert (saved / "config.json").is_file() and not list(saved.glob("adapter_*"))  # merged: loads as a plain model
    question = ["--task", "culturemix.sf", "--lang", "en", "--limit", "2", "--variants", "direct"]
    result = run_cli(culturemix_warehouse, "generate", *question, "--backend", "transformers", "--model", str(saved),
                     "--max-tokens", "4")  # fmt: skip
    assert "2 answers" in result.stderr


def test_the_page_shows_the_run_its_loss_and_the_comparison(tuned: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.testing.v1 import AppTest

    from tests.helpers import shown, vega_rows

    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(tuned["warehouse"]))
    at = AppTest.from_file(REPO / "app" / "main.py", default_timeout=90)
    at.query_params["dataset"] = "borsch"
    at.run()
    at.switch_page("views/finetune.py").run()
    assert not at.exception, [e.value for e in at.exception]
    text = "\n".join(shown(str(e.value)) for kind in ("markdown", "warning", "caption") for e in at.get(kind))
    assert f"Base model {tuned['base']}" in text.replace("`", "")
    assert "tiny random test model" in text
    assert f"{tuned['out'] / 'epoch-2'} has no scored answer on the test items yet" in text
    assert len(vega_rows(at.get("vega_lite_chart")[0])) == 30  # one point per optimizer step
    settings, comparison = (frame.value for frame in at.dataframe)
    assert settings[["train", "test", "epochs"]].values.tolist()[0][2] == "2, 10"
    accuracy = comparison[(comparison["metric"] == "accuracy") & (comparison["epoch"] == 10)]
    expected = query(
        tuned["warehouse"],
        "SELECT n_before, n_after, n_pairs FROM marts.finetune_comparison WHERE metric = 'accuracy' AND epoch = 10",
    )
    assert accuracy[["n_before", "n_after", "n_pairs"]].values.tolist() == [list(expected[0])]


def test_the_gpu_smoke_runs_the_finetune_part() -> None:
    script = (REPO / "bench" / "gpu_smoke.sh").read_text(encoding="utf-8")
    assert subprocess.run(["bash", "-n", str(REPO / "bench" / "gpu_smoke.sh")]).returncode == 0
    assert script.count("bench/gpu_finetune.py ${FINETUNE_ARGS:-}") == 2  # with and without the text part


def test_the_run_configuration_has_a_finetune_section(tmp_path: Path) -> None:
    from pipeline.core.errors import DataError
    from pipeline.flow import runconfig

    config = tmp_path / "run.toml"
    config.write_text(
        """
stages = ["finetune", "generate", "score", "publish"]
[models.base]
backend = "transformers"
model = "/models/base"
[models.tuned]
backend = "transformers"
model = "/models/tuned/epoch-2"
[finetune]
model = "base"
tasks = ["culturemix.sf", "culturemix.mf"]
lang = "en"
out = "/models/tuned"
recipe = "zno_paligemma"
settings = { epochs = [1, 2], method = "lora" }
[[runs]]
task = "culturemix.sf"
langs = ["en"]
models = ["base", "tuned"]
""",
        encoding="utf-8",
    )
    plan = runconfig.load(config)
    (spec,) = plan.finetunes
    assert (spec.model, spec.tasks, spec.lang, spec.out, spec.recipe) == (
        "/models/base", ("culturemix.sf", "culturemix.mf"), "en", Path("/models/tuned"), "zno_paligemma"
    )  # fmt: skip
    assert spec.overrides == {"epochs": (1, 2), "method": "lora"}
    assert [g.model for g in plan.generations] == ["/models/base", "/models/tuned/epoch-2"]
    config.write_text(config.read_text().replace('model = "base"', 'model = "nobody"'), encoding="utf-8")
    with pytest.raises(DataError, match="names model 'nobody', not defined under"):
        runconfig.load(config)
    config.write_text(config.read_text().replace("method =", "rate ="), encoding="utf-8")
    with pytest.raises(DataError, match="unknown keys"):
        runconfig.load(config)
