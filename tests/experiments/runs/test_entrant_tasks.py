"""An entrant's runs are the scheduler's tasks: a task carries the entrant as data (its loader and path), so a
worker process scores it as this one does; tasks are ordered by cost without the model registry; an executor
that runs elsewhere (Ray) scores them here; a failing entrant stops the study in one line, as a failing model does.
(``--jobs 2`` against ``--jobs 1``: tests/experiments/runs/test_parallel.py.)"""
import pickle
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from toy_corpus import write_corpus

from experiments.cli import main
from experiments.runs.many import scheduler
from experiments.runs.entrants.registry import ENTRANTS, Scoring, scoring
from experiments.runs.entrants.estimators import load_estimator
from experiments.runs.entrants.outside import load_predictions
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.one.spec import RunPlace, RunSpec
from experiments.runs.one.store import run_dir
from locations import ROOT
from preprocessing.corpora import load_corpus
from preprocessing.errors import IsarcasmError

EXAMPLE = ROOT / "examples" / "sklearn_pipeline.py"
pytestmark = pytest.mark.usefixtures("clean_entrants")  # the entrant registry is left as found
#: An estimator file whose every fit raises.
BROKEN = ("from sklearn.linear_model import LogisticRegression\n"
          "class Broken(LogisticRegression):\n"
          "    def fit(self, texts, labels):\n        raise ValueError('texts are not numbers')\n"
          "def make_estimator():\n    return Broken()\n")


def write_predictions(folder):
    """Outside predictions of the toy corpus' 40 test texts: P(sarcastic) 0.9 for the sarcastic ones."""
    folder.mkdir()
    (folder / "toy.tsv").write_text("id\tp_sarcastic\n" + "".join(f"test{i}\t{0.9 if i % 4 == 0 else 0.1}\n"
                                                                   for i in range(40)))
    return folder


@pytest.fixture
def toy(tmp_path):
    """A toy corpus, its predictions made outside (P(sarcastic) 0.9 for the sarcastic test texts), and the
    entrants ``svm`` (the example estimator) and ``cues`` (those predictions) registered."""
    corpus = write_corpus(tmp_path / "toy.csv")
    load_estimator("svm", EXAMPLE)
    load_predictions("cues", write_predictions(tmp_path / "preds"))
    return load_corpus(str(corpus), tmp_path, split_col="split")


def tasks(data, folder, names, train=TrainConfig()):
    return [scheduler.RunTask(RunSpec(data.name, name, 0, train), RunPlace(folder / name), folder.parent,
                              kind=scoring(name)) for name in names]


def test_a_worker_scores_a_users_entrant_from_the_task_alone(toy, tmp_path):
    names = ("svm", "cues", "tfidf-lr")
    here = [scheduler.produce(task, toy) for task in tasks(toy, tmp_path / "here", names)]
    shipped = pickle.loads(pickle.dumps(tasks(toy, tmp_path / "there", names)))  # what a worker process receives
    for name in ("svm", "cues"):  # a fresh worker has the built-in entrants only
        del ENTRANTS._items[name]
    there = [scheduler.produce(task, toy) for task in shipped]
    assert [run.metrics["config_hash"] for run in there] == [run.metrics["config_hash"] for run in here]
    assert [run.metrics["test"] for run in there] == [run.metrics["test"] for run in here]
    assert ENTRANTS.get("svm").source and ENTRANTS.get("cues").source  # registered again from their files


def test_an_entrant_that_only_this_process_has_is_one_line_in_a_worker():
    with pytest.raises(IsarcasmError, match="'made-in-a-script' exists only in the process that registered it"):
        Scoring().entrant("made-in-a-script")


def test_entrant_and_model_runs_are_ordered_by_cost_and_entrants_never_read_the_model_registry(toy, tmp_path,
                                                                                            monkeypatch):
    from baselines.registry import MODELS

    asked, get = [], MODELS.get
    monkeypatch.setattr(MODELS, "get", lambda name: asked.append(name) or get(name))
    mixed = tasks(toy, tmp_path, ("majority", "svm", "cues", "tfidf-lr"), TrainConfig(epochs=30))
    mixed.append(scheduler.RunTask(RunSpec(toy.name, "cnn", 0, TrainConfig(epochs=30)), RunPlace(tmp_path / "cnn"),
                                   tmp_path))
    order = [mixed[i].spec.model for i in scheduler.by_cost(mixed, {toy.name: toy})]
    # cnn: 0.4 x 30 epochs; tfidf-lr: 5 fits of 0.4; svm: its 3 grid points; a constant or outside predictions: 0
    assert order == ["cnn", "tfidf-lr", "svm", "majority", "cues"]
    assert asked == ["cnn"]


def test_an_executor_that_trains_elsewhere_scores_an_entrant_here(toy, tmp_path, monkeypatch):
    from experiments.runs.many import cluster

    def never(*args, **kwargs):
        raise AssertionError("an entrant's run was sent to Ray")

    monkeypatch.setattr(cluster, "import_ray", lambda: SimpleNamespace(is_initialized=never, init=never))
    done = {}
    cluster.RayExecutor().run(tasks(toy, tmp_path, ("svm", "majority")), {toy.name: toy}, done.__setitem__)
    assert sorted(done) == [0, 1] and all((run.directory / "metrics.json").is_file() for run in done.values())


def test_a_failing_entrant_stops_the_study_in_one_line_and_leaves_no_run(tmp_path):
    corpus = write_corpus(tmp_path / "toy.csv")
    experiment = tmp_path / "mini.toml"
    experiment.write_text(f"name = 'table7'\n[[cells]]\ncorpus = '{corpus}'\nmodel = 'cnn'\n")
    broken = tmp_path / "broken.py"
    broken.write_text(BROKEN)
    result = CliRunner().invoke(main, ["benchmark", "broken", "--estimator", str(broken), "--experiments",
                                       str(experiment), "--seeds", "1", "--split-col", "split",
                                       "--output-dir", str(tmp_path / "runs"), "--results-dir", str(tmp_path / "res")])
    assert result.exit_code == 1 and "Traceback" not in result.output
    *bar, error = result.output.strip().splitlines()  # the progress bar, then one line: as a trained run's error
    assert error.endswith("broken.py: fit raised ValueError: texts are not numbers")
    assert bar and all("%|" in line for line in bar)
    assert not run_dir(tmp_path / "runs", "table7", str(corpus), "broken", 0).exists()
    assert not (tmp_path / "res" / "benchmark-broken.json").exists()

