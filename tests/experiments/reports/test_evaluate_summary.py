"""`isarcasm evaluate` over several runs: mean ± std per group beside the evaluated file's floor."""
import json
import re

import numpy as np
import pytest
from click.testing import CliRunner
from test_evaluation_reuse import ONE_EPOCH, write_rows
from toy_corpus import write_corpus

from experiments.cli import main
from experiments.reports.evaluations import evaluation_summary, summary_lines
from experiments.runs.training import train_run
from preprocessing.corpora import load_corpus
from experiments.runs.spec import RunOptions, RunPlace, RunSpec


def result(model: str, trained_on: str, corpus: str, f1: float, macro: float) -> dict:
    return {"model": model, "trained_on": trained_on, "corpus": corpus,
            "test": {"f1_sarcastic": f1, "f1_macro": macro}}


def test_groups_by_model_training_and_evaluated_corpus():
    results = [result("cnn", "isarcasm", "mine", 0.2, 0.5), result("cnn", "isarcasm", "mine", 0.4, 0.6),
               result("lstm", "isarcasm", "mine", 0.3, 0.55), result("cnn", "riloff", "mine", 0.1, 0.4)]
    rows = evaluation_summary(results, {"mine": 0.25})
    assert [(r["model"], r["trained_on"], r["runs"]) for r in rows] == [("cnn", "isarcasm", 2), ("lstm", "isarcasm", 1),
                                                                         ("cnn", "riloff", 1)]
    cnn = rows[0]["metrics"]["f1_sarcastic"]
    assert cnn["mean"] == pytest.approx(0.3) and cnn["std"] == pytest.approx(np.std([0.2, 0.4], ddof=1))
    assert rows[0]["all_sarcastic"]["f1_sarcastic"] == pytest.approx(2 * 0.25 / 1.25)
    assert "all-sarcastic floor F1(sarcastic) 0.400" in summary_lines(rows)[0]


def test_no_floor_without_a_share():
    rows = evaluation_summary([result("cnn", "a", "b", 0.2, 0.5)] * 2, {})
    assert rows[0]["all_sarcastic"] is None and "floor" not in summary_lines(rows)[0]


@pytest.fixture(scope="module")
def two_seeds(tmp_path_factory):
    corpus = write_corpus(tmp_path_factory.mktemp("data") / "toy.csv")
    dataset = load_corpus(str(corpus), corpus.parent, split_col="split")
    runs = tmp_path_factory.mktemp("runs")
    for seed in (0, 1):
        train_run(RunSpec(dataset.name, "cnn", seed, ONE_EPOCH), dataset, RunPlace(runs / f"cnn-{seed}"), corpus.parent,
                  RunOptions(verbose=0))
    return [runs / "cnn-0", runs / "cnn-1"]


def test_cli_summarises_several_runs_on_a_users_file(two_seeds, tmp_path):
    mine = write_rows(tmp_path / "mine.csv", 60, seed=3)  # every third row sarcastic: share 20/60
    runner = CliRunner()
    text = runner.invoke(main, ["evaluate", *map(str, two_seeds), "--corpus", str(mine)])
    assert text.exit_code == 0, text.output
    assert "summary (mean ± std over runs):" in text.output
    assert re.search(r"^  cnn trained on \S*toy\.csv, on \S*mine\.csv \(2 runs\): F1\(sarcastic\) ", text.output, re.M)
    assert f"all-sarcastic floor F1(sarcastic) {2 * (1 / 3) / (4 / 3):.3f}" in text.output
    out = json.loads(runner.invoke(main, ["evaluate", *map(str, two_seeds), "--corpus", str(mine), "--json"]).output)
    f1s = [e["test"]["f1_sarcastic"] for e in out["evaluations"]]
    summary, = out["summary"]
    assert summary["runs"] == 2 and summary["metrics"]["f1_sarcastic"]["mean"] == pytest.approx(np.mean(f1s))
    assert summary["all_sarcastic"]["sarcastic_share"] == pytest.approx(1 / 3)
