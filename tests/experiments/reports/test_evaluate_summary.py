"""`isarcasm evaluate` over several runs: mean ± std per configuration beside the evaluated file's floors;
a run counted once; a score the data leaves undefined printed as such and averaged nowhere."""
import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from test_evaluation_reuse import ONE_EPOCH, write_rows
from toy_corpus import write_corpus

from experiments.cli import main
from experiments.reports.evaluations import evaluation_summary, summary_lines
from experiments.runs.one.metrics import classification_metrics, undefined_metrics
from experiments.runs.one.training import train_run
from preprocessing.corpora import load_corpus
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.one.spec import RunOptions, RunPlace, RunSpec


def result(model: str, trained_on: str, corpus: str, f1: float, macro: float, epochs: int = 30) -> dict:
    return {"model": model, "trained_on": trained_on, "corpus": corpus,
            "configuration": {"model": model, "train": {"epochs": epochs, "batch_size": 32}},
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


def test_runs_of_other_settings_are_other_rows_that_say_what_differs():
    results = [result("cnn", "isarcasm", "mine", 0.2, 0.5, epochs=2), result("cnn", "isarcasm", "mine", 0.4, 0.6),
               result("cnn", "isarcasm", "mine", 0.6, 0.7), result("lstm", "isarcasm", "mine", 0.3, 0.5, epochs=2)]
    rows = evaluation_summary(results, {"mine": 0.25})
    assert [(r["model"], r["runs"], r["differs"]) for r in rows] == [
        ("cnn", 1, {"train.epochs": 2}), ("cnn", 2, {"train.epochs": 30}), ("lstm", 1, {})]
    assert rows[1]["metrics"]["f1_sarcastic"]["mean"] == pytest.approx(0.5)  # never pooled with the 2-epoch run
    lines = summary_lines(rows)
    assert lines[0].startswith("cnn trained on isarcasm [epochs 2], on mine (1 run): ")
    assert lines[2].startswith("lstm trained on isarcasm, on mine (1 run): ")
    assert rows[0]["majority"]["f1_macro"] == pytest.approx((2 * 0.75 / 1.75) / 2)


def test_a_score_the_data_leaves_undefined_is_averaged_nowhere():
    no_sarcasm = classification_metrics([0, 0, 0, 0], [0, 1, 0, 0])
    assert undefined_metrics(no_sarcasm) == ["f1_sarcastic", "recall_sarcastic", "f1_macro"]
    assert "precision_sarcastic" in undefined_metrics(classification_metrics([0, 0], [0, 0]))
    assert undefined_metrics(classification_metrics([0, 1], [0, 0])) == []
    rows = evaluation_summary([{**result("cnn", "a", "b", 0, 0), "test": no_sarcasm},
                               {**result("cnn", "a", "b", 0, 0), "test": classification_metrics([0, 0], [0, 0])}], {})
    assert set(rows[0]["metrics"]) == set() and rows[0]["undefined"] == ["f1_sarcastic", "f1_macro"]
    assert summary_lines(rows)[0].endswith("(2 runs): F1(sarcastic) undefined, macro-F1 undefined")


@pytest.fixture(scope="module")
def two_epochs(two_seeds, tmp_path_factory):
    """A run of the same model and corpus as ``two_seeds`` with other settings (two epochs)."""
    corpus = Path(json.loads((two_seeds[0] / "config.json").read_text())["corpus"])
    dataset = load_corpus(str(corpus), corpus.parent, split_col="split")
    directory = tmp_path_factory.mktemp("runs") / "cnn-2-epochs"
    train_run(RunSpec(dataset.name, "cnn", 0, TrainConfig(epochs=2, batch_size=32, embeddings="random")), dataset,
              RunPlace(directory), corpus.parent, RunOptions(verbose=0))
    return directory


def test_cli_never_pools_settings_and_counts_a_run_once(two_seeds, two_epochs, tmp_path, caplog):
    mine = write_rows(tmp_path / "mine.csv", 60, seed=3)
    link = tmp_path / "link"
    link.symlink_to(two_seeds[0], target_is_directory=True)
    runs = [*map(str, two_seeds), str(two_seeds[0]), str(link), str(two_epochs)]
    out = CliRunner().invoke(main, ["evaluate", *runs, "--corpus", str(mine), "--json"])
    assert out.exit_code == 0, out.output
    assert "2 run folders given more than once (the same folder, or a link to one) counted once" in caplog.text
    summary = json.loads(out.output)["summary"]
    assert [(row["runs"], row["differs"]) for row in summary] == [(2, {"train.epochs": 1}), (1, {"train.epochs": 2})]


def test_cli_prints_both_floors_for_a_single_run(two_seeds, tmp_path):
    mine = write_rows(tmp_path / "mine.csv", 60, seed=3)  # share 1/3: majority is not sarcastic
    out = CliRunner().invoke(main, ["evaluate", str(two_seeds[0]), "--corpus", str(mine)])
    assert out.exit_code == 0, out.output
    assert (f"floors on {mine} test (33% sarcastic): all sarcastic F1(sarcastic) 0.500, macro-F1 0.250; majority "
            f"class (not sarcastic) F1(sarcastic) 0.000, macro-F1 {(2 * (2 / 3) / (5 / 3)) / 2:.3f}") in out.output
    single = json.loads(CliRunner().invoke(main, ["evaluate", str(two_seeds[0]), "--corpus", str(mine), "--json"]).output)
    assert single["floors"]["majority"]["f1_sarcastic"] == 0.0


def test_cli_says_a_sarcastic_f1_without_sarcastic_text_is_undefined(two_seeds, tmp_path, caplog):
    plain = write_rows(tmp_path / "plain.csv", 30, seed=4, flip=True)
    rows = plain.read_text().splitlines()
    plain.write_text("\n".join([rows[0], *(r[:-1] + "0" for r in rows[1:])]) + "\n")  # not one text sarcastic
    out = CliRunner().invoke(main, ["evaluate", *map(str, two_seeds), "--corpus", str(plain)])
    assert out.exit_code == 0, out.output
    assert f"{plain} test has no text labelled sarcastic: f1_sarcastic, recall_sarcastic, f1_macro" in caplog.text
    assert f"floors on {plain} test: undefined (its texts are of one class only)" in out.output
    assert caplog.text.count("has no text labelled sarcastic") == 1
    assert re.search(r"recall undefined, f1 undefined, macro-F1 undefined", out.output)
    assert "(2 runs): F1(sarcastic) undefined, macro-F1 undefined" in out.output
