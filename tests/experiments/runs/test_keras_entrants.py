"""A user's Keras model that reads raw text, benchmarked as an entrant (``benchmark NAME --keras-model``),
and the example file examples/keras_hub_transformer.py (its tests skip without keras-hub)."""
import hashlib
import importlib.util
import json
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.metrics import f1_score
from toy_corpus import write_corpus, train_toy

from experiments.cli import main
from experiments.runs.entrants.registry import plan_run, score_run
from experiments.runs.entrants.keras_models import load_keras_model
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.one.spec import RunPlace, RunSpec
from experiments.runs.one.store import run_dir
from experiments.runs.one.outputs import read_predictions
from preprocessing.corpora import load_corpus
from locations import ROOT

EXAMPLE = ROOT / "examples" / "keras_hub_transformer.py"
pytestmark = pytest.mark.usefixtures("clean_entrants")  # the entrant registry is left as found
ONE_EPOCH = TrainConfig(epochs=1, embeddings="random")
RUNS = "table7-epochs-1-embeddings-random"  # the store folder of table7 runs under ONE_EPOCH
NO_HUB = importlib.util.find_spec("keras_hub") is None

#: A model with its own preprocessing that needs no keras-hub: a TextVectorization layer adapted to
#: the training texts, an embedding, an average, one sigmoid unit.
PLAIN = """import keras

def build(train_texts, seed):
    vectorize = keras.layers.TextVectorization(max_tokens=200, output_sequence_length=8)
    vectorize.adapt(train_texts)
    inputs = keras.Input(shape=(), dtype="string")
    hidden = keras.layers.GlobalAveragePooling1D()(keras.layers.Embedding(200, 8)(vectorize(inputs)))
    return keras.Model(inputs, keras.layers.Dense(1, activation="{activation}")(hidden))
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A toy corpus, a cnn run of it made by a table7 reproduction, an experiment file called table7
    and the plain model's file."""
    root = tmp_path_factory.mktemp("keras")
    corpus = write_corpus(root / "toy.csv")
    cnn = run_dir(root / "runs", RUNS, str(corpus), "cnn", 0)
    train_toy(load_corpus(str(corpus), root, split_col="split"), "cnn", cnn, root, ONE_EPOCH)
    experiment = root / "mini.toml"
    experiment.write_text(f"name = 'table7'\n[[cells]]\ncorpus = '{corpus}'\nmodel = 'cnn'\n")
    plain = root / "plain.py"
    plain.write_text(PLAIN.format(activation="sigmoid"))
    return root, corpus, experiment, plain


def benchmark(root, experiment, name, path, *args):
    return CliRunner().invoke(main, ["benchmark", name, "--keras-model", str(path), "--experiments", str(experiment),
                                     "--seeds", "1", "--epochs", "1", "--set", "embeddings=random", "--split-col",
                                     "split", "--resamples", "300", *args, "--output-dir", str(root / "runs"),
                                     "--results-dir", str(root / "results")])


def test_a_keras_model_is_trained_its_epoch_chosen_on_validation_and_benchmarked(store):
    root, corpus, experiment, plain = store
    # --epochs 3 makes a variant of table7; the classic cnn run is looked up there (and listed as missing).
    result = benchmark(root, experiment, "plain", plain, "--epochs", "3")
    assert result.exit_code == 0, result.output
    run = run_dir(root / "runs", "table7-epochs-3-embeddings-random", str(corpus), "plain", 0)
    config = json.loads((run / "config.json").read_text())
    assert config["entrant"] == {"kind": "keras", "file": "plain.py", "function": "build", "backend": "tensorflow",
                                 "sha256": hashlib.sha256(plain.read_bytes()).hexdigest(), "epochs": 3,
                                 "batch_size": 128, "learning_rate": 1e-3, "class_weight": "none"}
    chosen = json.loads((run / "entrant.json").read_text())["chosen"]
    scores = [epoch["f1_sarcastic"] for epoch in chosen["epochs"]]
    assert [epoch["epoch"] for epoch in chosen["epochs"]] == [1, 2, 3]
    assert chosen["epoch"] == 1 + scores.index(max(scores)) and chosen["f1_sarcastic"] == max(scores)
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["validation"]["f1_sarcastic"] == pytest.approx(max(scores))
    assert metrics["predict_texts_per_second"] > 0 and metrics["peak_memory_mb"] > 50
    predictions = read_predictions(run / "predictions.tsv")
    assert metrics["test"]["f1_sarcastic"] == pytest.approx(f1_score(predictions.gold, predictions.labels(0.5)))
    # The report of the benchmark ranks it; the cnn of the 1-epoch protocol is compared in the next test.
    saved = json.loads((root / "results" / "benchmark-plain.json").read_text())
    assert saved["cells"][0]["candidate"]["mean"] == metrics["test"]["f1_sarcastic"]


def test_a_keras_run_is_compared_with_the_classic_runs_and_reused(store):
    root, corpus, experiment, plain = store
    first = benchmark(root, experiment, "plain", plain)
    assert first.exit_code == 0, first.output
    cell = json.loads((root / "results" / "benchmark-plain.json").read_text())["cells"][0]
    assert [row["model"] for row in cell["classics"]] == ["cnn"] and 0 <= cell["classics"][0]["p_value"] <= 1
    again = benchmark(root, experiment, "plain", plain)
    assert again.exit_code == 0, again.output
    assert json.loads((root / "results" / "benchmark-plain" / f"{RUNS}.json").read_text()
                      )["cells"][0]["reused_runs"] == 1
    run = run_dir(root / "runs", RUNS, str(corpus), "plain", 0)
    evaluated = CliRunner().invoke(main, ["evaluate", str(run), "--corpus", str(corpus), "--split-col", "split"])
    assert evaluated.exit_code == 1 and "keeps no model to load" in evaluated.output


def test_the_epoch_is_chosen_without_the_test_labels_and_a_run_is_repeatable(store, tmp_path):
    _, _, _, plain = store
    plain_corpus, flipped = write_corpus(tmp_path / "a.csv"), write_corpus(tmp_path / "b.csv", flip_test=True)
    load_keras_model("plain-flip", plain)
    runs = []
    for corpus in (plain_corpus, flipped):
        data = load_corpus(str(corpus), tmp_path, split_col="split")
        runs.append(score_run(plan_run(RunSpec(data.name, "plain-flip", 0, TrainConfig(epochs=3)), data, tmp_path),
                              RunPlace(tmp_path / corpus.stem)))
    chosen = [json.loads((run.directory / "entrant.json").read_text())["chosen"] for run in runs]
    assert chosen[0] == chosen[1]
    a, b = (read_predictions(run.directory / "predictions.tsv") for run in runs)
    assert np.array_equal(a.probabilities, b.probabilities) and not np.array_equal(a.gold, b.gold)


HEAD = "import keras\n"
BAD_FILES = {
    "no-function": ("x = 1\n", "defines no function build()"),
    "not-a-model": ("def build(train_texts, seed):\n    return 'a model'\n", "build() returned a str, not a keras.Model"),
    "raises": ("def build(train_texts, seed):\n    raise RuntimeError('no preset here')\n",
               "build() raised RuntimeError: no preset here"),
    "logits": (PLAIN.format(activation="linear"), "outputs are not probabilities"),
    "three-outputs": (PLAIN.replace("Dense(1", "Dense(3").format(activation="softmax"),
                      "expected (1,) (P(sarcastic)) or (2,)"),
    "learning-rate": (PLAIN.format(activation="sigmoid") + "LEARNING_RATE = -1\n",
                      "LEARNING_RATE must be a positive number"),
    "settings": (PLAIN.format(activation="sigmoid") + "SETTINGS = {'path': object()}\n",
                 "SETTINGS must be a dict of JSON values"),
    "syntax": ("def build(:\n", "syntax error on line 1"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_bad_keras_model_file_is_one_line_and_writes_no_run(store, tmp_path, case):
    root, corpus, experiment, _ = store
    source, message = BAD_FILES[case]
    path = tmp_path / f"{case}.py"
    path.write_text(source)
    result = benchmark(root, experiment, f"bad-{case}", path)
    assert result.exit_code == 1 and message in result.output and "Traceback" not in result.output
    *bar, error = result.output.strip().splitlines()  # a model that fails in training: its run's progress bar first
    assert message in error and str(path) in error and all("%|" in line for line in bar)
    assert not (run_dir(root / "runs", RUNS, str(corpus), f"bad-{case}", 0) / "metrics.json").exists()
    assert not (root / "results" / f"benchmark-bad-{case}.json").exists()


def test_one_kind_of_entrant_at_a_time(store):
    root, _, _, plain = store
    both = CliRunner().invoke(main, ["benchmark", "both", "--keras-model", str(plain), "--estimator",
                                     str(ROOT / "examples" / "sklearn_pipeline.py"), "--output-dir",
                                     str(root / "runs"), "--results-dir", str(root / "results")])
    assert both.exit_code == 1 and "not several" in both.output


@pytest.mark.skipif(NO_HUB, reason="keras-hub is not installed (pip install -e '.[hub]')")
def test_the_example_runs_on_its_own():
    done = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert [line.split("  ")[1] for line in done.stdout.splitlines()] == ["oh great, traffic again",
                                                                          "the exam is at noon"]


@pytest.mark.skipif(NO_HUB, reason="keras-hub is not installed (pip install -e '.[hub]')")
def test_the_keras_hub_example_is_benchmarked(store):
    root, corpus, experiment, _ = store
    result = benchmark(root, experiment, "wordpiece-bert", EXAMPLE, "--batch-size", "32")
    assert result.exit_code == 0, result.output
    run = run_dir(root / "runs", "table7-epochs-1-batch-size-32-embeddings-random", str(corpus), "wordpiece-bert", 0)
    config = json.loads((run / "config.json").read_text())
    assert config["entrant"]["settings"] == {"preset": ""} and config["entrant"]["learning_rate"] == 1e-3
    chosen = json.loads((run / "entrant.json").read_text())["chosen"]
    assert chosen["epoch"] == 1 and chosen["parameters"] > 10_000
    assert read_predictions(run / "predictions.tsv").probabilities.shape[0] == 40
