"""A study's Result: one constructor that records where the numbers come from, one file format, one kind."""
import json
import time
from dataclasses import FrozenInstanceError

import pytest
from click.testing import CliRunner

from experiments.cli import main
from experiments.reports.kinds import kind_of
from experiments.results.files import load_results, write_result_files
from experiments.results.schema import SCHEMA_VERSION, Result


def run_folder(tmp_path, name, commit):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"git_commit": commit, "machine": {"cpu": "a cpu"}}))
    return folder


def test_a_study_result_records_its_kind_version_provenance_and_the_origins_of_its_runs(tmp_path):
    runs = [run_folder(tmp_path, "one", "c1"), run_folder(tmp_path, "two", "c1"), run_folder(tmp_path, "three", "c2")]
    result = Result.made("cross", "x", [{"model": "m"}], runs=runs, started=time.time() - 2, title="X")
    assert (result.kind, result.experiment, result.schema_version) == ("cross", "x", SCHEMA_VERSION)
    assert result.title == "X" and result.wall_seconds >= 2
    assert {"git_commit", "versions", "machine", "command", "sweep"} <= set(result.fields)
    assert result.run_origins == [{"git_commit": "c1", "cpu": "a cpu", "runs": 2},
                                     {"git_commit": "c2", "cpu": "a cpu", "runs": 1}]
    assert "wall_seconds" not in Result.made("cross", "x", [], runs=[]).fields  # no start given, no wall time


def test_a_result_is_its_files_top_level_and_reads_back_the_same(tmp_path):
    result = Result("table", "t", [], {"title": "T", "source": "S", "seeds": [0], "note": None})
    written = json.loads(write_result_files(result, tmp_path, None, "# T\n")[0].read_text())
    assert list(written)[:3] == ["experiment", "kind", "schema_version"] and written["note"] is None
    assert load_results(tmp_path / "t.json") == result
    assert written == result.to_dict() and result.selection is None


def test_a_derived_result_changes_only_what_it_names():
    result = Result("table", "t", [{"corpus": "c"}], {"title": "T", "seeds": [0]})
    derived = result.updated(experiment="t-selection-last", selection="last", cells=[])
    assert (derived.experiment, derived.cells, derived.selection) == ("t-selection-last", [], "last")
    assert derived.title == "T" and derived.kind == "table" and result.cells == [{"corpus": "c"}]


def test_a_field_is_an_attribute_that_reads_none_or_an_empty_list_where_the_kind_has_none():
    table = Result("table", "t", [], {"title": "T", "seeds": [0, 1], "train": {"epochs": 30}})
    assert (table.title, table.seeds, table.train) == ("T", [0, 1], {"epochs": 30})
    board = Result("leaderboard", "leaderboard", [], {"tests": 0, "entrants": [], "groups": []})
    assert (board.title, board.train, board.git_commit) == (None, None, None)
    assert board.seeds == board.failed_runs == board.parts == [] and board.tests == 0
    board.seeds.append(1)  # an empty list is the reader's own, never stored in the result
    assert board.seeds == [] and "seeds" not in board.to_dict()
    with pytest.raises(FrozenInstanceError):
        table.title = "another"


def test_the_rule_that_chose_a_tables_numbers_is_its_rescorings_else_its_trainings_else_best():
    assert Result("table", "t", []).selection_rule == "best"
    trained = Result("table", "t", [], {"train": {"selection": "grid"}})
    assert trained.selection_rule == "grid" and trained.updated(selection="last").selection_rule == "last"


def test_the_kind_a_result_names_supplies_its_report():
    cross = Result("cross", "c", [], {"title": "Cross", "corpora": [], "models": [], "seeds": [0], "git_commit": "c",
                                      "wall_seconds": 0})
    assert kind_of(cross).markdown(cross).startswith("# Cross")


def test_reproduce_prints_the_result_its_study_returned_and_rereads_no_file(tmp_path, monkeypatch):
    def study(spec, seeds, settings, **_):  # saves nothing: what is printed comes from the returned result
        return Result("table", "x", [], {"title": "Printed from the result", "source": "S", "seeds": seeds,
                                         "git_commit": "c", "wall_seconds": 0, "compute_seconds": 0})

    monkeypatch.setattr("experiments.cli.reproduce.run_experiment", study)
    shown = CliRunner().invoke(main, ["--data-dir", str(tmp_path), "reproduce", "table7", "--seeds", "1",
                                      "--output-dir", str(tmp_path / "runs"), "--results-dir", str(tmp_path / "results")])
    assert shown.exit_code == 0, shown.output
    assert "# Printed from the result" in shown.output and not (tmp_path / "results" / "x.md").exists()
