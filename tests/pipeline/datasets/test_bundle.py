"""The embedded bundle (assets/bundle/, pipeline/datasets/bundle.py): what the public files give, byte for byte; small
enough to ship; every model and language of the published answers; unpacked safely."""

from __future__ import annotations

import hashlib
import io
import json
import lzma
import shutil
import tarfile
from pathlib import Path

import pytest

from pipeline.core.errors import DataError
from pipeline.datasets import bundle

LIMIT_BYTES = 15 * 1024 * 1024  # "at most ~15 MB in the repository"
FILE_LIMIT_BYTES = 5 * 1024 * 1024  # and no large binary file in git


@pytest.fixture(scope="module")
def committed() -> dict:
    return bundle.manifest()


@pytest.fixture(scope="module")
def members() -> dict[str, bytes]:
    """Every file the bundle ships: the archive's members and the loose CultureMix files beside it."""
    raw = lzma.decompress((bundle.BUNDLE_DIR / bundle.ARCHIVE).read_bytes())
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        inside = {member.name: tar.extractfile(member).read() for member in tar.getmembers()}
    loose = bundle.BUNDLE_DIR / bundle.CULTUREMIX
    return inside | {
        f"{bundle.CULTUREMIX}/{path.relative_to(loose).as_posix()}": path.read_bytes()
        for path in loose.rglob("*")
        if path.is_file()
    }


def test_the_committed_bundle_is_what_the_public_files_give(data_dir: Path, committed: dict, members: dict) -> None:
    """Rebuilding from the pinned public files selects the same questions and writes the same bytes in every file."""
    selection = bundle.select(data_dir / "worldcuisines")
    assert list(selection.task2_qa_ids) == committed["selection"]["worldcuisines.origin_vqa"]["qa_ids"]
    assert list(selection.task1_food_ids) == committed["selection"]["worldcuisines.dish_name_vqa"]["food_ids"]
    rebuilt = bundle.bundle_files(data_dir, selection)
    assert {name: hashlib.sha256(data).hexdigest() for name, data in rebuilt.items()} == {
        name: entry["sha256"] for name, entry in committed["files"].items()
    }
    assert {name: hashlib.sha256(data).hexdigest() for name, data in members.items()} == {
        name: entry["sha256"] for name, entry in committed["files"].items()
    }
    archive = (bundle.BUNDLE_DIR / bundle.ARCHIVE).read_bytes()
    assert hashlib.sha256(archive).hexdigest() == committed["archive"]["sha256"]
    assert bundle._archive(bundle.archived(dict(reversed(list(rebuilt.items()))))) == archive  # its files' bytes alone


def test_the_bundle_is_small_and_carries_its_licences() -> None:
    sizes = [path.stat().st_size for path in bundle.BUNDLE_DIR.rglob("*") if path.is_file()]
    assert sum(sizes) < LIMIT_BYTES and max(sizes) < FILE_LIMIT_BYTES
    licences = {path.name for path in (bundle.BUNDLE_DIR / "licenses").iterdir()}
    assert licences == {"borsch-LICENSE", "worldcuisines-LICENSE", "culturemix-sample-LICENSE"}
    expected = {"borsch": "MIT", "worldcuisines": "Apache License", "culturemix-sample": "ShareAlike 4.0"}
    for name, words in expected.items():
        assert words in (bundle.BUNDLE_DIR / "licenses" / f"{name}-LICENSE").read_text(encoding="utf-8")


def test_the_bundle_holds_every_borsch_dish_and_every_model_in_every_language(data_dir: Path, members: dict) -> None:
    for name in ("RU_DATA.xlsx", "UK_DATA.xlsx", "PARALLEL_RU_UK.xlsx"):
        assert members[f"borsch/{name}"] == (data_dir / "borsch" / name).read_bytes()
    sample = data_dir / "culturemix-sample"
    assert {f"culturemix-sample/{p.relative_to(sample).as_posix()}" for p in sample.rglob("*") if p.is_file()} <= set(
        members
    )  # the CultureMix sample whole: licensed for redistribution
    answers = {name: data for name, data in members.items() if name.startswith("worldcuisines/predictions/task2_oe_")}
    assert len(answers) == 12
    for name, data in answers.items():
        lines = [json.loads(line) for line in data.decode("utf-8").splitlines()]
        assert len({line["lang"] for line in lines}) == 30, name
        assert len({line["qa_id"] for line in lines}) == bundle.TASK2_ITEMS, name


def test_the_selection_keeps_every_post_soviet_question_and_many_origins(data_dir: Path, committed: dict) -> None:
    import csv

    with open(data_dir / "worldcuisines" / "eval" / "large_eval_task2.csv", encoding="utf-8", newline="") as handle:
        rows = {row["qa_id"]: row for row in csv.DictReader(handle)}
    kept = set(committed["selection"]["worldcuisines.origin_vqa"]["qa_ids"])
    post_soviet = {qa for qa, row in rows.items() if bundle._countries(row) & bundle.POST_SOVIET_NAMES}
    assert post_soviet and post_soviet <= kept
    others = [rows[qa]["answer"] for qa in kept - post_soviet]
    assert len(others) == len(set(others))  # then one question per gold country in turn: as wide a map as it can


def test_unpack_makes_a_data_folder_once(tmp_path: Path) -> None:
    first = bundle.unpack(tmp_path)
    assert (first / "borsch" / "RU_DATA.xlsx").is_file()
    assert (first / "worldcuisines" / "kb" / "final_data.csv").is_file()
    assert bundle.subset_notes(first)["worldcuisines"].startswith(f"bundled subset: {bundle.TASK2_ITEMS} of 500")
    assert "borsch" not in bundle.subset_notes(first)  # whole
    assert bundle.unpack(tmp_path) == first
    assert [path.name for path in tmp_path.iterdir()] == [first.name]  # no staging folder left behind


def test_a_changed_loose_file_is_one_clear_error(tmp_path: Path) -> None:
    copy = tmp_path / "bundle"
    shutil.copytree(bundle.BUNDLE_DIR, copy)
    image = next((copy / bundle.CULTUREMIX / "images").iterdir())
    image.write_bytes(image.read_bytes()[:-1])
    with pytest.raises(DataError, match="damaged"):
        bundle.unpack(tmp_path / "out", copy)


def test_a_damaged_archive_is_one_clear_error(tmp_path: Path) -> None:
    copy = tmp_path / "bundle"
    shutil.copytree(bundle.BUNDLE_DIR, copy)
    archive = bytearray((copy / bundle.ARCHIVE).read_bytes())
    archive[len(archive) // 2] ^= 0xFF
    (copy / bundle.ARCHIVE).write_bytes(bytes(archive))
    with pytest.raises(DataError, match="damaged"):
        bundle.unpack(tmp_path / "out", copy)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


@pytest.fixture(params=["data filter", "no data filter (Python < 3.11.4)"])
def tar_filter(request, monkeypatch) -> str:
    """Unpacking with tarfile's `data` filter, and on a Python without it (Debian 12's 3.11.2), the same checks."""
    if request.param.startswith("no"):
        monkeypatch.delattr(tarfile, "data_filter")
    return request.param


def test_the_committed_bundle_unpacks_with_or_without_the_data_filter(tmp_path: Path, tar_filter: str) -> None:
    unpacked = bundle.unpack(tmp_path)
    assert (unpacked / "borsch").is_dir() and any((unpacked / "worldcuisines").rglob("*.jsonl"))


@pytest.mark.parametrize("member", ["../escaped.txt", "link"])
def test_an_archive_member_outside_its_folder_is_refused(tmp_path: Path, tar_filter: str, member: str) -> None:
    """A bundle whose archive names ../ paths or links out (a hostile or broken rebuild) writes nothing outside its
    folder."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        info = tarfile.TarInfo(member)
        if member == "link":
            info.type, info.linkname = tarfile.SYMTYPE, str(tmp_path / "escaped.txt")
            tar.addfile(info)
        else:
            info.size = 2
            tar.addfile(info, io.BytesIO(b"hi"))
    archive = lzma.compress(raw.getvalue())
    hostile = tmp_path / "bundle"
    hostile.mkdir()
    (hostile / bundle.ARCHIVE).write_bytes(archive)
    manifest = {"sources": {}, "archive": {"sha256": hashlib.sha256(archive).hexdigest()}}
    (hostile / bundle.MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(DataError, match="outside"):
        bundle.unpack(tmp_path / "out", hostile)
    assert not (tmp_path / "escaped.txt").exists() and not (tmp_path / "out" / "escaped.txt").exists()
    assert not any((tmp_path / "out").rglob("link"))
