"""No silent wrong number: a run that diverged is stored as failed and never scored or averaged,
NaN word vectors are refused where they are read, and splits no model can learn from are
refused before training."""
import csv
import json

import numpy as np
import pytest
from click.testing import CliRunner
from toy_corpus import write_corpus

from embeddings.vectors import load_vectors
from experiments.cli import main
from experiments.reports.table import markdown_report
from experiments.results.schema import Result
from experiments.runs.one.metrics import NonFinite, score
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.many.scheduler import RunTask, produce
from experiments.runs.one.spec import RunPlace, RunSpec
from experiments.studies.experiment import Cell
from experiments.studies.cells import cell_line, summarise_cell
from preprocessing.corpora import load_corpus
from preprocessing.errors import DataError, IsarcasmError

FAST = TrainConfig(epochs=2, batch_size=32, embeddings="random")


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("data") / "toy.csv")


def load(path):
    return load_corpus(str(path), path.parent, split_col="split")


def train_cli(corpus, output, *extra):
    return CliRunner().invoke(main, ["train", "--corpus", str(corpus), "--split-col", "split", "--model", "cnn",
                                     "--epochs", "2", "--set", "embeddings=random", "--output-dir", str(output), *extra])


def test_a_diverged_run_is_stored_as_failed_and_exits_non_zero(corpus_file, tmp_path):
    result = train_cli(corpus_file, tmp_path, "--lr", "1e30")
    assert result.exit_code == 3, result.output
    assert "run failed: non-finite loss" in result.output and "macro-F1" not in result.output
    (run,) = tmp_path.glob("*/toy/cnn/seed-0")
    assert {p.name for p in run.iterdir()} == {"failed.json"}  # nothing that could be read as a result
    assert json.loads((run / "failed.json").read_text())["failed"].startswith("non-finite")
    # Running it again reports the recorded failure without training; --force trains it again.
    again = train_cli(corpus_file, tmp_path, "--lr", "1e30")
    assert again.exit_code == 3 and "run failed earlier: non-finite loss" in again.output
    forced = train_cli(corpus_file, tmp_path, "--lr", "1e30", "--force")
    assert forced.exit_code == 3 and "run failed: non-finite loss" in forced.output
    evaluate = CliRunner().invoke(main, ["evaluate", str(run)])
    assert evaluate.exit_code == 1 and "its training failed" in evaluate.output


def test_non_finite_probabilities_are_refused_not_scored():
    targets = np.array([[1, 0], [0, 1]])
    with pytest.raises(NonFinite, match="non-finite probabilities"):
        score(targets, np.array([[np.nan, np.nan], [0.2, 0.8]]), 0.5, multi_label=False)


def test_word_vectors_with_a_nan_row_are_refused_with_file_and_line(tmp_path, monkeypatch):
    monkeypatch.setenv("ISARCASM_CACHE", str(tmp_path / "cache"))
    vectors = tmp_path / "vectors.txt"
    vectors.write_text("movie 0.1 0.2\ncoffee nan 0.3\nexam 0.5 0.6\n")
    with pytest.raises(DataError, match=r"vectors.txt:2: the vector of 'coffee' is not finite"):
        load_vectors(vectors, tmp_path, progress=False)
    with pytest.raises(DataError, match=r"vectors.txt:2:"):  # the cache built on the first load is checked too
        load_vectors(vectors, tmp_path, progress=False)


def test_a_one_class_training_split_is_refused_before_training(tmp_path):
    rows = [{"id": f"{split}{i}", "text": f"coffee exam {i}", "label": 0, "split": split}
            for split, n in (("train", 40), ("test", 10)) for i in range(n)]
    rows[-1]["label"] = 1  # the test split has both classes, the training split one
    path = tmp_path / "one.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["id", "text", "label", "split"])
        writer.writeheader()
        writer.writerows(rows)
    result = train_cli(path, tmp_path / "runs")
    assert result.exit_code == 1 and "one class only" in result.output
    assert "Traceback" not in result.output and not list((tmp_path / "runs").rglob("seed-0"))


def test_a_validation_split_without_the_sarcastic_class_is_refused(corpus_file):
    dataset = load(corpus_file)
    train = [r for r in dataset.records if r.split == "train"]
    negatives = [r for r in train if r.label == 0]
    with pytest.raises(IsarcasmError, match="validation split .* has no 'sarcastic' text"):
        dataset.check_learnable(train, negatives[:10])
    dataset.check_learnable(train, train[:10])  # both classes: accepted


def test_a_study_reports_the_failed_seed_and_averages_the_others(corpus_file, tmp_path):
    dataset = load(corpus_file)
    diverging = TrainConfig(epochs=2, batch_size=32, embeddings="random", learning_rate=1e30)
    tasks = [RunTask(RunSpec(dataset.name, "cnn", seed, train), RunPlace(tmp_path / f"seed-{seed}"), corpus_file.parent)
             for seed, train in ((0, FAST), (1, diverging))]
    finished, failed = (produce(task.with_verbose(0), dataset) for task in tasks)
    assert failed.failure and not finished.failure
    cell = summarise_cell(Cell(str(corpus_file), "cnn"), dataset, [finished, failed], tasks, [0, 1], FAST)
    assert cell["metrics"]["f1_sarcastic"]["values"] == [finished.metrics["test"]["f1_sarcastic"]]
    assert [f["seed"] for f in cell["failed_runs"]] == [1] and cell["runs"] == [str(tmp_path / "seed-0")]
    assert "(1 of 2 seeds failed: non-finite loss" in cell_line(cell)
    result = Result("table", "t", [cell], {"title": "t", "source": "s", "seeds": [0, 1], "git_commit": "abc",
                                           "wall_seconds": 1, "compute_seconds": 1})
    assert "1 of 2 seeds failed: non-finite loss" in markdown_report(result)
    # A cell whose every seed failed says so and shows no number.
    none = summarise_cell(Cell(str(corpus_file), "cnn"), dataset, [failed], tasks[1:], [1], FAST)
    assert none["metrics"] == {} and "1 of 1 seeds failed" in cell_line(none)
    assert "1 of 1 seeds failed: non-finite loss" in markdown_report(result.updated(cells=[none]))



def test_a_finite_loss_beyond_any_cross_entropy_is_a_diverged_run():
    """--lr 1e30 on iSarcasm's LSTM keeps the loss finite (~1e31) while it learns nothing: stopped too."""
    import keras

    from experiments.runs.one.selection import DIVERGED_LOSS, StopOnNonFinite

    stop = StopOnNonFinite()
    stop.set_model(keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)]))
    stop.on_epoch_end(0, {"loss": 16.0, "val_loss": 15.0, "f1": 0.1})  # a bad but real cross-entropy
    with pytest.raises(NonFinite, match=r"diverged: val loss 1e\+31 in epoch 3"):
        stop.on_epoch_end(2, {"loss": 0.5, "val_loss": 1e31})
    assert DIVERGED_LOSS > -np.log(1e-7) * 1000  # far above cross-entropy with Keras' clipped probabilities
