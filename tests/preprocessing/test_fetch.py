"""Fetching from a mirror or from URLs (file:// and a local HTTP server), and verifying checksums."""
from __future__ import annotations

import functools
import gzip
import hashlib
import os
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from preprocessing import fetch as fetch_module
from preprocessing.errors import DataError, IsarcasmError
from preprocessing.fetch import fetch, verify
from preprocessing.specs import DataFile, DataPackage

TRAIN = b"text,label\nhello,1\n"
LEXICON = b"good\t1\nbad\t-1\n"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def package(urls: dict[str, str | None] | None = None, train_sha: str = sha(TRAIN)) -> DataPackage:
    urls = urls or {}
    return DataPackage(
        name="toy",
        files=(
            DataFile("toy/train.csv", train_sha, urls.get("train")),
            DataFile("toy/lex/words.txt.gz", sha(LEXICON), urls.get("lexicon")),
        ),
        source="tests", licence="none",
    )


@pytest.fixture
def mirror(tmp_path) -> Path:
    root = tmp_path / "mirror"
    (root / "toy/lex").mkdir(parents=True)
    (root / "toy/train.csv").write_bytes(TRAIN)
    (root / "toy/lex/words.txt.gz").write_bytes(gzip.compress(LEXICON))
    (root / "toy/SOURCE.md").write_text("where it came from\n")
    (root / "other").mkdir()
    (root / "other/unrelated.txt").write_text("not part of toy\n")
    return root


# --- mirror --------------------------------------------------------------------------------------------

def test_mirror_links_whole_folder_and_verifies(mirror, tmp_path):
    data = tmp_path / "data"
    results = fetch(package(), data, mirror=mirror)
    assert {r.path: r.status for r in results} == {
        "toy/SOURCE.md": "linked", "toy/lex/words.txt.gz": "linked", "toy/train.csv": "linked",
    }
    assert os.path.samefile(data / "toy/train.csv", mirror / "toy/train.csv")
    assert not (data / "other").exists()
    assert [r.status for r in verify(package(), data)] == ["ok", "ok"]
    assert {r.status for r in fetch(package(), data, mirror=mirror)} == {"present"}


def test_mirror_falls_back_to_copy_when_links_fail(mirror, tmp_path, monkeypatch):
    def no_links(source, target):
        raise OSError("cross-device link")

    monkeypatch.setattr(fetch_module.os, "link", no_links)
    data = tmp_path / "data"
    results = fetch(package(), data, mirror=mirror)
    assert {r.status for r in results} == {"copied"}
    assert (data / "toy/train.csv").read_bytes() == TRAIN
    assert not os.path.samefile(data / "toy/train.csv", mirror / "toy/train.csv")
    assert not list(data.rglob("*.part"))


def test_mirror_replaces_a_corrupt_local_file(mirror, tmp_path):
    data = tmp_path / "data"
    (data / "toy").mkdir(parents=True)
    (data / "toy/train.csv").write_bytes(b"corrupt")
    statuses = {r.path: r.status for r in fetch(package(), data, mirror=mirror)}
    assert statuses["toy/train.csv"] == "linked" and (data / "toy/train.csv").read_bytes() == TRAIN


def test_mirror_with_wrong_content_is_a_checksum_error(mirror, tmp_path):
    bad = package(train_sha="ab" * 32)
    with pytest.raises(DataError, match=r"train.csv: checksum mismatch: expected sha256 abababababab\.\.\., "
                                         rf"got {sha(TRAIN)[:12]}\.\.\. \(package 'toy'\)"):
        fetch(bad, tmp_path / "data", mirror=mirror)


def test_mirror_without_the_folder(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match=r"the mirror has no folder 'toy'"):
        fetch(package(), tmp_path / "data", mirror=tmp_path / "empty")
    with pytest.raises(IsarcasmError, match=r"mirror directory .*nowhere does not exist"):
        fetch(package(), tmp_path / "data", mirror=tmp_path / "nowhere")


# --- downloads -------------------------------------------------------------------------------------------

@pytest.fixture
def upstream(tmp_path) -> Path:
    """Upstream files as a server would have them: train gzip-compressed, the lexicon plain."""
    root = tmp_path / "upstream"
    root.mkdir()
    (root / "train.csv.gz").write_bytes(gzip.compress(TRAIN))
    (root / "words.txt").write_bytes(LEXICON)
    return root


def test_download_from_file_urls_gzips_and_gunzips_to_match_local_names(upstream, tmp_path):
    data = tmp_path / "data"
    urls = {"train": (upstream / "train.csv.gz").as_uri(), "lexicon": (upstream / "words.txt").as_uri()}
    results = fetch(package(urls), data)
    assert [r.status for r in results] == ["downloaded", "downloaded"]
    assert (data / "toy/train.csv").read_bytes() == TRAIN  # gzip upstream, plain name: stored decompressed
    assert gzip.decompress((data / "toy/lex/words.txt.gz").read_bytes()) == LEXICON  # plain upstream, .gz name
    assert not list(data.rglob("*.part"))
    assert [r.status for r in fetch(package(urls), data)] == ["present", "present"]


def test_download_over_http(upstream, tmp_path):
    handler = functools.partial(_QuietHandler, directory=str(upstream))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        urls = {"train": f"{base}/train.csv.gz", "lexicon": f"{base}/words.txt"}
        assert [r.status for r in fetch(package(urls), tmp_path / "data")] == ["downloaded", "downloaded"]
        with pytest.raises(IsarcasmError, match=r"cannot download toy/train.csv from .*/missing \(HTTP Error 404"):
            fetch(package({"train": f"{base}/missing", "lexicon": urls["lexicon"]}), tmp_path / "data2")
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def test_download_checksum_mismatch_writes_nothing(upstream, tmp_path):
    data = tmp_path / "data"
    urls = {"train": (upstream / "words.txt").as_uri()}  # wrong file for train.csv
    with pytest.raises(DataError, match=rf"train.csv: checksum mismatch: expected sha256 {sha(TRAIN)[:12]}\.\.\., "
                                        rf"got {sha(LEXICON)[:12]}\.\.\."):
        fetch(package(urls), data)
    assert not (data / "toy/train.csv").exists()
    assert not list(data.rglob("*.part"))


def test_unreachable_url_suggests_mirror_in_one_line(tmp_path):
    urls = {"train": "http://127.0.0.1:9/train.csv"}  # discard port: connection refused, no network needed
    with pytest.raises(IsarcasmError) as error:
        fetch(package(urls), tmp_path / "data")
    message = str(error.value)
    assert message.startswith("cannot download toy/train.csv from http://127.0.0.1:9/train.csv (")
    assert message.endswith("; fetch from a local copy with --mirror DIR") and "\n" not in message


def test_file_without_public_download(tmp_path):
    with pytest.raises(IsarcasmError, match=r"toy/train.csv has no public download; fetch from a local copy with "
                                             r"--mirror"):
        fetch(package(), tmp_path / "data")


# --- verify --------------------------------------------------------------------------------------------

def test_verify_reports_ok_mismatch_and_missing(mirror, tmp_path):
    data = tmp_path / "data"
    (data / "toy").mkdir(parents=True)
    (data / "toy/train.csv").write_bytes(b"changed")
    results = verify(package(), data)
    assert [(r.path, r.status) for r in results] == [
        ("toy/train.csv", "mismatch"), ("toy/lex/words.txt.gz", "missing")]
    assert results[0].detail == (
        f"checksum mismatch: expected sha256 {sha(TRAIN)[:12]}..., got {sha(b'changed')[:12]}...")


def test_verify_reports_a_broken_gzip_as_mismatch(tmp_path):
    data = tmp_path / "data"
    (data / "toy/lex").mkdir(parents=True)
    (data / "toy/lex/words.txt.gz").write_bytes(b"not gzip")
    assert verify(package(), data)[1].status == "mismatch"
