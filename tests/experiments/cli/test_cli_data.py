"""``isarcasm data ...`` through click's test runner, including every bad-input case of the issue."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from experiments.cli import data as cli_data
from experiments.cli import main
from preprocessing.specs import DataFile, DataPackage

ISARCASM = "isarcasm/text_tomoverman_iSarcasmNU"


def run(data_dir: Path, *args: str):
    return CliRunner().invoke(main, ["--data-dir", str(data_dir), *args])


def assert_one_line_error(result, *fragments: str) -> None:
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # no uncaught exception
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.fixture
def data_dir(tmp_path) -> Path:
    """A data directory holding only a tiny 'isarcasm' corpus."""
    folder = tmp_path / "data" / ISARCASM
    folder.mkdir(parents=True)
    (folder / "data_train.csv").write_text("text,sarcasm_label\nlove mondays,1\nnice day,0\nnice day,0\nok,0\n")
    (folder / "data_test.csv").write_text('text,sarcasm_label\n"so, great",1\nok,0\n')
    return tmp_path / "data"


# --- list ----------------------------------------------------------------------------------------------

def test_list_shows_every_corpus_and_why_some_are_missing(data_dir):
    result = run(data_dir, "data", "list")
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines()[2:] if line.split()}
    assert rows["isarcasm"][:5] == ["isarcasm", "en", "yes", "4", "2"]
    assert rows["isarcasm"][-3:] == ["25.0", "/", "50.0"]
    assert rows["kocosa"][:3] == ["kocosa", "ko", "no"]
    assert "riloff: corpus 'riloff' is not available" in result.stdout


def test_list_tells_one_story_for_a_corpus_of_ids_without_text(data_dir):
    """isarcasm-ids ships tweet ids and labels; its text comes from the user's file: listed as ids only, with
    how to supply the text, never as available with rows and then as records without text."""
    folder = data_dir / "isarcasm/official_ids"
    folder.mkdir(parents=True)
    for split, count in (("train", 3), ("test", 1)):
        rows = [f"{split}{i},{'sarcastic' if i == 0 else 'not_sarcastic'},{'irony' if i == 0 else ''}"
                for i in range(count)]
        (folder / f"isarcasm_{split}.csv").write_text("\n".join(["tweet_id,sarcasm_label,sarcasm_type", *rows]) + "\n")
    result = run(data_dir, "data", "list")
    assert result.exit_code == 0, result.output
    row = next(line for line in result.stdout.splitlines() if line.startswith("isarcasm-ids "))
    assert row.split()[:6] == ["isarcasm-ids", "en", "ids", "only", "3", "1"]
    note = ("isarcasm-ids: ids and labels of 4 records, no text: nothing to train or evaluate on; the commands that "
            "read it take the text from --text-file FILE (id<TAB>text lines)")
    assert note in result.stdout.splitlines() and "have text" not in result.stdout
    listed = {c["name"]: c for c in json.loads(run(data_dir, "data", "list", "--json").stdout)}
    assert listed["isarcasm-ids"]["text"] == note.split(": ", 1)[1] and listed["isarcasm-ids"]["with_text"] == 0
    assert "text" not in listed["isarcasm"]  # every record has text: nothing to say


def test_list_json(data_dir):
    result = run(data_dir, "data", "list", "--json")
    corpora = {c["name"]: c for c in json.loads(result.stdout)}
    assert {"isarcasm", "isarcasm-ids", "sarc7", "kocosa", "tosarcasm"} <= set(corpora)
    assert corpora["isarcasm"]["splits"]["train"] == {
        "records": 4, "labels": {"not_sarcastic": 3, "sarcastic": 1}, "sarcastic_pct": 25.0}
    assert corpora["tosarcasm"]["available"] is False and "tosarcasm/train.json" in corpora["tosarcasm"]["reason"]


# --- stats ---------------------------------------------------------------------------------------------

def test_stats_text_and_json(data_dir):
    text = run(data_dir, "data", "stats", "isarcasm")
    assert text.exit_code == 0, text.output
    assert "isarcasm (en): 6 records" in text.stdout and "texts shared between splits: train/test 1" in text.stdout
    stats = json.loads(run(data_dir, "data", "stats", "isarcasm", "--json").stdout)
    assert stats["splits"]["train"]["duplicate_texts"] == 1
    assert stats["splits"]["test"]["whitespace_tokens"]["max"] == 2


def test_stats_of_a_file_corpus(tmp_path):
    path = tmp_path / "mine.tsv"
    path.write_text("tweet\tgold\tpart\na b c\ttrue\ttrain\nd\tfalse\ttest\n")
    result = run(tmp_path / "nodata", "data", "stats", str(path), "--text-col", "tweet", "--label-col", "gold",
                 "--split-col", "part", "--json")
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)
    assert stats["splits"]["train"]["labels"] == {"not_sarcastic": 0, "sarcastic": 1}
    assert stats["splits"]["train"]["whitespace_tokens"]["max"] == 3


# --- bad input: one line, non-zero exit, no traceback ---------------------------------------------------

def test_unknown_corpus_suggests_the_closest(data_dir):
    result = run(data_dir, "data", "stats", "isarcasmm")
    assert_one_line_error(result, "unknown corpus 'isarcasmm'", "did you mean 'isarcasm'")
    assert_one_line_error(run(data_dir, "data", "fetch", "glov"), "did you mean 'glove'")


def test_missing_data_dir(tmp_path):
    for args in (["data", "stats", "isarcasm"], ["data", "list"], ["data", "verify"]):
        assert_one_line_error(run(tmp_path / "absent", *args), "absent does not exist", "--mirror DIR")


def test_missing_corpus_file(data_dir):
    (data_dir / ISARCASM / "data_test.csv").unlink()
    result = run(data_dir, "data", "stats", "isarcasm")
    assert_one_line_error(result, f"missing {ISARCASM}/data_test.csv", "isarcasm data fetch isarcasm --mirror DIR")


@pytest.mark.parametrize("content, fragments", [
    (b"", ["data_train.csv: file is empty"]),
    (b"tweet,sarcasm_label\nhi,1\n", ["data_train.csv:1: missing column(s) text"]),
    (b"text,sarcasm_label\nhi,1\nyo,2\n", ["data_train.csv:3: label '2' is not one of '0', '1'"]),
    (b"text,sarcasm_label\nhi,1\ncaf\xe9,0\n", ["data_train.csv:3: not valid UTF-8 (byte 0xe9)"]),
])
def test_bad_corpus_file(data_dir, content, fragments):
    (data_dir / ISARCASM / "data_train.csv").write_bytes(content)
    assert_one_line_error(run(data_dir, "data", "stats", "isarcasm"), *fragments)


@pytest.mark.parametrize("name, content, fragments", [
    ("missing.csv", None, ["missing.csv: file not found"]),
    ("empty.csv", b"", ["empty.csv: file is empty"]),
    ("cols.csv", b"tweet,label\nhi,1\n", ["cols.csv:1: missing column(s) text"]),
    ("label.csv", b"text,label\nhi,7\n", ["label.csv:2: label '7' is not one of"]),
    ("bytes.csv", b"text,label\n\xff\xfe,1\n", ["bytes.csv:2: not valid UTF-8 (byte 0xff)"]),
    ("dup.jsonl", b'{"id": 1, "text": "a", "label": 1}\n{"id": 1, "text": "b", "label": 0}\n',
     ["dup.jsonl:2: duplicate id '1' (first on row 1)"]),
])
def test_bad_file_corpus(tmp_path, name, content, fragments):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    assert_one_line_error(run(tmp_path, "data", "stats", str(path)), *fragments)


def test_duplicate_ids_in_the_isarcasm_ids_text_file(tmp_path):
    folder = tmp_path / "isarcasm/official_ids"
    folder.mkdir(parents=True)
    for split in ("train", "test"):
        content = f"tweet_id,sarcasm_label,sarcasm_type\n{split}1,sarcastic,irony\n"
        (folder / f"isarcasm_{split}.csv").write_text(content)
    texts = tmp_path / "texts.tsv"
    texts.write_text("train1\thello\ntrain1\tagain\n")
    result = run(tmp_path, "data", "stats", "isarcasm-ids", "--text-file", str(texts))
    assert_one_line_error(result, "texts.tsv:2: duplicate id train1 (first on line 1)")


def test_text_file_for_another_corpus(data_dir, tmp_path):
    result = run(data_dir, "data", "stats", "isarcasm", "--text-file", str(tmp_path / "t.tsv"))
    assert_one_line_error(result, "corpus 'isarcasm' does not take --text-file")


def test_verify_checksum_mismatch(data_dir):
    result = run(data_dir, "data", "verify", "isarcasm")
    assert_one_line_error(result, "data_train.csv: checksum mismatch: expected sha256 2406c607fd0a",
                          "(and 1 more problem(s) above)")
    assert "mismatch" in result.stdout  # the table names every file


# --- fetch (on a stand-in package, so no real data or network is touched) ----------------------------

@pytest.fixture
def toy_package(monkeypatch, tmp_path) -> DataPackage:
    content = b"text,label\nhi,1\n"
    (tmp_path / "mirror/toy").mkdir(parents=True)
    (tmp_path / "mirror/toy/train.csv").write_bytes(content)
    toy = DataPackage("toy", (DataFile("toy/train.csv", hashlib.sha256(content).hexdigest(),
                                       "http://127.0.0.1:9/train.csv"),), source="tests", licence="none")
    monkeypatch.setattr(cli_data, "packages", lambda: [toy])
    return toy


def test_fetch_from_mirror_prints_progress_and_summary(toy_package, tmp_path):
    result = run(tmp_path / "data", "data", "fetch", "all", "--mirror", str(tmp_path / "mirror"))
    assert result.exit_code == 0, result.output
    assert "  linked     toy/train.csv" in result.stdout
    assert f"fetched 1 package(s) into {tmp_path / 'data'}: 1 linked; checksums ok" in result.stdout
    assert run(tmp_path / "data", "data", "verify", "toy").exit_code == 0


def test_fetch_without_network_suggests_mirror(toy_package, tmp_path):
    result = run(tmp_path / "data", "data", "fetch", "toy")
    assert_one_line_error(result, "cannot download toy/train.csv from http://127.0.0.1:9/train.csv",
                          "fetch from a local copy with --mirror DIR")


def test_fetch_all_goes_past_a_failed_package_and_ends_with_a_line_per_package(monkeypatch, tmp_path):
    content = b"text,label\nhi,1\n"
    (tmp_path / "up.csv").write_bytes(content)
    bad = DataPackage("bad", (DataFile("bad/x.csv", "ab" * 32, "http://127.0.0.1:9/x.csv"),), source="t", licence="n")
    good = DataPackage("good", (DataFile("good/x.csv", hashlib.sha256(content).hexdigest(),
                                         (tmp_path / "up.csv").as_uri()),), source="t", licence="n")
    monkeypatch.setattr(cli_data, "packages", lambda: [bad, good])
    result = run(tmp_path / "data", "data", "fetch", "all")
    assert_one_line_error(result, "cannot download bad/x.csv from http://127.0.0.1:9/x.csv",
                          "fetch from a local copy with --mirror DIR")
    outcomes = {line.split()[0]: line.split(maxsplit=1)[1] for line in result.stdout.splitlines()[-2:]}
    assert outcomes["bad"].startswith("failed: cannot download bad/x.csv") and outcomes["good"] == "fetched"
    assert (tmp_path / "data/good/x.csv").read_bytes() == content
    again = run(tmp_path / "data", "data", "fetch", "good")
    assert again.exit_code == 0 and "  present    good/x.csv" in again.stdout


def test_all_leaves_the_optional_vectors_out_and_their_names_fetch_them():
    everything = {p.name for p in cli_data._packages("all")}
    assert {"glove", "mustard", "lexicons"} <= everything and not {"glove-6b-full", "glove-twitter-100"} & everything
    full, = cli_data._packages("glove-6b-full")
    twitter, = cli_data._packages("glove-twitter-100")
    assert [f.path for f in full.files + twitter.files] == ["glove/glove.6B.100d.txt.gz",
                                                             "glove/glove.twitter.27B.100d.txt.gz"]


def test_every_file_of_the_catalog_has_a_way_from_its_public_upstream():
    assert [f.path for p in cli_data.packages() for f in p.files if not (f.url or f.derivation)] == []


def test_from_names_one_package(tmp_path):
    (tmp_path / "glove.6B.zip").write_bytes(b"PK")
    for args in (["all"], ["glove", "--mirror", str(tmp_path)]):
        result = run(tmp_path / "data", "data", "fetch", *args, "--from", str(tmp_path / "glove.6B.zip"))
        assert_one_line_error(result, "--from FILE makes one package from its upstream archive")
