"""Cross-dataset evaluation: train on one corpus, test on every corpus' test split.

Each (model, training corpus, seed) is one ordinary training run under the
protocol of :func:`experiments.runs.one.training.train_run`.  A run is reused wherever it already
exists with the same configuration hash: first under ``runs/cross/``, then
under any other experiment of the store, such as the table reproductions
(the hash does not depend on the experiment's name, so an equal hash is the
same run).  Only runs found nowhere are trained, under ``runs/cross/``.

A corpus with only a test split (a researcher's own labelled file) is a test column only: the
models trained on the other corpora are evaluated on it.

A run is then evaluated on every corpus with its own vocabulary and
preprocessing (unseen words become ``<unk>``), as a deployed model would see
new data (:func:`experiments.runs.one.inference.evaluate_run`, saved in ``<run>/evaluations/``).
The diagonal (test split of the training corpus) is the run's own test result.

Results: ``results/cross.{json,csv,md}`` and ``results/cross/heatmap-<model>.png``
(see :mod:`experiments.reports.cross`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from experiments.reports.cross import MATRIX_METRICS
from experiments.reports.kinds import save_result
from experiments.runs.one.operating_point import floors_of
from experiments.results.schema import Result
from experiments.runs.console import chatty
from experiments.runs.one.metrics import summary_stats, undefined_metrics
from experiments.runs.many.scheduler import require_distinct_folders, run_tasks
from experiments.runs.one.inference import run_config
from experiments.runs.one.training import expected_hash
from experiments.runs.one.store import PREDICTIONS, RunResult, read_metrics
from experiments.runs.one.outputs import Predictions, read_predictions
from experiments.runs.one.spec import RunSpec
from experiments.studies.settings import Settings
from preprocessing.corpora import corpus_labels
from preprocessing.errors import IsarcasmError
from preprocessing.records import Dataset

NAME = "cross"
#: The English binary corpora with a train and a test split.
CORPORA = ("isarcasm", "isarcasmeval", "semeval2018-a", "riloff", "ptacek", "sarc-pol")


@dataclass(frozen=True)
class Scored:
    """One run's result on one test split: its metrics and its per-example predictions."""

    seed: int
    run: Path
    metrics: dict
    predictions: Path
    threshold: float

    @classmethod
    def from_run(cls, directory: Path) -> Scored:
        """The run's own test result (metrics.json and predictions.tsv)."""
        metrics = read_metrics(directory)
        return cls(metrics["seed"], directory, metrics["test"], directory / PREDICTIONS,
                   run_config(directory, ("train",))["train"]["threshold"])

    def read(self) -> Predictions:
        return read_predictions(self.predictions)


@dataclass
class CrossCell:
    model: str
    train_corpus: str
    test_corpus: str
    scored: list[Scored]


def training_runs(models: list[str], datasets: list[Dataset], seeds: list[int], settings: Settings,
                  train_missing: bool = True) -> tuple[dict[tuple[str, str, int], Path], dict[tuple[str, str, int],
                                                                                         RunResult]]:
    """The finished run of every (model, training corpus, seed): reused where one exists, else
    trained under ``cross`` through the scheduler (all at once, as many at a time as the executor trains); and,
    apart, the runs that failed (training diverged), which are never evaluated.

    With ``train_missing=False`` missing runs are left out instead of trained.
    """
    found, tasks, keys = {}, [], []
    name, config = settings.experiment(NAME), settings.train
    every = [settings.task(name, RunSpec(train.name, model, seed, config))
             for model in models for train in datasets for seed in seeds]
    require_distinct_folders(every)  # a reused run too: training another into its folder would replace it
    by_name, data_dir = {d.name: d for d in datasets}, settings.corpora.data_dir
    for task in every:
        spec = task.spec
        run = None if settings.options.force else settings.store.finished(
            task.place, expected_hash(spec, by_name[spec.corpus], data_dir))
        if run is not None:
            found[spec.model, spec.corpus, spec.seed] = run
        elif train_missing:
            keys.append((spec.model, spec.corpus, spec.seed))
            tasks.append(task)
    results = run_tasks(tasks, by_name, settings.executor, f"{name}: training")
    found.update((key, result.directory) for key, result in zip(keys, results) if not result.failure)
    return found, {key: result for key, result in zip(keys, results) if result.failure}


def evaluations(run: Path, tests: list[Dataset], options_of: dict[str, dict], data_dir: Path,
                force: bool = False) -> list[Scored]:
    """The run's result on each test corpus, read with its file-corpus options (``options_of``: corpus
    name -> options), loading the model only when an evaluation is not saved yet (``force``: always)."""
    from experiments.runs.one.inference import EvaluationPlace, evaluate_run, load_run  # TensorFlow: only when needed

    own = Scored.from_run(run)
    trained_on = run_config(run, ("corpus",))["corpus"]
    loaded = None
    results = []
    for test in tests:
        if test.name == trained_on:
            results.append(own)
            continue
        options = options_of[test.name]
        place = EvaluationPlace.of(run, test, own.threshold, data_dir, options)
        evaluation = None if force else place.saved()
        if evaluation is None:
            loaded = loaded or load_run(run, data_dir)
            evaluation = evaluate_run(loaded, test, force=force, options=options)
        results.append(Scored(own.seed, run, evaluation["test"], Path(evaluation["predictions_file"]),
                              evaluation["threshold"]))
    return results


def cross_cells(models: list[str], corpora: list[str], seeds: list[int], settings: Settings,
                train_missing: bool = True) -> tuple[list[CrossCell], list[dict]]:
    """Every (model, train corpus, test corpus) cell, and the runs that are missing: not trained, or
    failed (their ``failed``: seed -> why; a failed run is never evaluated nor averaged in).  Cells
    name their corpora by :func:`labels_of` (two files never share a name, nor a file a corpus')."""
    models = settings.trainable(models)  # an unknown name fails before anything is trained
    name = settings.experiment(NAME)
    label = labels_of(corpora, settings)
    datasets = [settings.corpora.load(name) for name in corpora]
    classes = {len(d.label_names) for d in datasets}
    if len(classes) > 1:
        raise IsarcasmError("cross-dataset evaluation needs corpora with the same labels; got "
                            + ", ".join(f"{label[d.name]} ({len(d.label_names)} classes)" for d in datasets))
    trainable = [d for d in datasets if can_train(d)]
    if not trainable:
        raise IsarcasmError("cross-dataset evaluation needs at least one corpus with a training split; "
                            + ", ".join(label[d.name] for d in datasets) + " have only a test split")
    runs, failed = training_runs(models, trainable, seeds, settings, train_missing)
    options_of = {d.name: settings.corpora.options(d.name) for d in datasets}
    data_dir, force = settings.corpora.data_dir, settings.options.force
    cells, missing = [], []
    progress = tqdm(total=len(runs), desc=f"{name}: evaluating", unit="run", dynamic_ncols=True,
                    disable=not chatty())
    for model in models:
        for train in trainable:
            per_test: list[list[Scored]] = [[] for _ in datasets]
            absent = [seed for seed in seeds if (model, train.name, seed) not in runs]
            for seed in seeds:
                if (model, train.name, seed) in runs:
                    progress.set_postfix_str(f"{model} on {label[train.name]} seed {seed}")
                    scores = evaluations(runs[model, train.name, seed], datasets, options_of, data_dir, force)
                    for bucket, scored in zip(per_test, scores):
                        bucket.append(scored)
                    progress.update()
            if absent:
                missing.append({"model": model, "train_corpus": label[train.name], "corpus": train.name,
                                "seeds": absent, "failed": {seed: failed[model, train.name, seed].failure
                                                            for seed in absent if (model, train.name, seed) in failed}})
            cells += [CrossCell(model, label[train.name], label[test.name], scored)
                      for test, scored in zip(datasets, per_test) if scored]
    progress.close()
    return cells, missing


def labels_of(corpora: list[str], settings: Settings) -> dict[str, str]:
    """Each corpus' data set name -> its label in the reports (:func:`preprocessing.corpora.corpus_labels`:
    unique within the command; the same corpus or file given twice is refused)."""
    labels = corpus_labels(corpora)
    return {settings.corpora.load(name).name: labels[name] for name in corpora}


def can_train(dataset: Dataset) -> bool:
    """Whether runs can be trained on the corpus: it has a split besides ``test`` (KoCoSa trains on its dev
    split); a corpus with a test split alone is a test column only."""
    return any(split != "test" for split in dataset.splits)


def run_cross(models: list[str], corpora: list[str], seeds: list[int], settings: Settings) -> Result:
    """Train (or reuse) and evaluate every cell; save and return the matrix."""
    started = time.time()
    name, train, label = settings.experiment(NAME), settings.train.recorded_form(), labels_of(corpora, settings)
    datasets = [settings.corpora.load(corpus) for corpus in corpora]
    settings.announce(NAME)
    cells, missing = cross_cells(models, corpora, seeds, settings)
    floors = {label[d.name]: floors_of(test_share(d)) for d in datasets}  # None: one class, undefined
    runs = list(dict.fromkeys(s.run for cell in cells for s in cell.scored))
    result = Result.made("cross", name, [
        {"model": c.model, "train_corpus": c.train_corpus, "test_corpus": c.test_corpus,
         "seeds": [s.seed for s in c.scored], "runs": [str(s.run) for s in c.scored],
         "metrics": {m: cell_stats(c.scored, m) for m in MATRIX_METRICS}} for c in cells], runs=runs, started=started,
        title="Cross-dataset evaluation: trained on the row's corpus, tested on the column's",
        models=models, corpora=[label[d.name] for d in datasets],
        files={label[d.name]: d.name for d in datasets if label[d.name] != d.name},
        train_corpora=[label[d.name] for d in datasets if can_train(d)], seeds=seeds, train=train,
        training_runs=len(runs), compute_seconds=round(sum(read_metrics(run)["train_seconds"] for run in runs), 1),
        all_sarcastic={name: floor["all_sarcastic"] for name, floor in floors.items() if floor},
        majority={name: floor["majority"] for name, floor in floors.items() if floor},
        failed_runs=[{"model": m["model"], "train_corpus": m["train_corpus"], "seed": seed, "reason": reason}
                     for m in missing for seed, reason in m["failed"].items()])
    save_result(result, settings.results_root)
    return result


def cell_stats(scored: list[Scored], metric: str) -> dict:
    """The metric over a cell's seeds; where the test split leaves it undefined (a column with no
    sarcastic text: scikit-learn's 0 would read like a result and be averaged in), no number
    (``mean`` None) and ``undefined``: why."""
    if any(metric in undefined_metrics(s.metrics) for s in scored):
        return {"mean": None, "std": None, "values": [], "undefined": "the test split has no text of one class"}
    return summary_stats([s.metrics[metric] for s in scored])


def test_share(dataset: Dataset) -> float:
    """The share of sarcastic texts in the test split: the corpora's differ (a column's sarcastic-class
    F1 rises with it), so a transferred model's number means something only beside its column's floors."""
    return float(np.mean([record.label == 1 for record in dataset.split("test")]))
