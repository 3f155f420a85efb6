"""``reproduce --jobs N``: runs trained in worker processes give the same numbers and files as one at a time."""
import json

import pytest
from click.testing import CliRunner
from toy_corpus import write_corpus

from experiments.cli import main


def reproduce(tmp_path, experiment, folder: str, jobs: int):
    args = ["reproduce", str(experiment), "--quick", "--seeds", "2", "--set", "embeddings=random", "--split-col", "split",
            "--output-dir", str(tmp_path / folder / "runs"), "--results-dir", str(tmp_path / folder / "results"),
            "--jobs", str(jobs)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return result, json.loads((tmp_path / folder / "results/toy-quick-embeddings-random.json").read_text())


def test_two_jobs_give_the_numbers_of_one(tmp_path, monkeypatch):
    corpus = write_corpus(tmp_path / "toy.csv")
    experiment = tmp_path / "toy.toml"
    experiment.write_text("name = 'toy'\n" + "".join(f"[[cells]]\ncorpus = '{corpus}'\nmodel = '{model}'\n"
                                                     for model in ("lstm", "cnn")))
    _, alone = reproduce(tmp_path, experiment, "one", jobs=1)
    output, together = reproduce(tmp_path, experiment, "two", jobs=2)
    assert [c["metrics"] for c in together["cells"]] == [c["metrics"] for c in alone["cells"]]
    assert [c["model"] for c in together["cells"]] == ["lstm", "cnn"]  # the experiment's order, not finishing order
    assert output.output.count("F1(sarcastic)") == 2  # one summary line per cell
    for folder, jobs in (("one", 1), ("two", 2)):  # every run records the sweep its workers belonged to
        sweeps = {json.dumps(json.loads(config.read_text())["sweep"], sort_keys=True)
                  for config in (tmp_path / folder / "runs").rglob("config.json")}
        assert len(sweeps) == 1 and json.loads(sweeps.pop())["jobs"] == jobs
    from experiments.runs.many import scheduler

    def no_workers(*args, **kwargs):
        raise AssertionError("workers were started for runs that are all stored")

    monkeypatch.setattr(scheduler, "ProcessPoolExecutor", no_workers)
    again, _ = reproduce(tmp_path, experiment, "two", jobs=2)
    assert again.output.count("2 reused") == 2


def test_cross_eval_trains_missing_runs_in_parallel_with_the_same_numbers(tmp_path):
    alpha, beta = write_corpus(tmp_path / "alpha.csv", seed=0), write_corpus(tmp_path / "beta.csv", seed=1)

    def cross(folder: str, jobs: int) -> dict:
        args = ["cross-eval", "--models", "cnn", "--corpora", f"{alpha},{beta}", "--seeds", "1", "--epochs", "1",
                "--set", "embeddings=random", "--split-col", "split", "--output-dir", str(tmp_path / folder / "runs"),
                "--results-dir", str(tmp_path / folder / "results"), "--jobs", str(jobs)]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        return json.loads((tmp_path / folder / "results/cross-epochs-1-embeddings-random.json").read_text())

    alone, together = cross("one", 1), cross("two", 2)
    assert [c["metrics"] for c in together["cells"]] == [c["metrics"] for c in alone["cells"]]
    assert len(together["cells"]) == 4


def test_a_worker_loads_each_corpus_once_without_repeating_its_data_warnings(tmp_path, monkeypatch, caplog):
    import logging

    from experiments.runs.many import scheduler as parallel
    from experiments.runs.one.protocol import TrainConfig
    from experiments.runs.one.spec import RunPlace, RunSpec

    loads = []

    def load_corpus(name, data_dir, **options):
        logging.getLogger("isarcasm").warning(f"{name}: 3 duplicate texts")
        loads.append(name)
        return f"dataset {name}"

    monkeypatch.setattr(parallel, "load_corpus", load_corpus)
    parallel.quiet_load.cache_clear()
    task = parallel.RunTask(RunSpec("toy", "lstm", 0, TrainConfig()), RunPlace(tmp_path / "run"), tmp_path)
    with caplog.at_level("WARNING", logger="isarcasm"):
        assert parallel.worker_dataset(task) == parallel.worker_dataset(task) == "dataset toy"
        logging.getLogger("isarcasm").warning("after loading")
    assert loads == ["toy"]
    assert [r.getMessage() for r in caplog.records] == ["after loading"]  # silenced while loading only


def test_workers_take_the_most_expensive_runs_first(tmp_path):
    """Longest processing time first: Dense-LSTM before the LSTM before the CNN, a larger corpus
    before a smaller one, so no worker is left with a long run after the others are done."""
    from experiments.runs.many import scheduler
    from experiments.runs.one.spec import RunPlace, RunSpec
    from preprocessing.records import Dataset, Record

    def corpus(name, size):
        return Dataset(name, "en", ("no", "yes"), [Record(str(i), "text", 0, "train") for i in range(size)])

    datasets = {"small": corpus("small", 100), "large": corpus("large", 1000)}
    tasks = [scheduler.RunTask(RunSpec(name, model), RunPlace(tmp_path / name / model), tmp_path)
             for name, model in [("small", "cnn"), ("small", "lstm"), ("large", "cnn"), ("small", "dense-lstm")]]
    order = [(tasks[i].spec.corpus, tasks[i].spec.model) for i in scheduler.by_cost(tasks, datasets)]
    assert order == [("small", "dense-lstm"), ("large", "cnn"), ("small", "lstm"), ("small", "cnn")]


@pytest.mark.usefixtures("clean_entrants")
def test_entrants_scored_by_two_workers_give_the_numbers_of_one(tmp_path):
    """A user's scikit-learn estimator and outside predictions (and the reference rows beside them) are the
    scheduler's tasks: two worker processes, which register the entrants from their files, score the
    runs one process scores, and a failing entrant ends the study in the same one line."""
    from locations import ROOT
    from test_entrant_tasks import BROKEN, write_predictions

    corpus = write_corpus(tmp_path / "toy.csv")
    experiment = tmp_path / "mini.toml"
    experiment.write_text(f"name = 'table7'\n[[cells]]\ncorpus = '{corpus}'\nmodel = 'cnn'\n")
    predictions = write_predictions(tmp_path / "preds")
    broken = tmp_path / "broken.py"
    broken.write_text(BROKEN)

    def benchmark(name: str, given: list[str], jobs: int):
        folder = tmp_path / f"jobs-{jobs}"
        args = ["benchmark", name, *given, "--experiments", str(experiment), "--seeds", "2", "--set", "embeddings=random",
                "--split-col", "split", "--resamples", "300", "--jobs", str(jobs),
                "--output-dir", str(folder / "runs"), "--results-dir", str(folder / "results")]
        return CliRunner().invoke(main, args)

    def scores(name: str, jobs: int) -> list:
        cell = json.loads((tmp_path / f"jobs-{jobs}" / "results" / f"benchmark-{name}.json").read_text())["cells"][0]
        return [cell["candidate"]["values"], *[(row["model"], row["values"], row["p_value"])
                                               for row in cell["references"]]]

    for name, given in (("svm", ["--estimator", str(ROOT / "examples" / "sklearn_pipeline.py")]),
                        ("cues", ["--predictions", str(predictions)])):
        alone, together = benchmark(name, given, 1), benchmark(name, given, 2)
        assert alone.exit_code == 0 and together.exit_code == 0, alone.output + together.output
        assert scores(name, 2) == scores(name, 1)
    failed = [benchmark("broken", ["--estimator", str(broken)], jobs) for jobs in (1, 2)]
    assert [f.exit_code for f in failed] == [1, 1]
    assert {f.output.strip().splitlines()[-1] for f in failed} == {
        f"Error: {broken}: fit raised ValueError: texts are not numbers"}
