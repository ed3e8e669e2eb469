"""Public mode (app/settings.py, docs/deployment.md): a dashboard shared with stakeholders writes no file. Every page is
opened (the review form is there, disabled; the probe's button, when the probe is on, is pressed), and every file the
app could touch (the warehouse's folder, the two stores) keeps its modification time, size and bytes. The probe is
off unless DISH_ATLAS_PUBLIC_PROBE=1, and then limited per client, not per browser session."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app import probe, settings
from app.dashboard import VIEWS
from pipeline.stores import annotations, probes
from tests.helpers import REPO, shown

MAIN = REPO / "app" / "main.py"
HASHED = 64 << 20  # files up to this size are compared by content too; larger ones (the snapshot) by stat


def _files(*folders: Path) -> dict[str, tuple]:
    """(modification time, size, inode, digest) of every file in `folders`: a write changes one of them."""
    found = {}
    for folder in folders:
        for path in sorted(folder.iterdir()):
            if path.is_file():
                stat = path.stat()
                digest = hashlib.sha256(path.read_bytes()).hexdigest() if stat.st_size <= HASHED else None
                found[str(path)] = (stat.st_mtime_ns, stat.st_size, stat.st_ino, digest)
    return found


@pytest.fixture
def public(real_warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, ...]:
    """Public mode on the real demo warehouse, with stores that already hold a label and a probe, and a probe
    config offering a model; the folders whose files must not change."""
    stores = tmp_path / "stores"
    monkeypatch.setenv(annotations.ANNOTATIONS_ENV, str(stores / "annotations.duckdb"))
    monkeypatch.setenv(probes.PROBES_ENV, str(stores / "probes.duckdb"))
    annotations.save("s1", "uk", "borsch:uk:1", "PL", "word polysemy", "owner")
    probes.record(model="m", backend="transformers", lang="uk", status="ok", dish_text="Борщ")
    config = tmp_path / "probe.toml"
    config.write_text('[models.m]\nbackend = "transformers"\nmodel = "/nowhere"\n', encoding="utf-8")
    monkeypatch.setenv(probe.CONFIG_ENV, str(config))
    monkeypatch.setenv("DISH_ATLAS_WAREHOUSE", str(real_warehouse))
    monkeypatch.setenv(settings.PUBLIC_ENV, "1")
    monkeypatch.delenv(settings.PUBLIC_PROBE_ENV, raising=False)
    return real_warehouse.parent, stores, tmp_path


def _open(page: str) -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=120).run()
    if page != "overview.py":
        at.switch_page(f"views/{page}").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_no_page_changes_a_file_in_public_mode(public: tuple[Path, ...]) -> None:
    before = _files(*public)
    for page in (view.script for view in VIEWS.values()):
        at = _open(page)
        if page == "review.py":
            assert settings.LABELS_OFF in [shown(str(info.value)) for info in at.info]
            radios = [radio for radio in at.radio if radio.key and radio.key.startswith("review_")]
            assert radios and all(radio.disabled for radio in radios)  # a browser cannot change them
            assert all(button.disabled for button in at.get("button") if "Save" in str(button.proto.label))
        if page == "probe.py":
            assert settings.PROBE_OFF in [shown(str(info.value)) for info in at.info]
            assert not at.text_input and not at.button
    assert _files(*public) == before
    assert len(annotations.load()) == 1 and len(probes.recent()) == 1


def test_the_probe_when_enabled_is_limited_per_client_and_records_nothing(
    public: tuple[Path, ...], tiny_text_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = public[2]
    config = folder / "probe.toml"
    config.write_text(
        f'[models.tiny]\nbackend = "transformers"\nmodel = "{tiny_text_model}"\nmax_tokens = 8\n'
        "[limits]\nasks_per_window = 1\nwindow_s = 600\n",
        encoding="utf-8",
    )
    monkeypatch.setenv(settings.PUBLIC_PROBE_ENV, "1")
    before = _files(*public)
    answers = []
    for _ in range(2):  # two browser sessions of one client (no account, no address known): one allowance
        at = _open("probe.py")
        at.text_input(key="probe_dish").input("Борщ")
        at.button(key="probe_run").click().run()
        assert not at.exception and not at.error
        answers.append([shown(str(w.value)) for w in at.warning])
    assert not any("asked" in text for text in answers[0])
    assert any("You have asked 1 question in the last 600 s" in text for text in answers[1]), answers[1]
    assert _files(*public) == before  # the answer is shown, not recorded
    assert not any("Recent probes" in str(s.value) for s in at.subheader)


def test_the_image_runs_as_an_unprivileged_user_on_a_read_only_warehouse() -> None:
    dockerfile = (REPO / "Dockerfile").read_text(encoding="utf-8")
    users = [line.split()[1] for line in dockerfile.splitlines() if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")
    # the start builds the warehouse only where it may write: a read-only mount is only read
    assert 'if [ -w \\"$(dirname \\"$DISH_ATLAS_WAREHOUSE\\")\\" ]; then python -m pipeline demo; fi' in dockerfile
