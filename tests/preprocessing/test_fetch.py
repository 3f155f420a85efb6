"""Fetching from a mirror or from URLs (file:// and a local HTTP server standing in for the hosts), making files
from upstream archives, and verifying checksums."""
from __future__ import annotations

import functools
import gzip
import hashlib
import json
import lzma
import os
import pickle
import shutil
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from upstream_hosts import glove_zip, place, py2_index_pickle, serving, stand_in_for_every_upstream

from preprocessing import derive
from preprocessing import fetch as fetch_module
from preprocessing.corpora import get_package, packages
from preprocessing.errors import DataError, IsarcasmError
from preprocessing.fetch import fetch, verify
from preprocessing.specs import DataFile, DataPackage, Derivation, Upstream

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
    assert message.endswith("; check the connection and run the same command again, or fetch from a local copy "
                            "with --mirror DIR") and "\n" not in message


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


# --- upstream files through a local server standing in for the hosts ($ISARCASM_UPSTREAM) ---------------

def test_the_upstream_variable_moves_every_host_under_one_base(monkeypatch):
    url = "https://raw.githubusercontent.com/o/r/abc/data/x%20y.csv"
    monkeypatch.delenv(fetch_module.UPSTREAM_ENV, raising=False)
    assert fetch_module.upstream_url(url) == url
    monkeypatch.setenv(fetch_module.UPSTREAM_ENV, "http://127.0.0.1:8000/")
    assert fetch_module.upstream_url(url) == "http://127.0.0.1:8000/raw.githubusercontent.com/o/r/abc/data/x%20y.csv"


GLOVE_URL = "https://nlp.example.org/data/glove.6B.zip"
GENSIM_URL = "https://github.com/gensim/releases/download/g100/g100.gz"
#: A GloVe-like member: the kept words (the, cat, u.s.-free) among removed kinds, numbers in GloVe's style.
GLOVE_LINES = [b"the 0.418 -0.0 1.0\n", b"a 0.1 0.2 0.3\n", b"cat 0.50 1e-05 -2.25000\n", b"n't 1 2 3\n",
               b"dog -0.038194 0.72812 3.0\n", b"2008 0.5 0.5 0.5\n"]
GLOVE_MADE = b"the 0.418 0 1\ncat 0.5 1e-05 -2.25\ndog -0.038194 0.72812 3\n"


def md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


@pytest.fixture
def hosts(tmp_path, monkeypatch):
    """A server for tmp_path/hosts, with $ISARCASM_UPSTREAM pointing at it."""
    root = tmp_path / "hosts"
    root.mkdir()
    with serving(root) as server:
        monkeypatch.setenv(fetch_module.UPSTREAM_ENV, server.base)
        yield server


def glove_package(tmp_path, archive: bytes, content_sha: str | None = sha(GLOVE_MADE),
                  gensim: bytes = b"") -> DataPackage:
    """A one-file vectors package made like the catalog's 'glove', from a test archive and word list."""
    words = tmp_path / "words.xz"
    words.write_bytes(lzma.compress(b"0cat\n0dog\n0the\n"))  # front-coded: no shared prefixes
    derivation = Derivation((Upstream(GLOVE_URL, f"sha256:{sha(archive)}"),),
                            partial(derive.glove_subset, member="glove.6B.100d.txt", words=words),
                            alternatives=(Upstream(GENSIM_URL, f"md5:{md5(gensim)}"),))
    return DataPackage("vec", (DataFile("glove/vec.txt.gz", content_sha, derivation=derivation),),
                       source="tests", licence="none")


def nothing_half_written(data: Path) -> bool:
    return not (data / "glove").exists() or not list((data / "glove").iterdir())


def test_a_glove_archive_becomes_the_subset_in_archive_order_with_values_as_the_catalog_writes_them(
        hosts, tmp_path):
    archive = glove_zip(GLOVE_LINES, "glove.6B.100d.txt")
    place(hosts.root, GLOVE_URL, archive)
    package = glove_package(tmp_path, archive)
    results = fetch(package, tmp_path / "data")
    assert [(r.path, r.status) for r in results] == [("glove/vec.txt.gz", "made")]
    made = (tmp_path / "data/glove/vec.txt.gz").read_bytes()
    assert gzip.decompress(made) == GLOVE_MADE
    assert made[3:10] == b"\x00\x00\x00\x00\x00\x02\xff"  # no name flag, mtime 0, -9: reproducible bytes
    assert not [p for p in (tmp_path / "data/.downloads").rglob("*") if p.is_file()]  # the archive is deleted
    assert fetch(package, tmp_path / "data2")[0].status == "made"
    assert (tmp_path / "data2/glove/vec.txt.gz").read_bytes() == made
    assert [r.status for r in fetch(package, tmp_path / "data")] == ["present"]


def test_a_wrong_archive_is_refused_in_one_line_and_nothing_is_written(hosts, tmp_path):
    no_member = glove_zip(GLOVE_LINES, "glove.6B.50d-other.txt")
    place(hosts.root, GLOVE_URL, no_member)
    with pytest.raises(DataError, match=r"glove.6B.zip: has no glove.6B.100d.txt: it is not the expected archive; "
                                        r"the download is deleted: run the same command again"):
        fetch(glove_package(tmp_path, no_member), tmp_path / "data")
    other_numbers = glove_zip([line.replace(b"0.418", b"0.419") for line in GLOVE_LINES], "glove.6B.100d.txt")
    place(hosts.root, GLOVE_URL, other_numbers)
    with pytest.raises(DataError, match=rf"vec.txt.gz: checksum mismatch: expected sha256 {sha(GLOVE_MADE)[:12]}"):
        fetch(glove_package(tmp_path, other_numbers), tmp_path / "data")
    missing_word = glove_zip(GLOVE_LINES[:4], "glove.6B.100d.txt")
    place(hosts.root, GLOVE_URL, missing_word)
    with pytest.raises(DataError, match=r"glove.6B.100d.txt holds 2 of the 3 listed words \(each once\): it is not "
                                        r"the expected GloVe file"):
        fetch(glove_package(tmp_path, missing_word), tmp_path / "data")
    assert nothing_half_written(tmp_path / "data")
    assert not [p for p in (tmp_path / "data/.downloads").rglob("*") if p.is_file()]


def test_an_archive_that_is_not_the_published_one_is_refused_where_the_content_has_no_checksum(hosts, tmp_path):
    archive = glove_zip(GLOVE_LINES, "glove.6B.100d.txt")
    place(hosts.root, GLOVE_URL, archive + b"changed")
    with pytest.raises(DataError, match=rf"glove.6B.zip: is not the published glove.6B.zip \(sha256:{sha(archive)[:12]}"):
        fetch(glove_package(tmp_path, archive, content_sha=None), tmp_path / "data")
    assert nothing_half_written(tmp_path / "data")


def test_a_truncated_archive_is_refused_in_one_line(hosts, tmp_path):
    archive = glove_zip(GLOVE_LINES, "glove.6B.100d.txt")
    place(hosts.root, GLOVE_URL, archive[: len(archive) // 2])
    with pytest.raises(DataError, match=r"glove.6B.zip: is a broken or truncated zip archive \(") as error:
        fetch(glove_package(tmp_path, archive), tmp_path / "data")
    assert "\n" not in str(error.value)
    assert nothing_half_written(tmp_path / "data")


def test_an_interrupted_transfer_stops_in_one_line_and_the_next_run_resumes_it(hosts, tmp_path):
    archive = glove_zip(GLOVE_LINES, "glove.6B.100d.txt")
    place(hosts.root, GLOVE_URL, archive)
    hosts.cuts["glove.6B.zip"] = 100
    package = glove_package(tmp_path, archive)
    with pytest.raises(IsarcasmError, match=rf"the download of glove/vec.txt.gz from {hosts.base}/nlp.example.org/"
                                            rf"data/glove.6B.zip stopped after 100 of {len(archive):,} bytes; run the "
                                            r"same command again to resume it"):
        fetch(package, tmp_path / "data")
    assert nothing_half_written(tmp_path / "data")
    part = tmp_path / "data/.downloads/nlp.example.org/data/glove.6B.zip.part"
    assert part.read_bytes() == archive[:100]
    assert fetch(package, tmp_path / "data")[0].status == "made"
    assert hosts.requests[-1][1] == "bytes=100-"  # resumed, not downloaded again
    assert gzip.decompress((tmp_path / "data/glove/vec.txt.gz").read_bytes()) == GLOVE_MADE
    assert not part.exists()


def test_a_part_the_server_will_not_resume_is_downloaded_again(hosts, tmp_path):
    archive = glove_zip(GLOVE_LINES, "glove.6B.100d.txt")
    place(hosts.root, GLOVE_URL, archive)
    part = tmp_path / "data/.downloads/nlp.example.org/data/glove.6B.zip.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(b"x" * (len(archive) + 5))  # longer than the file: the server answers 416
    assert fetch(glove_package(tmp_path, archive), tmp_path / "data")[0].status == "made"
    assert [r[1] for r in hosts.requests] == [f"bytes={len(archive) + 5}-", None]


def test_too_little_disk_space_is_one_line_before_anything_is_written(hosts, tmp_path, monkeypatch):
    archive = glove_zip(GLOVE_LINES, "glove.6B.100d.txt")
    place(hosts.root, GLOVE_URL, archive)
    monkeypatch.setattr(fetch_module.shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(10**9, 10**9, 10))
    with pytest.raises(IsarcasmError, match=rf"not enough free disk space in .*downloads: 0.0 MB needed, 0.0 MB "
                                            r"free; free some space, or fetch into a data directory on a larger disk"):
        fetch(glove_package(tmp_path, archive), tmp_path / "data")
    assert nothing_half_written(tmp_path / "data") and not list((tmp_path / "data").rglob("*.part"))


def test_from_takes_the_archive_or_gensim_datas_copy_and_refuses_another_file(tmp_path):
    archive = glove_zip(GLOVE_LINES, "glove.6B.100d.txt")
    gensim = gzip.compress(b"6 3\n" + b"".join(GLOVE_LINES))
    given = tmp_path / "glove.6B.zip"
    given.write_bytes(archive)
    vectors = glove_package(tmp_path, archive, gensim=gensim)
    assert fetch(vectors, tmp_path / "a", given=given)[0].status == "made"
    assert given.exists()  # the user's file is left alone
    (tmp_path / "g100.gz").write_bytes(gensim)
    assert fetch(vectors, tmp_path / "b", given=tmp_path / "g100.gz")[0].status == "made"
    assert (gzip.decompress((tmp_path / "b/glove/vec.txt.gz").read_bytes())
            == gzip.decompress((tmp_path / "a/glove/vec.txt.gz").read_bytes()) == GLOVE_MADE)
    (tmp_path / "notes.txt").write_bytes(b"hello\n")
    with pytest.raises(DataError, match=r"notes.txt: is neither a zip archive with glove.6B.100d.txt nor gensim-data"):
        fetch(vectors, tmp_path / "c", given=tmp_path / "notes.txt")
    unpinned = glove_package(tmp_path, archive, content_sha=None, gensim=gensim)
    with pytest.raises(DataError, match=rf"notes.txt: is not the published glove.6B.zip \(sha256:{sha(archive)[:12]}"
                                        rf".*\) or g100.gz \(md5:{md5(gensim)[:15]}.*; pass the right file with --from"):
        fetch(unpinned, tmp_path / "c", given=tmp_path / "notes.txt")
    with pytest.raises(IsarcasmError, match=r"'toy' is not made from one \(leave --from out\)"):
        fetch(package(), tmp_path / "c", given=given)


def test_content_without_a_published_checksum_is_recorded_and_verified_against_that(tmp_path):
    archive = glove_zip(GLOVE_LINES, "glove.6B.100d.txt")
    (tmp_path / "glove.6B.zip").write_bytes(archive)
    unpinned = glove_package(tmp_path, archive, content_sha=None)
    data = tmp_path / "data"
    fetch(unpinned, data, given=tmp_path / "glove.6B.zip")
    assert (data / "glove/vec.txt.gz.sha256").read_text() == f"{sha(GLOVE_MADE)}\n"
    assert [(r.status, r.detail) for r in verify(unpinned, data)] == [
        ("ok", "against the sha256 recorded when it was fetched")]
    (data / "glove/vec.txt.gz").write_bytes(gzip.compress(b"other\n"))
    assert verify(unpinned, data)[0].status == "mismatch"
    (data / "glove/vec.txt.gz.sha256").unlink()
    assert verify(unpinned, data)[0].detail.startswith("no checksum is published and none was recorded")


SWN_URL = ("https://raw.githubusercontent.com/swirsz/facebookcrawler/7f7d041651e69445ec4473ff6d7319bebb9e56cb/"
           "SentiWordNet_3.0.0.txt")


def test_a_plain_upstream_file_is_gzipped_under_its_catalog_name(hosts, tmp_path):
    swn = b"0.125\t0\table#1\n0\t0.75\tunable#1\n"
    place(hosts.root, SWN_URL, swn)
    swn_package = DataPackage("swn", (DataFile("lexicons/sentiwordnet/swn.txt.gz", sha(swn), SWN_URL),),
                              source="tests", licence="none")
    assert fetch(swn_package, tmp_path / "data")[0].status == "downloaded"
    assert gzip.decompress((tmp_path / "data/lexicons/sentiwordnet/swn.txt.gz").read_bytes()) == swn
    assert hosts.requests == [("/raw.githubusercontent.com/swirsz/facebookcrawler/"
                               "7f7d041651e69445ec4473ff6d7319bebb9e56cb/SentiWordNet_3.0.0.txt", None)]


# --- MUStARD's folds, from the Python-2 pickle, executing nothing ----------------------------------------

PICKLE_URL = "https://raw.githubusercontent.com/m/MUStARD/c0/data/split_indices.p"
JSON_URL = "https://raw.githubusercontent.com/m/MUStARD/c0/data/sarcasm_data.json"


def folds_package(derivation_inputs=(PICKLE_URL, JSON_URL), content_sha=None) -> DataPackage:
    derivation = Derivation(tuple(Upstream(url) for url in derivation_inputs), derive.mustard_folds)
    return DataPackage("folds", (DataFile("mustard/folds.json", content_sha, derivation=derivation),),
                       source="tests", licence="none")


def test_the_folds_map_pickled_positions_to_ids_in_python_2_dict_order(hosts, tmp_path):
    place(hosts.root, JSON_URL, json.dumps({key: {} for key in ["one", "two", "three", "a", "b", "c"]}).encode())
    place(hosts.root, PICKLE_URL, py2_index_pickle([([0, 1, 2, 3], [4, 5]), ([2, 3, 4, 5], [0, 1])]))
    fetch(folds_package(), tmp_path / "data")
    folds = json.loads((tmp_path / "data/mustard/folds.json").read_bytes())
    order = derive.py2_dict_order(["one", "two", "three", "a", "b", "c"])
    assert folds["folds"] == [{"train_ids": order[:4], "test_ids": order[4:]},
                              {"train_ids": order[2:], "test_ids": order[:2]}]
    assert folds["description"] == derive.FOLDS_DESCRIPTION


def test_python_2_dict_order_is_cpythons():
    """Orders Python 2.7 (64-bit) printed for these dicts, e.g. ``{'a': 1, 'c': 3, 'b': 2}``."""
    assert derive.py2_dict_order(["a", "b", "c"]) == ["a", "c", "b"]
    assert derive.py2_dict_order(["one", "two", "three"]) == ["three", "two", "one"]
    keys = [f"1_{n}" for n in range(700)]  # grows the table several times
    assert sorted(derive.py2_dict_order(keys)) == sorted(keys) and derive.py2_dict_order(keys) != keys


class _Runs:
    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


@pytest.mark.parametrize("protocol, refusal", [
    (2, r"names posix.system, which is code, not one of numpy's array constructors .*; refused \(nothing was run\)"),
    (4, r"is a protocol-4 pickle, not the protocol-2 file of index arrays expected; refused \(nothing was run\)"),
])
def test_a_pickle_holding_code_is_refused_and_nothing_in_it_runs(hosts, tmp_path, protocol, refusal):
    marker = tmp_path / "ran"
    place(hosts.root, JSON_URL, b'{"a": {}}')
    place(hosts.root, PICKLE_URL, pickle.dumps([_Runs(str(marker))], protocol=protocol))
    with pytest.raises(DataError, match=rf"split_indices.p: {refusal}"):
        fetch(folds_package(), tmp_path / "data")
    assert not marker.exists()
    assert not (tmp_path / "data/mustard/folds.json").exists()


@pytest.mark.parametrize("content, refusal", [
    (b"\x80\x02]q\x00(K\x01K\x02e.", "does not hold a list of \\(train, test\\) index arrays"),
    (b"\x80\x02]q\x00(", "is not a well-formed pickle"),
    (b"\x80\x02}q\x00.", "uses the pickle opcode EMPTY_DICT"),
])
def test_a_pickle_of_something_else_is_refused(hosts, tmp_path, content, refusal):
    place(hosts.root, JSON_URL, b'{"a": {}}')
    place(hosts.root, PICKLE_URL, content)
    with pytest.raises(DataError, match=rf"split_indices.p: {refusal}"):
        fetch(folds_package(), tmp_path / "data")


def test_positions_beyond_the_instances_are_refused(hosts, tmp_path):
    place(hosts.root, JSON_URL, b'{"a": {}, "b": {}}')
    place(hosts.root, PICKLE_URL, py2_index_pickle([([0], [2])]))
    with pytest.raises(DataError, match=r"split_indices.p: holds positions beyond the 2 instances of sarcasm_data.json"):
        fetch(folds_package(), tmp_path / "data")


def test_the_real_folds_are_derived_from_the_real_pickle(real_data_dir):
    mustard = real_data_dir / "mustard"
    made = b"".join(derive.mustard_folds([mustard / "split_indices.p", mustard / "sarcasm_data.json"]))
    assert sha(made) == get_package("mustard").files[1].sha256


def test_the_shipped_word_list_is_the_real_files_words(real_data_dir):
    with gzip.open(real_data_dir / "glove/glove.6B.100d.wink341k.txt.gz", "rb") as handle:
        words = {line.partition(b" ")[0] for line in handle}
    assert derive.kept_words(derive.WORDLISTS / "glove.6B.100d.wink341k.words.xz") == words


def test_every_fetched_package_and_glove_from_a_stand_in_of_every_upstream_verify(real_data_dir, tmp_path,
                                                                                    monkeypatch):
    """The real 341,479-word GloVe file from a glove.6B.zip rebuilt from the mirror's lines plus lines of every
    removed kind of word, and every other package from its upstream URL: checksums equal the catalog's."""
    stand_in_for_every_upstream(real_data_dir, tmp_path / "hosts")
    with serving(tmp_path / "hosts") as server:
        monkeypatch.setenv(fetch_module.UPSTREAM_ENV, server.base)
        for package in packages():
            if not package.optional:
                fetch(package, tmp_path / "data")
    assert all(r.status == "ok" for package in packages() if not package.optional
               for r in verify(package, tmp_path / "data"))


class _UncountedLength(SimpleHTTPRequestHandler):
    """A host whose Content-Length is no count of bytes."""

    def do_GET(self):  # noqa: N802 (the http.server name)
        self.send_response(200)
        self.send_header("Content-Length", "abc")
        self.end_headers()
        self.wfile.write(b"hello\n")
        self.close_connection = True

    def log_message(self, *args):
        pass


def test_a_content_length_that_is_no_count_is_left_unused(tmp_path):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _UncountedLength)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        got = fetch_module._download(Upstream(f"http://127.0.0.1:{server.server_address[1]}/x.txt"), tmp_path, 0, "x")
    finally:
        server.shutdown()
    assert got.read_bytes() == b"hello\n"
