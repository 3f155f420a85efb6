"""What left the suite (the exact engine; the diagnostics that scored another test set, ``--test-texts`` and
``report --padded-batches``) is one line naming the last commit that has it and the command to run there:
an old option, an old results file, an old run's settings.  Never a traceback, never read as today's."""
import json
import re

import pytest
from click.testing import CliRunner

from experiments.cli import main
from experiments.results.files import ResultsFiles, load_results
from experiments.results.schema import SCHEMA_VERSION
from experiments.runs.one.protocol import RETIRED_AT, TrainConfig
from preprocessing.errors import IsarcasmError


def write(folder, name, train=None, **extra):
    folder.mkdir(exist_ok=True)
    result = {"kind": "table", "schema_version": SCHEMA_VERSION, "experiment": name, "title": name, "source": "S",
              "seeds": [0], "git_commit": "c", "cells": [], **({"train": train} if train is not None else {}), **extra}
    (folder / f"{name}.json").write_text(json.dumps(result))
    return folder / f"{name}.json"


@pytest.mark.parametrize("argv, typed", [
    (["reproduce", "table7", "--engine", "exact"], "`isarcasm reproduce table7 --engine exact`"),
    (["train", "--corpus", "isarcasm", "--engine=fast"], "`isarcasm train --corpus isarcasm --engine=fast`"),
    (["train", "--test-texts", "authors-length-rules"], "`isarcasm train --test-texts authors-length-rules`"),
    (["report", "table6", "--padded-batches"], "`isarcasm report table6 --padded-batches`"),
])
def test_an_old_option_is_one_line_naming_the_commit_that_has_it_and_the_command_typed(argv, typed):
    out = CliRunner().invoke(main, argv)
    assert out.exit_code == 2
    line = out.output.strip()
    assert "\n" not in line and "No such option" not in line and "Traceback" not in line
    assert f"commit {RETIRED_AT} is the last that has it: run {typed} there (`git checkout {RETIRED_AT}`)" in line


def test_an_unknown_option_is_still_clicks_line():
    out = CliRunner().invoke(main, ["train", "--bogus"])
    assert out.exit_code == 2 and "No such option '--bogus'" in out.output and RETIRED_AT not in out.output


@pytest.mark.parametrize("train, extra, said", [
    ({"epochs": 30}, {}, "trained by the exact engine"),  # made before the engines had names
    ({"epochs": 30, "engine": "exact"}, {}, "trained by the exact engine"),
    ({"epochs": 30, "engine": "fast", "test_texts": "authors-length-rules"}, {},
     "scored on another test set (--test-texts authors-length-rules"),
    ({"epochs": 30, "engine": "fast"}, {"padded_batches": True}, "rescored on padded validation and test splits"),
])
def test_a_results_file_of_what_left_is_refused_in_one_line_wherever_it_is_found(tmp_path, train, extra, said):
    path = write(tmp_path / "committed", "t", train, **extra)
    with pytest.raises(IsarcasmError) as caught:
        load_results(path)
    assert said in str(caught.value) and f"run `isarcasm report t` there (`git checkout {RETIRED_AT}`)" in str(
        caught.value)
    with pytest.raises(IsarcasmError, match=re.escape(said)):
        ResultsFiles(tmp_path / "mine", committed=tmp_path / "committed").find("t")
    assert load_results(path, retired=True).train == train  # the distribution criterion sets its seeds beside


def test_results_of_the_engine_and_files_without_training_settings_are_read(tmp_path):
    write(tmp_path / "committed", "t", {"epochs": 30, "engine": "fast", "test_texts": "published"})
    write(tmp_path / "committed", "u")  # outside predictions, a derived report: no training settings
    files = ResultsFiles(tmp_path / "mine", committed=tmp_path / "committed")
    assert files.find("t").train["engine"] == "fast" and files.find("u").experiment == "u"
    assert files.find("v") is None and "run `isarcasm reproduce v` first" in files.missing("v")


def test_a_runs_settings_of_the_exact_engine_are_one_line_and_the_engines_are_read():
    with pytest.raises(IsarcasmError, match=f"run 1: trained by the exact engine.*commit {RETIRED_AT}"):
        TrainConfig.recorded({"epochs": 30, "engine": "exact"}, "run 1")
    assert TrainConfig.recorded({"epochs": 2, "engine": "fast"}, "run 1") == TrainConfig(epochs=2)
    assert TrainConfig(epochs=2).recorded_form()["engine"] == "fast"  # what results files record


@pytest.mark.parametrize("argv, said", [
    (["reproduce", "table7", "--set", "engine=exact"], "--set engine (the choice of the exact engine"),
    (["train", "--corpus", "isarcasm", "--model", "cnn", "--set", "test_texts=authors-length-rules"],
     "--set test_texts (scoring another test set"),
])
def test_a_retired_setting_given_with_set_is_the_same_one_line(argv, said):
    out = CliRunner().invoke(main, argv)
    line = out.output.strip()
    assert out.exit_code == 1 and "\n" not in line and said in line
    assert f"commit {RETIRED_AT} is the last that has it: run the same command with --" in line
