"""A user's CSV/TSV/JSONL file as a corpus."""
from __future__ import annotations

import gzip
import json

import pytest

from preprocessing.anyfile import read_any_file
from preprocessing.corpora import corpus_label, is_file_corpus, load_corpus
from preprocessing.errors import DataError


def test_csv_without_split_column_is_all_test(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text('text,label\n"hello, world",1\nplain,false\nthird,Sarcastic\n', encoding="utf-8")
    dataset = load_corpus(str(path), tmp_path / "unused")
    assert [(r.id, r.text, r.label, r.split) for r in dataset.records] == [
        ("row-2", "hello, world", 1, "test"), ("row-3", "plain", 0, "test"), ("row-4", "third", 1, "test"),
    ]
    assert dataset.name.endswith("mine.csv") and dataset.label_names == ("not_sarcastic", "sarcastic")


def test_tsv_with_custom_columns_split_and_ids(tmp_path):
    path = tmp_path / "mine.tsv"
    path.write_text("id\ttweet\ty\tpart\na7\tfirst\t0\ttrain\nb8\tsecond\t1\ttest\n", encoding="utf-8")
    dataset = read_any_file(path, text_col="tweet", label_col="y", split_col="part")
    assert [(r.id, r.split, r.label) for r in dataset.records] == [("a7", "train", 0), ("b8", "test", 1)]
    assert dataset.splits == ["train", "test"]


def test_jsonl_accepts_booleans_and_numbers(tmp_path):
    path = tmp_path / "mine.jsonl"
    rows = [{"id": 1, "text": "a", "label": True}, {"id": 2, "text": "b", "label": 0}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    assert [(r.id, r.label) for r in read_any_file(path).records] == [("1", 1), ("2", 0)]


BAD_FILES = [
    ("missing.csv", None, {}, r"missing.csv: file not found"),
    ("empty.csv", b"", {}, r"empty.csv: file is empty"),
    ("header.csv", b"text,label\n", {}, r"header.csv: no data rows"),
    ("cols.csv", b"tweet,label\na,1\n", {}, r"cols.csv:1: missing column\(s\) text; the header has: tweet, label"),
    ("cols.csv", b"text,label\na,1\n", {"split_col": "part"}, r"cols.csv:1: missing column\(s\) part"),
    ("label.csv", b"text,label\na,1\nb,maybe\n", {}, r"label.csv:3: label 'maybe' is not one of '0', '1'"),
    ("bytes.csv", b"text,label\na,1\ncaf\xe9,0\n", {}, r"bytes.csv:3: not valid UTF-8"),
    ("dup.csv", b"id,text,label\nx,a,1\ny,b,0\nx,c,0\n", {}, r"dup.csv:4: duplicate id 'x' \(first on row 2\)"),
    ("blank.csv", b"text,label\n ,1\n", {}, r"blank.csv:2: empty text in column 'text'"),
    ("bad.jsonl", b'{"text": "a", "label": 1}\n{"text": \n', {}, r"bad.jsonl:2: invalid JSON"),
    ("keys.jsonl", b'{"text": "a"}\n', {}, r"keys.jsonl:1: missing key\(s\) label"),
    ("notes.txt", b"text,label\na,1\n", {}, r"notes.txt: unsupported file type .txt"),
    # an id is one line of the tab-separated run files: a TAB, a line break or a control character would break them
    ("tab.csv", b'id,text,label\nx,a,1\n"y\tz",b,0\n', {}, r"tab.csv:3: id 'y\\tz' holds a TAB; ids are written"),
    ("line.csv", b'id,text,label\n"x\ny",a,1\n', {}, r"line.csv:2: id 'x\\ny' holds a line break"),
    ("ctrl.jsonl", b'{"id": "a\\u001cb", "text": "a", "label": 1}\n', {},
     r"ctrl.jsonl:1: id 'a\\x1cb' holds the control character '\\x1c'"),
]


@pytest.mark.parametrize("name, content, options, problem", BAD_FILES)
def test_bad_files_name_file_and_row(tmp_path, name, content, options, problem):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(DataError, match=problem):
        read_any_file(path, **options)


# --- gzipped files: read as they stream, with the same checks, within a bound --------------------

GOOD = {".csv": b'id,text,label\na,"hello, world",1\nb,plain,0\n',
        ".tsv": b"id\ttext\tlabel\na\thello, world\t1\nb\tplain\t0\n",
        ".jsonl": b'{"id": "a", "text": "hello, world", "label": 1}\n{"id": "b", "text": "plain", "label": 0}\n'}


@pytest.mark.parametrize("suffix", list(GOOD))
def test_a_gzipped_file_reads_as_the_file_itself(tmp_path, suffix):
    plain, packed = tmp_path / f"mine{suffix}", tmp_path / f"mine{suffix}.gz"
    plain.write_bytes(GOOD[suffix])
    packed.write_bytes(gzip.compress(GOOD[suffix]))
    dataset = load_corpus(str(packed), tmp_path / "unused")
    assert [(r.id, r.text, r.label, r.split) for r in dataset.records] == \
        [(r.id, r.text, r.label, r.split) for r in read_any_file(plain).records]
    assert corpus_label(str(packed)) == "mine" and is_file_corpus("MINE.CSV.GZ")


@pytest.mark.parametrize("name, content, options, problem", BAD_FILES)
def test_a_gzipped_bad_file_is_refused_with_the_same_line(tmp_path, name, content, options, problem):
    path = tmp_path / f"{name}.gz"
    if content is not None:
        path.write_bytes(gzip.compress(content))
    with pytest.raises(DataError, match=f"{name}.gz{problem[len(name):]}"):
        read_any_file(path, **options)


@pytest.mark.parametrize("content", [b"text,label\na,1\n", gzip.compress(b"text,label\na,1\n" * 100, mtime=0)[:-12]],
                         ids=["not gzip", "cut short"])
def test_a_file_named_gz_that_is_not_gzip_or_is_cut_short_is_one_line(tmp_path, content):
    path = tmp_path / "mine.csv.gz"
    path.write_bytes(content)
    with pytest.raises(DataError, match=r"mine.csv.gz: not a valid gzip file"):
        read_any_file(path)


def test_a_gzip_bomb_is_refused_before_it_fills_the_memory(tmp_path, monkeypatch):
    path = tmp_path / "bomb.csv.gz"
    path.write_bytes(gzip.compress(b"text,label\n" + b"0" * 5_000_000 + b",1\n"))  # 5 MB from 5 KB
    assert path.stat().st_size < 10_000
    monkeypatch.setenv("ISARCASM_MAX_GZIP_BYTES", "1000000")
    with pytest.raises(DataError, match=r"^\S+bomb.csv.gz: decompresses to more than 1,000,000 bytes, the limit for "
                                        r"a compressed file; set ISARCASM_MAX_GZIP_BYTES higher"):
        read_any_file(path)
    monkeypatch.delenv("ISARCASM_MAX_GZIP_BYTES")
    assert len(read_any_file(path).records[0].text) == 5_000_000  # under the default 2 GiB
