"""Files nested thousands deep and run folders holding foreign links, met as a user meets them: an
experiment file given to ``reproduce``, a run's config.json to ``predict``, a results file to ``report``,
a run folder whose ``evaluations`` or predictions are links to ``evaluate`` and ``predict``.  Each is
one line naming the file, before anything is scored or written."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from assertions import one_line
from click.testing import CliRunner
from locations import FIXTURES, ROOT
from toy_corpus import write_corpus

from experiments.cli import main

DEEP = "nested more than 100 levels deep"


def deep_array(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.fixture
def run(tmp_path) -> Path:
    """A copy of a finished run (the committed fixture: loading it trains nothing)."""
    return Path(shutil.copytree(FIXTURES / "run-094c709", tmp_path / "run"))


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def test_reproduce_refuses_an_experiment_file_nested_thousands_deep(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text(f'name = "deep"\nvalue = {deep_array(5000)}\n')
    one_line(invoke("reproduce", str(path)), rf"deep\.toml: {DEEP}")


def test_reproduce_refuses_tables_nested_past_the_bound(tmp_path):
    """Dotted table names nest without recursing in the parser: the walk over the value finds them."""
    path = tmp_path / "tables.toml"
    path.write_text(f"[{'.'.join(['t'] * 101)}]\nx = 1\n")
    one_line(invoke("reproduce", str(path)), rf"tables\.toml: {DEEP}")


@pytest.mark.parametrize("depth", [150, 5000])
def test_predict_refuses_a_run_whose_config_json_is_nested_past_the_bound(run, depth):
    text = (run / "config.json").read_text().rstrip().removesuffix("}")
    (run / "config.json").write_text(f'{text}, "deep": {deep_array(depth)}}}')
    one_line(invoke("predict", str(run), "--text", "yeah right"), rf"run/config\.json: {DEEP}")


def test_report_refuses_a_results_file_nested_thousands_deep(tmp_path):
    result = json.loads((ROOT / "docs/results/benchmark-bigru.json").read_text())
    text = json.dumps(result).removesuffix("}") + ', "deep": ' + '{"a": ' * 5000 + "1" + "}" * 5001
    (tmp_path / "benchmark-bigru.json").write_text(text)
    one_line(invoke("report", "benchmark-bigru", "--results-dir", str(tmp_path)),
             rf"benchmark-bigru\.json: {DEEP}")


def link_evaluations_to_the_run(run: Path) -> str:
    (run / "evaluations").symlink_to(".")
    return r"run/evaluations: a link to its own run folder \(a loop\)"


def link_evaluations_to_itself(run: Path) -> str:
    (run / "evaluations").symlink_to("evaluations")
    return r"run/evaluations: a link that loops"


def link_predictions_outside(run: Path) -> str:
    outside = run.parent / "elsewhere.tsv"
    shutil.move(run / "predictions.tsv", outside)
    (run / "predictions.tsv").symlink_to(outside)
    return r"run/predictions\.tsv: a link to .*elsewhere\.tsv, outside the run folder"


def link_to_nothing(run: Path) -> str:
    (run / "evaluations").mkdir()
    (run / "evaluations" / "toy-0.json").symlink_to("../../gone.json")
    return r"run/evaluations/toy-0\.json: a link to \.\./\.\./gone\.json, which does not exist"


LINKS = [link_evaluations_to_the_run, link_evaluations_to_itself, link_predictions_outside, link_to_nothing]


@pytest.mark.parametrize("link", LINKS, ids=[f.__name__ for f in LINKS])
def test_a_run_folder_with_a_foreign_link_is_refused_before_it_is_scored_or_written(run, tmp_path, link):
    pattern = link(run)
    before = sorted(p.name for p in run.iterdir())
    corpus = write_corpus(tmp_path / "toy.csv")
    one_line(invoke("evaluate", str(run), "--corpus", str(corpus), "--split-col", "split"), pattern)
    one_line(invoke("predict", str(run), "--text", "yeah right"), pattern)
    assert sorted(p.name for p in run.iterdir()) == before  # no evaluation written beside the run's files


def test_a_link_to_a_file_inside_the_run_folder_and_a_linked_run_folder_are_used(run, tmp_path):
    (run / "evaluations").mkdir()
    (run / "evaluations" / "note.txt").write_text("kept\n")
    (run / "note.txt").symlink_to("evaluations/note.txt")
    (tmp_path / "linked").symlink_to(run, target_is_directory=True)
    result = invoke("predict", str(tmp_path / "linked"), "--text", "yeah right")
    assert result.exit_code == 0, result.output
