"""`data fetch` against hostile manifests and hosts: every destination stays inside `--dest`, ids
cannot name paths, and a download that differs from its pinned SHA-256 is never kept. The host is
a real HTTP server on 127.0.0.1; nothing needs the internet."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from pipeline.core.errors import DataError, OfflineError
from pipeline.core.safepaths import inside, safe_id
from pipeline.datasets import worldcuisines
from pipeline.datasets.base import RemoteFile
from pipeline.datasets.fetch import fetch

HOSTILE_DESTINATIONS = [
    "../outside.txt",
    "borsch/../../outside.txt",
    "/etc/passwd",
    "",
    "borsch//x",
    "borsch/./x",
    "borsch\\..\\..\\x",
    "C:/Windows/x",
    "borsch/x\0.txt",
]


@pytest.mark.parametrize("relative", HOSTILE_DESTINATIONS)
def test_a_destination_outside_the_data_folder_is_refused(tmp_path: Path, relative: str) -> None:
    with pytest.raises(DataError, match="not inside"):
        inside(tmp_path, relative)


def test_a_link_inside_the_data_folder_cannot_lead_out(tmp_path: Path) -> None:
    (tmp_path / "dest").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "dest" / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(DataError, match="through a link"):
        inside(tmp_path / "dest", "link/file.txt")
    assert inside(tmp_path / "dest", "borsch/RU_DATA.xlsx") == (tmp_path / "dest" / "borsch" / "RU_DATA.xlsx")


@pytest.mark.parametrize("value", ["../..", "..", ".", "", "a/b", "a\\b", "c:x", "x\0"])
def test_an_id_that_is_not_one_file_name_is_refused(value: str) -> None:
    with pytest.raises(DataError, match="cannot name a file"):
        safe_id(value, "manifest.csv")
    assert safe_id(" 1234 ", "manifest.csv") == "1234"


def test_a_hostile_image_manifest_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    eval_dir = tmp_path / "worldcuisines" / "eval"
    eval_dir.mkdir(parents=True)
    (eval_dir / "large_eval_task2.csv").write_text(
        "qa_id,food_id,image_url\n1,7,http://127.0.0.1:9/a.jpg\n2,../..,http://127.0.0.1:9/b.jpg\n", encoding="utf-8"
    )
    with pytest.raises(DataError, match=r"'\.\./\.\.' cannot name a file"):
        worldcuisines.image_manifest(tmp_path)


def test_fetch_refuses_a_hostile_manifest_before_downloading_anything(tmp_path: Path) -> None:
    dest = tmp_path / "dest"
    files = [RemoteFile("http://127.0.0.1:9/ok", "ok.txt"), RemoteFile("http://127.0.0.1:9/x", "../../escaped.txt")]
    with pytest.raises(DataError, match="not inside"):
        fetch(dest, files)
    assert not dest.exists() and not (tmp_path / "escaped.txt").exists()


@contextmanager
def file_host(folder: Path) -> Iterator[str]:
    handler = partial(SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *args: None  # type: ignore[method-assign]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_downloads_are_checked_against_their_pinned_sha256(tmp_path: Path) -> None:
    served = tmp_path / "served"
    served.mkdir()
    (served / "data.csv").write_bytes(b"dish,origin\nborscht,UA\n")
    good = hashlib.sha256(b"dish,origin\nborscht,UA\n").hexdigest()
    dest = tmp_path / "dest"
    with file_host(served) as host:
        with pytest.raises(OfflineError, match="does not match its pinned SHA-256"):
            fetch(dest, [RemoteFile(f"{host}/data.csv", "a/data.csv", "0" * 64)])
        assert not [p for p in dest.rglob("*") if p.is_file()]  # neither the file nor a temporary copy is kept

        assert fetch(dest, [RemoteFile(f"{host}/data.csv", "a/data.csv", good)]) == [dest / "a" / "data.csv"]
        (dest / "a" / "data.csv").write_bytes(b"tampered")  # a damaged copy is fetched again, not trusted
        assert fetch(dest, [RemoteFile(f"{host}/data.csv", "a/data.csv", good)]) == [dest / "a" / "data.csv"]
        assert fetch(dest, [RemoteFile(f"{host}/data.csv", "a/data.csv", good)]) == []  # intact: skipped
    assert (dest / "a" / "data.csv").read_bytes() == b"dish,origin\nborscht,UA\n"
