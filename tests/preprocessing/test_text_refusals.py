"""A lone surrogate (half of a UTF-16 pair: a JSON escape such as ``"\\ud800"``, or a command-line
argument of bytes that are not UTF-8) is no text: every command refuses it the same way, naming
where it is (file and line, or the option), before any tokenizer meets it."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from assertions import one_line
from click.testing import CliRunner

from experiments.cli import main
from preprocessing.errors import DataError, IsarcasmError
from preprocessing.fileio import read_json
from preprocessing.pipeline import Preprocessor
from locations import FIXTURES

OLD_RUN = FIXTURES / "run-094c709"
PROBLEM = (r"a lone surrogate \\ud800 at character 5 \(half of a UTF-16 pair, from a JSON escape or bytes that "
           r"are not UTF-8\) is not text; fix or remove it$")


@pytest.fixture
def corpus(tmp_path) -> Path:
    """A JSON Lines corpus whose fourth line holds "\\ud800" inside a text."""
    rows = [{"text": f"text {i} " + ("yeah right" if i % 2 else "is fine"), "label": i % 2,
             "split": "train" if i < 30 else "test"} for i in range(40)]
    rows[3]["text"] = "bad \ud800 text"
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_every_command_refuses_a_corpus_text_with_a_lone_surrogate_naming_file_and_line(tmp_path, corpus):
    run = shutil.copytree(OLD_RUN, tmp_path / "run")
    where = rf"^Error: {re.escape(str(corpus))}:4: \[\"text\"\]: {PROBLEM}"
    for args in (["data", "stats", str(corpus)], ["preprocess", "--corpus", str(corpus), "--split-col", "split"],
                 ["train", "--corpus", str(corpus), "--split-col", "split", "--model", "cnn", "--set",
                  "embeddings=random", "--output-dir", str(tmp_path / "runs")],
                 ["evaluate", str(run), "--corpus", str(corpus)]):
        one_line(CliRunner().invoke(main, ["--data-dir", str(tmp_path), *args]), where)


def test_text_options_refuse_a_lone_surrogate_in_the_same_words(tmp_path):
    run = shutil.copytree(OLD_RUN, tmp_path / "run")
    text = "bad \ud800 text"
    one_line(CliRunner().invoke(main, ["preprocess", "--text", "fine", "--text", text]),
             rf"^Error: --text number 2: {PROBLEM}")
    one_line(CliRunner().invoke(main, ["predict", str(run), "--text", text]), rf"^Error: --text number 1: {PROBLEM}")


def test_predict_input_file_that_is_not_utf8_is_refused_with_its_line(tmp_path):
    run = shutil.copytree(OLD_RUN, tmp_path / "run")
    path = tmp_path / "in.txt"
    path.write_bytes(b"fine\nbad \xed\xa0\x80 text\n")  # a surrogate encoded as UTF-8 bytes: not UTF-8
    one_line(CliRunner().invoke(main, ["predict", str(run), "--input", str(path)]),
             rf"^Error: {re.escape(str(path))}:2: not valid UTF-8 \(byte 0xed\)")


def test_a_json_file_names_the_place_of_the_lone_surrogate(tmp_path):
    path = tmp_path / "data.json"
    path.write_text('{"1_60": {"utterance": "ok", "context": ["fine", "bad \\ud800 text"]}}')
    with pytest.raises(DataError, match=rf"data.json: \[\"1_60\"\]\[\"context\"\]\[1\]: {PROBLEM}"):
        read_json(path)
    path.write_text('{"pair": "\\ud83d\\ude00 is one character"}')  # a whole pair is a character, kept
    assert read_json(path) == {"pair": "\U0001F600 is one character"}


def test_the_tokenizer_refuses_a_lone_surrogate_from_any_other_way_in():
    with pytest.raises(IsarcasmError, match=rf"^text #2: {PROBLEM}"):
        Preprocessor().fit(["fine", "bad \ud800 text"])
