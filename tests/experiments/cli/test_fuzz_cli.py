"""Every command with missing, malformed and out-of-range options and arguments.

The property: exit code other than 0, one line on stderr starting with ``Error:``,
no traceback.  ``BAD`` is the table of (command, bad arguments) tried; a
property test adds random values for the numeric options of a fast command.
"""
from __future__ import annotations

import json
import traceback
from pathlib import Path

import pytest
from click.testing import CliRunner
from toy_corpus import write_corpus

from experiments.cli import main

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# {tmp}: a folder with toy.csv (a file corpus), notrun/ (an empty folder), afile (a plain file),
# bad.toml (a broken experiment file), results/garbage.json (not JSON) and missing/ (absent).
TRAIN = ["train", "--corpus", "{tmp}/toy.csv", "--model", "cnn", "--split-col", "split", "--set", "embeddings=random"]
REPRODUCE = ["reproduce", "{tmp}/toy.toml", "--split-col", "split", "--quick", "--set", "embeddings=random"]
BAD: dict[str, list[list[str]]] = {
    "isarcasm": [["--data-dir"], ["--model-module", "{tmp}/missing.py", "models", "list"], ["no-such-command"],
                 ["--model-module", "{tmp}/toy.csv", "models", "list"]],
    "data": [["data", "stats"], ["data", "stats", "nosuch"], ["--data-dir", "{tmp}/missing", "data", "stats", "riloff"],
             ["data", "stats", "{tmp}/toy.csv", "--text-col", "nope"], ["data", "stats", "{tmp}/missing.csv"],
             ["data", "fetch"], ["data", "fetch", "nosuch"],
             ["--data-dir", "{tmp}/data", "data", "fetch", "riloff", "--mirror", "{tmp}/missing"],
             ["data", "verify", "nosuch"], ["data", "list", "--bogus"], ["data", "nosuch"]],
    "preprocess": [["preprocess"], ["preprocess", "--text", "a", "--limit", "-1"], ["preprocess", "--corpus", "nosuch"],
                   ["preprocess", "--corpus", "{tmp}/toy.csv", "--split-col", "split", "--split", "nosuch"],
                   ["preprocess", "--text", "a", "--max-len", "0"], ["preprocess", "--text", "a", "--max-len", "-3"],
                   ["preprocess", "--text", "a", "--unk-min-count", "-1"],
                   ["preprocess", "--text", "a", "--numbers", "bogus"], ["preprocess", "--corpus", "{tmp}/missing.csv"],
                   ["preprocess", "--text", "a", "--max-len-percentile", "0"], ["preprocess", "--text"],
                   ["--data-dir", "{tmp}/missing", "preprocess", "--corpus", "riloff"]],
    "embeddings": [["embeddings", "info", "--missing", "-1"],
                   ["embeddings", "info", "--embeddings", "{tmp}/missing.txt"],
                   ["embeddings", "info", "--embeddings", "{tmp}/toy.csv"],
                   ["embeddings", "info", "--embeddings", "random", "--corpus", "nosuch"],
                   ["--data-dir", "{tmp}/missing", "embeddings", "info"]],
    "models": [["models", "summary"], ["models", "summary", "nosuch"], ["models", "list", "--vocab-size", "1"],
               ["models", "list", "--max-len", "0"], ["models", "summary", "lstm", "--max-len", "x"]],
    "train": [["train"], ["train", "--corpus", "{tmp}/toy.csv"], [*TRAIN[:3], "--model", "nosuch"],
              [*TRAIN, "--epochs", "-1"], [*TRAIN, "--epochs", "0"], [*TRAIN, "--batch-size", "0"],
              [*TRAIN, "--lr", "-1"], [*TRAIN, "--lr", "nan"], [*TRAIN, "--lr", "inf"], [*TRAIN, "--seed", "x"],
              ["train", "--corpus", "{tmp}/missing.csv", "--model", "cnn"],
              [*TRAIN, "--output-dir", "{tmp}/afile"], [*TRAIN, "--output-dir", "{tmp}/afile/runs"],
              [*TRAIN[:5], "--split-col", "split", "--set", "embeddings={tmp}/missing.txt"],
              ["--data-dir", "{tmp}/missing", "train", "--corpus", "riloff", "--model", "cnn"],
              [*TRAIN, "--set", "selection=bogus"], [*TRAIN, "--set", "context=bogus"], [*TRAIN, "--set", "max_len=0"],
              [*TRAIN, "--experiment", "../escape"], [*TRAIN, "--experiment", "/abs"]],
    "evaluate": [["evaluate"], ["evaluate", "{tmp}/notrun"], ["evaluate", "{tmp}/missing"], ["evaluate", "{tmp}/afile"],
                 ["evaluate", "{tmp}/notrun", "--corpus", "nosuch"]],
    "predict": [["predict"], ["predict", "{tmp}/notrun", "--text", "a"], ["predict", "{tmp}/notrun"],
                ["predict", "{tmp}/missing", "--text", "a"],
                ["predict", "{tmp}/notrun", "--input", "{tmp}/missing.txt"],
                ["predict", "{tmp}/afile", "--text", "a"]],
    "reproduce": [["reproduce"], ["reproduce", "nosuch"], ["reproduce", "table7", "--seeds", "0"],
                  ["reproduce", "table7", "--seeds", "-1"], ["reproduce", "table7", "--jobs", "0"],
                  ["reproduce", "table7", "--epochs", "-1"], ["reproduce", "table7", "--models", "nosuch"],
                  ["reproduce", "table7", "--corpora", "nosuch"], ["reproduce", "{tmp}/bad.toml"],
                  ["reproduce", "{tmp}/missing.toml"],
                  ["--data-dir", "{tmp}/missing", "reproduce", "table7", "--quick"],
                  [*REPRODUCE, "--results-dir", "{tmp}/afile"], [*REPRODUCE, "--output-dir", "{tmp}/afile/runs"],
                  ["reproduce", "{tmp}/escape.toml", "--split-col", "split", "--quick", "--set", "embeddings=random"],
                  ["reproduce", "{tmp}/notrun.toml"]],
    "report": [["report"], ["report", "nosuch", "--results-dir", "{tmp}/results"],
               ["report", "table7-nosuch", "--results-dir", "{tmp}/missing"],
               ["report", "garbage", "--results-dir", "{tmp}/results"],
               ["report", "../escape", "--results-dir", "{tmp}/results", "--html"],
               ["report", "garbage", "--results-dir", "{tmp}/results", "--against", "nosuch"],
               ["report", "empty", "--results-dir", "{tmp}/results"],
               ["report", "list", "--results-dir", "{tmp}/results"],
               ["report", "table7", "--results-dir", "{tmp}/afile"]],
    "cross-eval": [["cross-eval", "--seeds", "0"], ["cross-eval", "--jobs", "0"], ["cross-eval", "--models", "nosuch"],
                   ["cross-eval", "--corpora", "nosuch"], ["--data-dir", "{tmp}/missing", "cross-eval", "--quick"],
                   ["cross-eval", "--epochs", "-1"]],
    "runs": [["runs", "export"], ["runs", "nosuch"], ["runs", "export", "nosuch", "--results-dir", "{tmp}/results"],
             ["runs", "export", "garbage", "--results-dir", "{tmp}/results"],
             ["runs", "export", "empty", "--results-dir", "{tmp}/results"],
             ["runs", "export", "table7", "--results-dir", "{tmp}/missing"],
             ["runs", "export", "garbage", "--results-dir", "{tmp}/results", "--to", "{tmp}/afile"],
             ["runs", "verify", "table7", "--reference-dir", "{tmp}/missing"], ["runs", "verify", "table7", "--sample", "0"],
             ["runs", "verify"]],
    "benchmark": [["benchmark"], ["benchmark", "nosuch"], ["benchmark", "cnn", "--resamples", "5"],
                  ["benchmark", "cnn", "--test", "bogus"], ["benchmark", "cnn", "--experiments", "nosuch"],
                  ["benchmark", "cnn", "--jobs", "0"], ["benchmark", "cnn", "--seeds", "0"],
                  ["benchmark", "cnn", "--against", "nosuch"]],
    "leaderboard": [["leaderboard", "--no-committed", "--results-dir", "{tmp}/results"],
                    ["leaderboard", "--results-dir", "{tmp}/afile"],
                    ["leaderboard", "--no-committed", "--results-dir", "{tmp}/bench"],
                    ["leaderboard", "--no-committed", "--results-dir", "{tmp}/table-bench"]],
}
CASES = [(command, args) for command, cases in BAD.items() for args in cases]


@pytest.fixture(scope="module")
def tmp(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("cli")
    write_corpus(folder / "toy.csv")
    (folder / "notrun").mkdir()
    (folder / "data").mkdir()
    (folder / "afile").write_text("a file where a folder should be\n")
    (folder / "bad.toml").write_text("[[cells]\n")
    (folder / "toy.toml").write_text(f"name = 'toy'\n[[cells]]\ncorpus = '{folder}/toy.csv'\nmodel = 'cnn'\n")
    (folder / "escape.toml").write_text(f"name = '../escape'\n[[cells]]\ncorpus = '{folder}/toy.csv'\nmodel = 'cnn'\n")
    (folder / "results").mkdir()
    (folder / "results" / "garbage.json").write_text('{"experiment": "garb')
    (folder / "results" / "empty.json").write_text("{}")
    (folder / "results" / "list.json").write_text("[1, 2]")
    (folder / "bench").mkdir()
    (folder / "bench" / "benchmark-garbage.json").write_text('{"experiment": "garb')
    (folder / "table-bench").mkdir()  # a table's results filed under a benchmark's name
    (folder / "table-bench" / "benchmark-x.json").write_text(json.dumps(
        {"experiment": "x", "kind": "table", "schema_version": 1, "title": "", "source": "", "seeds": [],
         "cells": []}))
    (folder / "notrun.toml").mkdir()
    return folder


def check_one_line_failure(result) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), "".join(
        traceback.format_exception(result.exception))
    assert result.exit_code != 0, result.output
    lines = result.stderr.strip().splitlines()
    assert lines and lines[-1].startswith("Error: "), result.stderr
    assert sum(line.startswith("Error:") for line in lines) == 1, result.stderr  # one line: the error
    assert len(lines) == 1 or all(line.startswith(PROGRESS) for line in lines[:-1]), result.stderr
    assert "Traceback" not in result.output


#: Status lines a command may print before it fails (a long load announcing itself).
PROGRESS = ("reading word vectors from ",)


@pytest.mark.parametrize("command, args", CASES, ids=[f"{c}:{' '.join(a)}" for c, a in CASES])
def test_bad_arguments_give_one_line_and_a_nonzero_exit(tmp, command, args, monkeypatch):
    monkeypatch.chdir(tmp)  # results/ and runs/ defaults land in the test's folder
    monkeypatch.setenv("ISARCASM_DATA", str(tmp / "data"))
    result = CliRunner().invoke(main, [arg.format(tmp=tmp) for arg in args])
    check_one_line_failure(result)
    assert not (tmp.parent / "escape").exists() and not (tmp.parent / "escape.json").exists()


def test_the_table_covers_every_command():
    assert {name for name in main.commands} | {"isarcasm"} == set(BAD)


numbers = st.one_of(st.integers(-10**6, 10**6).map(str), st.floats(allow_nan=True).map(str),
                    st.text(st.characters(blacklist_categories=("Cs",)), max_size=6))


@given(st.sampled_from(["--max-len", "--unk-min-count", "--limit", "--max-len-percentile", "--max-len-cap",
                        "--numbers", "--truncation"]), numbers)
def test_random_option_values_are_taken_or_refused_in_one_line(option, value):
    result = CliRunner().invoke(main, ["preprocess", "--text", "Oh great, 3 more", option, value])
    if result.exit_code == 0:
        assert result.stdout.strip()
        return
    check_one_line_failure(result)
