"""A user's scikit-learn estimator benchmarked against the classic runs (``benchmark NAME --estimator``),
and the example file examples/sklearn_pipeline.py."""
import hashlib
import json
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner
from markdown_tables import unpadded
from sklearn.metrics import f1_score
from toy_corpus import write_corpus, train_toy

from experiments.cli import main
from experiments.reports.significance import compare_runs
from experiments.runs.entrants.registry import plan_run, score_run
from experiments.runs.entrants.estimators import load_estimator
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.one.spec import RunPlace, RunSpec
from experiments.runs.one.store import run_dir
from experiments.runs.one.outputs import read_predictions
from preprocessing.corpora import load_corpus
from preprocessing.errors import IsarcasmError
from locations import ROOT

EXAMPLE = ROOT / "examples" / "sklearn_pipeline.py"
pytestmark = pytest.mark.usefixtures("clean_entrants")  # the entrant registry is left as found
ONE_EPOCH = TrainConfig(epochs=1, embeddings="random")
RUNS = "table7-epochs-1-embeddings-random"  # the store folder of table7 runs under ONE_EPOCH


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A toy corpus, a cnn run of it made by a table7 reproduction, and an experiment file called table7."""
    root = tmp_path_factory.mktemp("sklearn")
    corpus = write_corpus(root / "toy.csv")
    cnn = run_dir(root / "runs", RUNS, str(corpus), "cnn", 0)
    train_toy(load_corpus(str(corpus), root, split_col="split"), "cnn", cnn, root, ONE_EPOCH)
    experiment = root / "mini.toml"
    experiment.write_text(f"name = 'table7'\n[[cells]]\ncorpus = '{corpus}'\nmodel = 'cnn'\n")
    return root, corpus, cnn, experiment


def benchmark(root, experiment, name, *args):
    return CliRunner().invoke(main, ["benchmark", name, "--experiments", str(experiment), *args, "--seeds", "1",
                                     "--epochs", "1", "--set", "embeddings=random", "--split-col", "split",
                                     "--resamples", "300", "--output-dir", str(root / "runs"),
                                     "--results-dir", str(root / "results")])


def test_the_example_runs_on_its_own():
    done = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [line.split("  ")[1] for line in done.stdout.splitlines()] == ["oh great, traffic again",
                                                                          "the exam is at noon"]


def test_the_example_estimator_is_benchmarked_against_the_classic_runs(store):
    root, corpus, cnn, experiment = store
    result = benchmark(root, experiment, "char-svm", "--estimator", str(EXAMPLE))
    assert result.exit_code == 0, result.output
    run = run_dir(root / "runs", RUNS, str(corpus), "char-svm", 0)
    config = json.loads((run / "config.json").read_text())
    assert config["entrant"] == {"kind": "scikit-learn", "file": "sklearn_pipeline.py", "function": "make_estimator",
                                 "sha256": hashlib.sha256(EXAMPLE.read_bytes()).hexdigest()}
    chosen = json.loads((run / "entrant.json").read_text())["chosen"]
    assert [t["params"] for t in chosen["validation"]] == [{"svm__alpha": a} for a in (1e-5, 1e-4, 1e-3)]
    assert chosen["params"] in [t["params"] for t in chosen["validation"]]
    best = max(t["f1_sarcastic"] for t in chosen["validation"])
    assert next(t for t in chosen["validation"] if t["f1_sarcastic"] == best)["params"] == chosen["params"]
    metrics = json.loads((run / "metrics.json").read_text())
    predictions = read_predictions(run / "predictions.tsv")
    assert metrics["test"]["f1_sarcastic"] == pytest.approx(f1_score(predictions.gold, predictions.labels(0.5)))
    saved = json.loads((root / "results" / "benchmark-char-svm.json").read_text())
    cell = saved["cells"][0]
    assert cell["candidate"]["mean"] == metrics["test"]["f1_sarcastic"]
    assert [row["model"] for row in cell["classics"]] == ["cnn"]
    # Both kinds record their cost: the pipeline from raw text, the trained cnn from token ids.
    classic = json.loads((cnn / "metrics.json").read_text())
    for recorded in (metrics, classic):
        assert recorded["predict_texts_per_second"] > 0 and recorded["peak_memory_mb"] > 50
    assert cell["candidate"]["peak_memory_mb"]["values"] == [metrics["peak_memory_mb"]]
    assert cell["classics"][0]["predict_texts_per_second"]["values"] == [classic["predict_texts_per_second"]]
    expected = compare_runs({0: predictions}, {0: read_predictions(cnn / "predictions.tsv")}, n_resamples=300)
    assert cell["classics"][0]["p_value"] == expected["combined"]["p_value"]
    assert "| table7-epochs-1-embeddings-random | toy | f1_sarcastic |" in unpadded(result.output)
    # A second benchmark reuses the run: nothing is fitted again.
    again = benchmark(root, experiment, "char-svm", "--estimator", str(EXAMPLE))
    assert again.exit_code == 0, again.output
    assert json.loads((root / "results" / "benchmark-char-svm" / f"{RUNS}.json").read_text()
                      )["cells"][0]["reused_runs"] == 1


def test_a_reference_row_is_benchmarked_by_its_name(store):
    root, corpus, _, experiment = store
    result = benchmark(root, experiment, "tfidf-lr")
    assert result.exit_code == 0, result.output
    saved = json.loads((root / "results" / "benchmark-tfidf-lr.json").read_text())
    assert saved["cells"][0]["candidate"]["mean"] == 1.0 and saved["cells"][0]["rank"] == 1


def test_hyper_parameters_are_chosen_without_the_test_labels(store, tmp_path):
    root, _, _, _ = store
    plain, flipped = write_corpus(tmp_path / "a.csv"), write_corpus(tmp_path / "b.csv", flip_test=True)
    load_estimator("svm-flip", EXAMPLE)
    runs = []
    for corpus in (plain, flipped):
        data = load_corpus(str(corpus), tmp_path, split_col="split")
        runs.append(score_run(plan_run(RunSpec(data.name, "svm-flip"), data, tmp_path), RunPlace(tmp_path / corpus.stem)))
    chosen = [json.loads((run.directory / "entrant.json").read_text())["chosen"] for run in runs]
    assert chosen[0] == chosen[1]
    a, b = (read_predictions(run.directory / "predictions.tsv") for run in runs)
    assert np.array_equal(a.probabilities, b.probabilities)


GOOD = "from sklearn.linear_model import LogisticRegression\n"
BAD_FILES = {
    "no-function": ("x = 1\n", "defines no function make_estimator()"),
    "no-predict-proba": ("from sklearn.svm import LinearSVC\ndef make_estimator():\n    return LinearSVC()\n",
                         "returned a LinearSVC, which has no predict_proba"),
    "no-fit": ("class Thing:\n    def predict_proba(self, texts):\n        return []\n"
               "def make_estimator():\n    return Thing()\n", "returned a Thing, which has no fit"),
    "raises": ("def make_estimator():\n    raise RuntimeError('no GPU here')\n",
               "make_estimator() raised RuntimeError: no GPU here"),
    "syntax": ("def make_estimator(:\n", "syntax error on line 1"),
    "import": ("import not_a_module_anywhere\n", "importing it raised ModuleNotFoundError"),
    "bad-grid": (GOOD + "def make_estimator():\n    return LogisticRegression()\nPARAM_GRID = {'C': 3}\n",
                 "PARAM_GRID is not a parameter grid"),
    "unknown-parameter": (GOOD + "def make_estimator():\n    return LogisticRegression()\n"
                          "PARAM_GRID = {'classifier__C': [1, 10]}\n",
                          "PARAM_GRID sets classifier__C, which LogisticRegression does not take"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_bad_estimator_file_is_one_line_and_writes_nothing(store, tmp_path, case):
    root, corpus, _, experiment = store
    source, message = BAD_FILES[case]
    path = tmp_path / f"{case}.py"
    path.write_text(source)
    result = benchmark(root, experiment, f"bad-{case}", "--estimator", str(path))
    assert result.exit_code == 1 and message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1 and str(path) in result.output
    assert not (root / "runs" / RUNS / "toy" / f"bad-{case}").exists()
    assert not (root / "results" / f"benchmark-bad-{case}.json").exists()


def test_a_missing_file_an_entrant_named_like_a_model_and_cross_cells_are_refused(store, tmp_path):
    root, _, _, experiment = store
    missing = benchmark(root, experiment, "ghost", "--estimator", str(tmp_path / "ghost.py"))
    assert missing.exit_code == 1 and "not found" in missing.output
    taken = benchmark(root, experiment, "lstm", "--estimator", str(EXAMPLE))
    assert taken.exit_code == 1 and "'lstm' is the name of a model" in taken.output
    cross = benchmark(root, f"{experiment},cross", "svm-cross", "--estimator", str(EXAMPLE))
    assert cross.exit_code == 1 and "cross-dataset cells" in cross.output
    assert not (root / "runs" / RUNS / "toy" / "svm-cross").exists()


def test_a_fit_that_fails_leaves_no_run(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("from sklearn.linear_model import LogisticRegression\n"
                    "class Broken(LogisticRegression):\n"
                    "    def fit(self, texts, labels):\n        raise ValueError('texts are not numbers')\n"
                    "def make_estimator():\n    return Broken()\n")
    load_estimator("broken", path)
    corpus = write_corpus(tmp_path / "toy.csv")
    data = load_corpus(str(corpus), tmp_path, split_col="split")
    plan = plan_run(RunSpec(data.name, "broken"), data, tmp_path)
    with pytest.raises(IsarcasmError, match="fit raised ValueError: texts are not numbers"):
        score_run(plan, RunPlace(tmp_path / "runs" / "seed-0"))
    assert not (tmp_path / "runs" / "seed-0").exists()
    assert [p.name for p in (tmp_path / "runs").iterdir() if not p.name.endswith(".lock")] == []


def test_an_entrant_is_benchmarked_in_the_table_experiments_by_default(tmp_path, monkeypatch):
    asked = {}

    def record(request, *args):
        asked[request.model] = request.experiments
        raise SystemExit(0)

    monkeypatch.setattr("experiments.cli.benchmark.run_benchmark", record)
    CliRunner().invoke(main, ["benchmark", "tfidf-lr", "--output-dir", str(tmp_path / "runs"),
                              "--results-dir", str(tmp_path / "results")])
    assert asked == {"tfidf-lr": ["table6", "table7"]}


def test_a_linear_models_weights_are_counted_and_other_estimators_are_not():
    from sklearn.dummy import DummyClassifier

    from experiments.runs.entrants.registry import fitted_weights, tfidf_lr

    texts = ["oh great, more rain", "lovely, another delay", "the bus is at noon", "rain tomorrow"] * 3
    labels = [1, 1, 0, 0] * 3
    pipeline = tfidf_lr(0).fit(texts, labels)
    features = pipeline.steps[0][1].transform(texts[:1]).shape[1]
    assert fitted_weights(pipeline) == features + 1  # a weight per feature and the intercept (binary)
    assert fitted_weights(DummyClassifier().fit(texts, labels)) is None  # no coef_: nothing to count


def test_an_estimators_run_keeps_its_model_for_evaluate_and_a_run_without_one_is_passed_over(tmp_path, caplog):
    corpus = write_corpus(tmp_path / "toy.csv")
    data = load_corpus(str(corpus), tmp_path, split_col="split")
    load_estimator("svm-kept", EXAMPLE)
    runs = {name: score_run(plan_run(RunSpec(data.name, name), data, tmp_path), RunPlace(tmp_path / "runs" / name))
            for name in ("svm-kept", "all-sarcastic")}
    kept = json.loads((runs["svm-kept"].directory / "entrant.json").read_text())["model"]
    saved = runs["svm-kept"].directory / kept["file"]
    assert kept == {"file": "estimator.joblib", "format": "joblib",
                    "sha256": hashlib.sha256(saved.read_bytes()).hexdigest()}
    evaluate = ["evaluate", *(str(run.directory) for run in runs.values()), "--corpus", str(corpus),
                "--split-col", "split", "--json"]
    with caplog.at_level("WARNING"):
        result = CliRunner().invoke(main, evaluate)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["test"] == runs["svm-kept"].metrics["test"]  # its own test split, again
    passed = [r.getMessage() for r in caplog.records if "passed over" in r.getMessage()]
    assert len(passed) == 1 and "passed over 1 run that keeps no model" in passed[0]
    alone = CliRunner().invoke(main, evaluate[:1] + [str(runs["all-sarcastic"].directory)] + evaluate[3:])
    assert alone.exit_code == 1 and "keeps no model to load" in alone.stderr
    predicted = CliRunner().invoke(main, ["predict", str(runs["svm-kept"].directory), "--text", "oh great, traffic"])
    assert predicted.exit_code == 0 and predicted.stdout.splitlines()[0] == "label\tp_sarcastic\ttext"
    saved.write_bytes(saved.read_bytes() + b"\0")  # damaged or swapped: never unpickled
    refused = CliRunner().invoke(main, evaluate[:2] + evaluate[3:])
    assert refused.exit_code == 1 and "its sha256 is not the one entrant.json recorded" in refused.stderr
