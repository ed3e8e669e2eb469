"""The generate stage end to end on real tiny models: transformers backend -> warehouse -> score ->
publish; the cache; missing images; and a run killed with SIGKILL that resumes without duplicates."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import duckdb
import pytest
from PIL import Image

from pipeline.answers.prompting import ItemInput, cache_key, render
from pipeline.backends import Message, ModelIdentity
from pipeline.backends.replay import record_answers
from pipeline.tasks import get_task, with_prompt_set, with_prompt_table
from tests.helpers import query, run_cli, started_cli


def test_prompts_are_rendered_from_the_task_declaration() -> None:
    task = get_task("borsch.origin_qa")
    item = ItemInput("borsch.origin_qa:ru:39", "borsch:ru:39", "ПЛОВ")
    (message,) = render(task, item, task.templates("ru")["1"])
    assert message.text == "Из какой страны или стран происходит блюдо ПЛОВ?"  # the paper's wording is the default
    assert message.role == "user" and message.images == ()
    assert set(task.templates("uk")) == {"1", "2", "3", "4", "5"}
    assert task.max_tokens == 200  # as published (BORSch Appendix N)


def test_zno_vision_tasks_generate_at_temperature_1_with_300_new_tokens_as_section_4_says() -> None:
    for task_id in ("zno.exam", "vqa.answer", "multi30k.caption"):
        task = get_task(task_id)
        assert (task.temperature, task.max_tokens) == (1.0, 300), task_id
    assert get_task("borsch.origin_qa").temperature is None  # the backend's setting: greedy, as BORSch ran


def test_every_borsch_model_task_generates_200_new_tokens_as_appendix_n_says() -> None:
    for name in ("origin_qa", "origin_vqa", "origin_vqa_with_name", "dish_name_vqa", "dish_description"):
        assert get_task(f"borsch.{name}").max_tokens == 200, name


def test_the_projects_own_wording_stays_selectable_by_name() -> None:
    task = with_prompt_set(get_task("borsch.origin_qa"), "atlas")
    item = ItemInput("borsch.origin_qa:ru:39", "borsch:ru:39", "ПЛОВ")
    (message,) = render(task, item, task.templates("ru")["atlas-1"])
    assert "«ПЛОВ»" in message.text
    assert set(task.templates("uk")) == {f"atlas-{n}" for n in range(1, 6)}
    assert all(task.reading("uk", variant) == "origin" for variant in task.templates("uk"))


def test_the_papers_prompt_table_can_replace_the_wording(data_dir: Path) -> None:
    task = with_prompt_table(get_task("borsch.origin_qa"), data_dir / "seed_prompts" / "borsch_prompts.tsv")
    item = ItemInput("i", "borsch:ru:39", "ПЛОВ")
    (message,) = render(task, item, task.templates("ru")["1"])
    assert message.text == "Из какой страны или стран происходит блюдо ПЛОВ?"


@pytest.mark.parametrize(
    "name", ["origin_qa", "origin_vqa", "origin_vqa_with_name", "dish_name_vqa", "dish_description"]
)
def test_the_default_prompts_are_the_papers_word_for_word(data_dir: Path, name: str) -> None:
    declared = get_task(f"borsch.{name}")
    published = with_prompt_table(declared, data_dir / "seed_prompts" / "borsch_prompts.tsv")
    for lang in ("ru", "uk"):
        assert declared.templates(lang) == published.templates(lang), lang


class _Fixed:
    """Just enough of a backend for cache keys: identity and settings."""

    name = "transformers"

    def __init__(self, weights: str, temperature: float = 0.0) -> None:
        self.weights, self.temperature = weights, temperature

    def identity(self) -> ModelIdentity:
        return ModelIdentity("m", None, self.weights)

    def settings(self) -> dict:
        return {"temperature": self.temperature}


def test_cache_key_changes_with_model_settings_messages_and_image_bytes() -> None:
    messages = (Message("user", "Из какой страны блюдо?"),)
    base = cache_key(_Fixed("w1"), messages, ("aaa",))
    assert base == cache_key(_Fixed("w1"), messages, ("aaa",))
    assert base != cache_key(_Fixed("w2"), messages, ("aaa",))
    assert base != cache_key(_Fixed("w1", 0.7), messages, ("aaa",))
    assert base != cache_key(_Fixed("w1"), (Message("user", "Откуда блюдо?"),), ("aaa",))
    assert base != cache_key(_Fixed("w1"), messages, ("bbb",))


def test_text_task_end_to_end_with_the_transformers_backend(borsch_warehouse: Path, tiny_text_model: Path) -> None:
    args = [
        "generate",
        "--task",
        "borsch.origin_qa",
        "--lang",
        "ru",
        "--backend",
        "transformers",
        "--model",
        str(tiny_text_model),
        "--limit",
        "3",
        "--max-tokens",
        "8",
    ]
    first = run_cli(borsch_warehouse, "--no-publish", *args)  # published with the scores below
    assert "15 answers (0 cached, 0 failed)" in " ".join(first.stderr.split())
    work = borsch_warehouse.with_name("warehouse.work.duckdb")
    rows = query(work, "SELECT item_id, variant, origin FROM core.generations ORDER BY item_id, variant")
    assert len(rows) == 15 and {r[2] for r in rows} == {"transformers"}
    assert {r[0] for r in rows} == {"borsch.origin_qa:ru:1", "borsch.origin_qa:ru:2", "borsch.origin_qa:ru:3"}
    summary = query(
        work, "SELECT n_requested, n_generated, n_skipped, tokens_out > 0, wall_seconds > 0 FROM core.generation_runs"
    )
    assert summary == [(15, 15, 0, True, True)]

    again = run_cli(borsch_warehouse, "--no-publish", *args)
    assert "0 answers (15 cached, 0 failed)" in " ".join(again.stderr.split())

    run_cli(borsch_warehouse, "score")
    scored = query(
        borsch_warehouse,
        """SELECT count(*), count(DISTINCT item_id), min(gold)
        FROM marts.origin_scores WHERE dataset = 'borsch' AND task = 'origin_qa'""",
    )
    assert scored == [(15, 3, "GR")]  # ID 1 ДАКОС is Greek


def test_each_seed_of_a_sampling_run_is_a_repeated_sample_of_its_own(borsch_warehouse: Path, tiny_text_model: Path):
    """At temperature 1 another seed asks the same questions again: each answer is kept as that seed's sample
    (CultureMix's entropy is over such samples), and the warehouse still publishes (one answer per sample)."""
    args = ["generate", "--task", "borsch.origin_qa", "--lang", "ru", "--backend", "transformers",
            "--model", str(tiny_text_model), "--limit", "1", "--max-tokens", "4",
            "--setting", "temperature=1"]  # fmt: skip
    for seed in ("3", "4"):
        run_cli(borsch_warehouse, "--no-publish", *args, "--setting", f"seed={seed}")
    work = borsch_warehouse.with_name("warehouse.work.duckdb")
    samples = query(work, "SELECT variant, list(sample ORDER BY sample) FROM core.generations GROUP BY 1 ORDER BY 1")
    assert samples == [(str(v), [3, 4]) for v in range(1, 6)]
    run_cli(borsch_warehouse, "score")  # publishing runs the integrity checks


def make_images(root: Path, lang_dir: str, dish_id: int, count: int) -> None:
    folder = root / lang_dir / "images" / str(dish_id)
    folder.mkdir(parents=True)
    for index in range(count):
        Image.new("RGB", (40, 30), (30 * index, 120, 200)).save(folder / f"image_{index}.png")


def test_image_task_skips_items_without_readable_images(
    borsch_warehouse: Path, tiny_vision_model: Path, tmp_path: Path
) -> None:
    images = tmp_path / "borsch"
    make_images(images, "UK", 1, 3)
    make_images(images, "UK", 2, 1)
    broken = images / "UK" / "images" / "3"
    broken.mkdir(parents=True)
    (broken / "photo.jpg").write_bytes(b"not a jpeg")
    result = run_cli(
        borsch_warehouse,
        "generate",
        "--task",
        "borsch.origin_vqa",
        "--lang",
        "uk",
        "--backend",
        "transformers",
        "--model",
        str(tiny_vision_model),
        "--limit",
        "4",
        "--images",
        str(images),
        "--variants",
        "1,2",
        "--max-tokens",
        "6",
    )
    assert "2 items skipped" in " ".join(result.stderr.split())
    work = borsch_warehouse.with_name("warehouse.work.duckdb")
    assert query(work, "SELECT count(*) FROM core.generations") == [(4,)]
    reasons = dict(query(work, "SELECT item_id, reason FROM core.generation_failures ORDER BY item_id"))
    assert "no readable image" in reasons["borsch.origin_vqa:uk:3"]
    assert "does not exist" in reasons["borsch.origin_vqa:uk:4"]
    assert query(work, "SELECT item_id, count(*) FROM core.item_images GROUP BY ALL ORDER BY 1") == [
        ("borsch.origin_vqa:uk:1", 3),
        ("borsch.origin_vqa:uk:2", 1),
    ]


def test_dish_name_answers_are_scored_by_name_match(
    borsch_warehouse: Path, tiny_vision_model: Path, tmp_path: Path
) -> None:
    images = tmp_path / "borsch"
    make_images(images, "RU", 1, 2)
    run_cli(
        borsch_warehouse,
        "--no-publish",
        "generate",
        "--task",
        "borsch.dish_name_vqa",
        "--lang",
        "ru",
        "--backend",
        "transformers",
        "--model",
        str(tiny_vision_model),
        "--limit",
        "1",
        "--images",
        str(images),
        "--max-tokens",
        "4",
    )
    work = borsch_warehouse.with_name("warehouse.work.duckdb")
    [(gold,)] = query(work, "SELECT name FROM core.dishes WHERE dish_key = 'borsch:ru:1'")
    # The tiny model's answers are random; replay the same questions with answers whose names we know.
    answers = {"1": f"Это {gold.lower()}.", "2": "Борщ или Щи", "3": f"1. Щи 2. {gold}"}
    recording = tmp_path / "recording.jsonl"
    con = duckdb.connect(str(work))
    try:
        record_answers(con, str(tiny_vision_model), recording)
    finally:
        con.close()
    lines = [json.loads(line) for line in recording.read_text(encoding="utf-8").splitlines()]
    recording.write_text(
        "".join(json.dumps({**line, "text": answers.get(line["variant"], "")}) + "\n" for line in lines),
        encoding="utf-8",
    )
    replay = ["--backend", "replay", "--model", str(recording), "--variants", "1,2,3"]
    common = ["generate", "--task", "borsch.dish_name_vqa", "--lang", "ru", "--limit", "1", "--images", str(images)]
    run_cli(borsch_warehouse, "--no-publish", *common, *replay)
    run_cli(borsch_warehouse, "score")
    scored = query(
        work,
        """SELECT g.variant, e.dish_names, s.metric, s.value FROM core.generations g
           JOIN core.extractions e USING (generation_id) JOIN core.scores s USING (generation_id)
           WHERE g.model_id = ? AND s.metric = 'name_lev1' ORDER BY g.variant""",
        [str(recording)],
    )  # BORSch's own rule: an accepted name within one Levenshtein edit
    assert scored == [
        ("1", [gold.lower()], "name_lev1", 1.0),
        ("2", ["Борщ", "Щи"], "name_lev1", 0.0),
        ("3", ["Щи", gold], "name_lev1", 1.0),
    ]


def test_a_killed_run_resumes_without_duplicates(borsch_warehouse: Path, tiny_text_model: Path) -> None:
    args = ["generate", "--task", "borsch.origin_qa", "--lang", "uk", "--backend", "transformers",
            "--model", str(tiny_text_model), "--limit", "30", "--max-tokens", "6", "--chunk-size", "10"]  # fmt: skip
    with started_cli(borsch_warehouse, *args) as command:
        assert any(line.startswith("committed 20/") for line in command.lines())
        assert command.kill() == -signal.SIGKILL
    work = borsch_warehouse.with_name("warehouse.work.duckdb")
    partial = query(work, "SELECT count(*) FROM core.generations")[0][0]
    assert 20 <= partial < 150 and partial % 10 == 0  # whole chunks only
    run_cli(borsch_warehouse, *args)
    assert query(
        work, "SELECT count(*), count(DISTINCT generation_id), count(DISTINCT (item_id, variant)) FROM core.generations"
    ) == [(150, 150, 150)]


def test_a_run_configuration_generates_scores_and_publishes(
    borsch_warehouse: Path, tiny_text_model: Path, tmp_path: Path
) -> None:
    config = tmp_path / "run.toml"
    config.write_text(
        f"""
stages = ["generate", "score", "publish"]
[models.tiny]
backend = "transformers"
model = "{tiny_text_model}"
settings = {{ batch_size = 4 }}
[[runs]]
task = "borsch.origin_qa"
langs = ["ru", "uk"]
models = ["tiny"]
limit = 1
variants = ["1", "2"]
max_tokens = 5
""",
        encoding="utf-8",
    )
    run_cli(borsch_warehouse, "run", str(config))
    rows = query(borsch_warehouse, "SELECT lang, count(*) FROM marts.origin_scores GROUP BY ALL ORDER BY 1")
    assert rows == [("ru", 2), ("uk", 2)]


def test_a_run_configuration_naming_an_unknown_model_is_refused(borsch_warehouse: Path, tmp_path: Path) -> None:
    config = tmp_path / "run.toml"
    config.write_text('[[runs]]\ntask = "borsch.origin_qa"\nlangs = ["ru"]\nmodels = ["ghost"]\n', encoding="utf-8")
    result = run_cli(borsch_warehouse, "run", str(config), check=False)
    assert result.returncode == 2 and "ghost" in result.stderr and "Traceback" not in result.stderr


def test_tiny_model_command_saves_a_loadable_model(tmp_path: Path) -> None:
    result = run_cli(tmp_path / "w.duckdb", "tiny-model", "--kind", "text", "--out", str(tmp_path / "tiny"))
    assert "tiny text model saved" in result.stderr
    assert (tmp_path / "tiny" / "config.json").is_file() and list((tmp_path / "tiny").glob("*.safetensors"))


def test_a_dead_model_server_fails_fast_with_a_clear_message(borsch_warehouse: Path) -> None:
    result = run_cli(
        borsch_warehouse,
        "generate",
        "--task",
        "borsch.origin_qa",
        "--lang",
        "ru",
        "--backend",
        "openai",
        "--model",
        "ghost",
        "--limit",
        "1",
        "--setting",
        "base_url=http://127.0.0.1:9/v1",
        check=False,
    )
    assert result.returncode == 2 and "cannot reach the model server" in " ".join(result.stderr.split())


def test_our_worldcuisines_runs_sit_beside_the_imported_answers(
    worldcuisines_warehouse: Path, data_dir: Path, tiny_vision_model: Path, tmp_path: Path
) -> None:
    warehouse = worldcuisines_warehouse
    # The real answers of molmoe-1b to the two items asked below (all languages), under the file's own name.
    real = data_dir / "worldcuisines" / "predictions" / "task2_oe_molmoe-1b.jsonl"
    imported = tmp_path / real.name
    with open(real, encoding="utf-8") as lines:
        imported.write_text("".join(line for line in lines if json.loads(line)["qa_id"] in ("1900", "1901")))
    run_cli(warehouse, "--no-publish", "import-responses", str(imported))
    images = tmp_path / "wc"
    for food_id in ("949", "303"):  # the first two items: qa_id 1900 (Melktert) and 1901
        (images / food_id).mkdir(parents=True)
        Image.new("RGB", (32, 32), (200, 180, 90)).save(images / food_id / "photo.png")
    run_cli(
        warehouse,
        "--no-publish",
        "generate",
        "--task",
        "worldcuisines.origin_vqa",
        "--lang",
        "en",
        "--backend",
        "transformers",
        "--model",
        str(tiny_vision_model),
        "--limit",
        "2",
        "--images",
        str(images),
        "--max-tokens",
        "4",
    )
    run_cli(warehouse, "score")
    models = query(
        warehouse,
        """SELECT model, count(*) FROM marts.origin_scores
        WHERE lang = 'en' AND item_id IN ('1900', '1901') GROUP BY ALL ORDER BY 1""",
    )
    assert [n for _, n in models] == [2, 2] and "molmoe-1b" in {m for m, _ in models}
