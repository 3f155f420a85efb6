"""Predictions made outside the suite, benchmarked as runs (``benchmark NAME --predictions DIR``), and the
folder generator examples/outside_predictions.py."""
import hashlib
import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner
from sklearn.metrics import f1_score, precision_score
from toy_corpus import write_corpus, train_toy

from experiments.cli import main
from experiments.reports.significance import compare_runs
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.one.store import run_dir
from experiments.runs.one.outputs import read_predictions
from preprocessing.corpora import load_corpus
from locations import ROOT

EXAMPLE = ROOT / "examples" / "outside_predictions.py"
pytestmark = pytest.mark.usefixtures("clean_entrants")  # the entrant registry is left as found
ONE_EPOCH = TrainConfig(epochs=1, embeddings="random")
RUNS = "table7-epochs-1-embeddings-random"  # the store folder of table7 runs under ONE_EPOCH


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """Two toy corpora, a cnn run of the first made by a table7 reproduction, and an experiment file
    called table7 with both corpora."""
    root = tmp_path_factory.mktemp("outside")
    toy, other = write_corpus(root / "toy.csv"), write_corpus(root / "other.csv", seed=1)
    cnn = run_dir(root / "runs", RUNS, str(toy), "cnn", 0)
    train_toy(load_corpus(str(toy), root, split_col="split"), "cnn", cnn, root, ONE_EPOCH)
    experiment = root / "mini.toml"
    experiment.write_text(f"name = 'table7'\n[[cells]]\ncorpus = '{toy}'\nmodel = 'cnn'\n"
                          f"[[cells]]\ncorpus = '{other}'\nmodel = 'cnn'\n")
    return root, toy, other, cnn, experiment


def benchmark(root, experiment, name, folder, *args):
    return CliRunner().invoke(main, ["benchmark", name, "--predictions", str(folder), "--experiments",
                                     str(experiment), "--seeds", "1", *args, "--epochs", "1", "--set",
                                     "embeddings=random", "--split-col", "split", "--resamples", "300",
                                     "--output-dir", str(root / "runs"), "--results-dir", str(root / "results")])


def generate(folder, *corpora, column="p_sarcastic"):
    """The example generator, run as a user runs it."""
    command = [sys.executable, str(EXAMPLE), str(folder), "--column", column, "--split-col", "split",
               "--data-dir", str(folder.parent)]
    for corpus in corpora:
        command += ["--corpus", str(corpus)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    return folder


def test_the_example_folder_is_benchmarked_as_runs(store, tmp_path):
    root, toy, other, cnn, experiment = store
    folder = generate(tmp_path / "preds", toy, other)
    result = benchmark(root, experiment, "cues", folder)
    assert result.exit_code == 0, result.output
    run = run_dir(root / "runs", RUNS, str(toy), "cues", 0)
    config = json.loads((run / "config.json").read_text())
    assert config["entrant"] == {"kind": "predictions", "file": "toy.tsv",
                                 "sha256": hashlib.sha256((folder / "toy.tsv").read_bytes()).hexdigest()}
    assert {"git_commit", "versions", "data_sha256"} <= set(config)
    # P(sarcastic) is the file's, and the metrics are scikit-learn's on it.
    given = dict(line.split("\t") for line in (folder / "toy.tsv").read_text().splitlines()[1:])
    predictions = read_predictions(run / "predictions.tsv")
    assert [float(given[i]) for i in predictions.ids] == pytest.approx(predictions.probabilities[:, 1].tolist())
    metrics = json.loads((run / "metrics.json").read_text())
    assert "validation" not in metrics
    assert metrics["test"]["f1_sarcastic"] == pytest.approx(f1_score(predictions.gold, predictions.labels()))
    assert metrics["test"]["precision_sarcastic"] == pytest.approx(precision_score(predictions.gold,
                                                                                   predictions.labels()))
    saved = json.loads((root / "results" / "benchmark-cues.json").read_text())
    assert [c["cell"] for c in saved["cells"]] == ["toy", "other"]
    toy_cell = saved["cells"][0]
    expected = compare_runs({0: predictions}, {0: read_predictions(cnn / "predictions.tsv")}, n_resamples=300)
    assert toy_cell["classics"][0]["model"] == "cnn"
    assert toy_cell["classics"][0]["p_value"] == expected["combined"]["p_value"]
    assert saved["cells"][1]["not_found"] == ["cnn"]


def test_one_file_per_seed_and_a_label_column(store, tmp_path):
    root, toy, _, _, _ = store
    experiment = tmp_path / "toy-only.toml"
    experiment.write_text(f"name = 'table7'\n[[cells]]\ncorpus = '{toy}'\nmodel = 'cnn'\n")
    folder = generate(tmp_path / "labels", toy, column="label")
    (folder / "toy.tsv").rename(folder / "toy.seed-1.tsv")
    generate(folder, toy)  # toy.tsv serves seed 0
    result = benchmark(root, experiment, "per-seed", folder, "--seeds", "2")
    assert result.exit_code == 0, result.output
    files = [json.loads((run_dir(root / "runs", RUNS, str(toy), "per-seed", seed) / "config.json").read_text()
                        )["entrant"]["file"] for seed in (0, 1)]
    assert files == ["toy.tsv", "toy.seed-1.tsv"]
    labels = read_predictions(run_dir(root / "runs", RUNS, str(toy), "per-seed", 1) / "predictions.tsv")
    assert set(labels.probabilities[:, 1]) <= {0.0, 1.0}


def rows(lines):
    return "\n".join(lines) + "\n"


def good_rows():
    return ["id\tp_sarcastic"] + [f"test{i}\t{0.9 if i % 4 == 0 else 0.1}" for i in range(40)]


BAD = {  # case -> (the toy.tsv lines, the message, the row named)
    "missing-id": (good_rows()[:6] + good_rows()[7:], "1 of the 40 test ids of 'toy' have no prediction, e.g. 'test5'",
                   None),
    "extra-id": (good_rows() + ["train3\t0.5"], "id 'train3' is not in the test split of 'toy'", 42),
    "duplicate-id": (good_rows() + ["test0\t0.5"], "id 'test0' is given twice (first on row 2)", 42),
    "not-a-number": (good_rows()[:3] + ["test2\thigh"] + good_rows()[4:], "p_sarcastic 'high' is not a number", 4),
    "above-one": (good_rows()[:3] + ["test2\t1.5"] + good_rows()[4:], "p_sarcastic 1.5 is not a probability", 4),
    "nan": (good_rows()[:3] + ["test2\tnan"] + good_rows()[4:], "p_sarcastic nan is not a probability", 4),
    "bad-label": (["id\tlabel", "test0\t2"], "label '2' is not one of '0', '1'", 2),
    "no-column": (["id\tscore", "test0\t0.5"], "no p_sarcastic or label column", 1),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_predictions_file_is_one_line_naming_file_and_row_and_writes_nothing(store, tmp_path, case):
    root, toy, other, _, experiment = store
    lines, message, row = BAD[case]
    folder = generate(tmp_path / "preds", other)  # other.tsv is good: its runs must not be written either
    (folder / "toy.tsv").write_text(rows(lines))
    result = benchmark(root, experiment, f"bad-{case}", folder)
    where = f"{folder / 'toy.tsv'}:{row}:" if row else f"{folder / 'toy.tsv'}:"
    assert result.exit_code == 1, result.output
    assert message in result.output and where in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    for corpus in ("toy", "other"):
        assert not (root / "runs" / RUNS / corpus / f"bad-{case}").exists()
    assert not (root / "results" / f"benchmark-bad-{case}.json").exists()
    assert not (root / "results" / f"benchmark-bad-{case}").exists()


def test_a_missing_corpus_file_or_folder_is_one_line(store, tmp_path):
    root, toy, other, _, experiment = store
    folder = generate(tmp_path / "preds", toy)  # no other.tsv
    result = benchmark(root, experiment, "no-other", folder)
    assert result.exit_code == 1 and f"{folder / 'other.tsv'}: not found" in result.output
    assert not (root / "runs" / RUNS / "toy" / "no-other").exists()
    missing = benchmark(root, experiment, "no-folder", tmp_path / "nowhere")
    assert missing.exit_code == 1 and "predictions folder" in missing.output and "not found" in missing.output
    both = CliRunner().invoke(main, ["benchmark", "both", "--predictions", str(folder), "--estimator",
                                     str(ROOT / "examples" / "sklearn_pipeline.py"), "--output-dir",
                                     str(root / "runs"), "--results-dir", str(root / "results")])
    assert both.exit_code == 1 and "not several" in both.output
