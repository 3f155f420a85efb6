"""Cross-dataset evaluation: train on one corpus, test on every corpus' test split.

Each (model, training corpus, seed) is one ordinary training run under the
protocol of :func:`training.train_run`.  A run is reused wherever it already
exists with the same configuration hash: first under ``runs/cross/``, then
under any other experiment of the store, such as the table reproductions
(the hash does not depend on the experiment's name, so an equal hash is the
same run).  Only runs found nowhere are trained, under ``runs/cross/``.

A run is then evaluated on every corpus with its own vocabulary and
preprocessing (unseen words become ``<unk>``), as a deployed model would see
new data (:func:`inference.evaluate_run`, saved in ``<run>/evaluations/``).
The diagonal (test split of the training corpus) is the run's own test result.

Results: ``results/cross.{json,csv,md}`` (for each model a matrix, rows =
training corpus, columns = test corpus, of sarcastic-class F1 and macro-F1,
mean ± std over seeds) and ``results/cross/heatmap-<model>.png``.
"""
from __future__ import annotations

import csv
import io
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
from tqdm import tqdm

from experiments.reports.operating_point import all_sarcastic_f1
from experiments.reports.significance import Predictions, read_predictions
from experiments.reports.table import duration
from experiments.runs import provenance
from experiments.runs.metrics import summary_stats
from experiments.runs.protocol import TrainConfig, make_splits
from experiments.runs.store import (
    completed,
    read_json,
    run_dir,
    run_places,
    write_result_files,
)
from experiments.runs.training import run_config, train_run
from preprocessing.corpora import corpus_label, corpus_options, load_corpus
from preprocessing.errors import IsarcasmError
from preprocessing.pipeline import PreprocessConfig
from preprocessing.records import Dataset

NAME = "cross"
#: The English binary corpora with a train and a test split.
CORPORA = ("isarcasm", "isarcasmeval", "semeval2018-a", "riloff", "ptacek", "sarc-pol")
MATRIX_METRICS = {"f1_sarcastic": "sarcastic-class F1", "f1_macro": "macro-F1"}


@dataclass
class Settings:
    """Where runs live and how they are trained (shared by cross-eval and benchmark)."""

    data_dir: Path
    runs_root: Path
    train: TrainConfig = field(default_factory=TrainConfig)
    file_options: dict = field(default_factory=dict)
    force: bool = False
    verbose: int = 2
    tensorboard: bool = False
    #: Runs trained at once, in worker processes (see :mod:`parallel`).
    jobs: int = 1
    _datasets: dict = field(default_factory=dict, repr=False)

    def dataset(self, name: str) -> Dataset:
        if name not in self._datasets:
            self._datasets[name] = load_corpus(name, self.data_dir, **corpus_options(name, **self.file_options))
        return self._datasets[name]

    def experiment(self, base: str) -> str:
        """The run-store name of experiment ``base`` under this training configuration (as reproduce names it)."""
        return "-".join(filter(None, [base, self.train.variant()]))


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
        metrics, config = read_json(directory / "metrics.json"), read_json(directory / "config.json")
        return cls(metrics["seed"], directory, metrics["test"], directory / "predictions.tsv",
                   config["train"]["threshold"])

    def read(self) -> Predictions:
        return read_predictions(self.predictions)


@dataclass
class CrossCell:
    model: str
    train_corpus: str
    test_corpus: str
    scored: list[Scored]


def expected_hash(dataset: Dataset, model: str, seed: int, settings: Settings) -> str:
    """The configuration hash :func:`train_run` gives this run (the same wherever the run is stored)."""
    train = settings.train
    splits = make_splits(dataset, seed, train.validation_fraction, train.max_train)
    config = run_config(dataset, model, seed, train, PreprocessConfig(language=dataset.language), settings.data_dir,
                        splits)
    return provenance.config_hash(config)


def finished_run(dataset: Dataset, model: str, seed: int, settings: Settings) -> Path | None:
    """The finished run of this exact configuration, under ``cross`` or else under another experiment."""
    config_hash = expected_hash(dataset, model, seed, settings)
    places = run_places(settings.runs_root, settings.experiment(NAME), dataset.name, model, seed)
    return next((place for place in places if completed(place, config_hash)), None)


def training_run(dataset: Dataset, model: str, seed: int, settings: Settings,
                 train_missing: bool = True) -> Path | None:
    """A finished run of (model, corpus, seed): reused when one exists, else trained under ``cross``.

    With ``train_missing=False`` a missing run is ``None`` instead of trained.
    """
    if not settings.force:
        found = finished_run(dataset, model, seed, settings)
        if found or not train_missing:
            return found
    directory = run_dir(settings.runs_root, settings.experiment(NAME), dataset.name, model, seed)
    return train_run(dataset, model, seed, directory, settings.data_dir, settings.train,
                     PreprocessConfig(language=dataset.language), force=settings.force, verbose=settings.verbose,
                     tensorboard=settings.tensorboard).directory


def train_in_parallel(models: list[str], datasets: list[Dataset], seeds: list[int], settings: Settings) -> None:
    """Train the missing runs ``settings.jobs`` at a time; the sequential pass then finds them finished."""
    from experiments.runs.scheduler import RunTask, run_tasks

    tasks = [RunTask(train.name, tuple(sorted(corpus_options(train.name, **settings.file_options).items())),
                     settings.data_dir, model, seed,
                     run_dir(settings.runs_root, settings.experiment(NAME), train.name, model, seed),
                     settings.train, None, settings.force, settings.tensorboard)
             for model in models for train in datasets for seed in seeds
             if settings.force or finished_run(train, model, seed, settings) is None]
    if not tasks:
        return
    progress = tqdm(total=len(tasks), desc=f"{settings.experiment(NAME)}: training", unit="run", dynamic_ncols=True)
    run_tasks(tasks, {d.name: d for d in datasets}, settings.jobs, settings.verbose,
              lambda _index, _run: progress.update())
    progress.close()


def evaluations(run: Path, tests: list[Dataset], settings: Settings) -> list[Scored]:
    """The run's result on each test corpus (loading the model only when an evaluation is not saved yet)."""
    from experiments.runs.inference import evaluate_run, evaluation_paths, load_run

    own = Scored.from_run(run)
    trained_on = read_json(run / "config.json")["corpus"]
    loaded = None
    results = []
    for test in tests:
        if test.name == trained_on:
            results.append(own)
            continue
        metrics_path, predictions_path = evaluation_paths(run, test.name)
        if metrics_path.is_file() and predictions_path.is_file() and not settings.force:
            evaluation = read_json(metrics_path)
        else:
            loaded = loaded or load_run(run, settings.data_dir)
            evaluation = evaluate_run(loaded, test, force=settings.force)
        results.append(Scored(own.seed, run, evaluation["test"], predictions_path, evaluation["threshold"]))
    return results


def cross_cells(models: list[str], corpora: list[str], seeds: list[int], settings: Settings,
                train_missing: bool = True) -> tuple[list[CrossCell], list[dict]]:
    """Every (model, train corpus, test corpus) cell, and the runs that are missing (when not trained)."""
    from baselines.registry import MODELS

    for model in models:  # an unknown name, or one without a context variant, fails before anything is trained
        if not MODELS.get(model).reads_context and settings.train.context != "none":
            raise IsarcasmError(f"--context: {model} also reads features other than tokens and has no context "
                                "variant; choose other models with --models")
    datasets = [settings.dataset(name) for name in corpora]
    classes = {len(d.label_names) for d in datasets}
    if len(classes) > 1:
        raise IsarcasmError("cross-dataset evaluation needs corpora with the same labels; got "
                            + ", ".join(f"{corpus_label(d.name)} ({len(d.label_names)} classes)" for d in datasets))
    if train_missing and settings.jobs > 1:
        train_in_parallel(models, datasets, seeds, settings)
        settings = replace(settings, force=False)  # every run was just (re)trained: the pass below reuses them
    cells, missing = [], []
    progress = tqdm(total=len(models) * len(datasets) * len(seeds), desc=settings.experiment(NAME), unit="run",
                    dynamic_ncols=True)
    for model in models:
        for train in datasets:
            per_test: list[list[Scored]] = [[] for _ in datasets]
            absent = []
            for seed in seeds:
                progress.set_postfix_str(f"{model} on {corpus_label(train.name)} seed {seed}")
                run = training_run(train, model, seed, settings, train_missing)
                if run is None:
                    absent.append(seed)
                else:
                    for bucket, scored in zip(per_test, evaluations(run, datasets, settings)):
                        bucket.append(scored)
                progress.update()
            if absent:
                missing.append({"model": model, "train_corpus": corpus_label(train.name), "corpus": train.name,
                                "seeds": absent})
            cells += [CrossCell(model, corpus_label(train.name), corpus_label(test.name), scored)
                      for test, scored in zip(datasets, per_test) if scored]
    progress.close()
    return cells, missing


def run_cross(models: list[str], corpora: list[str], seeds: list[int], settings: Settings, results_root: Path) -> dict:
    """Train (or reuse) and evaluate every cell; save and return the matrix."""
    started = time.time()
    cells, _ = cross_cells(models, corpora, seeds, settings)
    floors = {corpus_label(name): all_sarcastic(settings.dataset(name)) for name in corpora}
    runs = list(dict.fromkeys(s.run for cell in cells for s in cell.scored))
    result = {
        "experiment": settings.experiment(NAME),
        "kind": "cross",
        "title": "Cross-dataset evaluation: trained on the row's corpus, tested on the column's",
        "models": models,
        "corpora": [corpus_label(c) for c in corpora],
        "seeds": seeds,
        "train": asdict(settings.train),
        "wall_seconds": round(time.time() - started, 1),
        "training_runs": len(runs),
        "compute_seconds": round(sum(read_json(run / "metrics.json")["train_seconds"] for run in runs), 1),
        **provenance.record(),
        "run_origins": provenance.run_origins(runs),
        "cells": [{"model": c.model, "train_corpus": c.train_corpus, "test_corpus": c.test_corpus,
                   "seeds": [s.seed for s in c.scored], "runs": [str(s.run) for s in c.scored],
                   "metrics": {m: summary_stats([s.metrics[m] for s in c.scored]) for m in MATRIX_METRICS}}
                  for c in cells],
        "all_sarcastic": floors,
    }
    save_cross(result, results_root)
    return result


def all_sarcastic(dataset: Dataset) -> dict:
    """The test split's sarcastic share and the scores of labelling every text sarcastic.

    The corpora's sarcastic shares differ (a column's sarcastic-class F1 rises with its share), so
    a transferred model's number means something only beside its column's floor."""
    share = float(np.mean([record.label == 1 for record in dataset.split("test")]))
    f1 = all_sarcastic_f1(share)
    return {"sarcastic_share": share, "f1_sarcastic": f1, "f1_macro": f1 / 2}  # the other class's F1 is 0


def save_cross(result: dict, results_root: Path) -> list[Path]:
    from experiments.reports.figures import cross_heatmap

    paths = write_result_files(result, results_root, cross_csv(result), cross_markdown(result))
    return paths + [cross_heatmap(result, model, results_root / result["experiment"] / f"heatmap-{model}.png")
                    for model in result["models"]]


def matrix(result: dict, model: str, metric: str) -> dict[tuple[str, str], dict]:
    """(train corpus, test corpus) -> the metric's statistics, for one model."""
    return {(c["train_corpus"], c["test_corpus"]): c["metrics"][metric] for c in result["cells"]
            if c["model"] == model}


def _compute(result: dict) -> str:
    """The training behind the matrix: an invocation that reuses finished runs takes seconds of wall time."""
    if "compute_seconds" not in result:
        return ""
    return (f" for this invocation; the {result['training_runs']} training runs took "
            f"{duration(result['compute_seconds'])} of training compute (finished runs are reused, from earlier "
            "invocations too)")


def cross_markdown(result: dict) -> str:
    seeds = result["seeds"]
    lines = [
        f"# {result['title']}",
        "",
        (f"Seeds {', '.join(map(str, seeds))} ({len(seeds)} per cell), mean ± std over seeds. Commit "
         f"`{result['git_commit']}`. Wall time {duration(result['wall_seconds'])}{_compute(result)}. Every model "
         "is tested with the vocabulary and preprocessing of its training run (words unseen in training become "
         "`<unk>`). Bold: in-domain (the training corpus' own test split)."),
    ]
    corpora, floors = result["corpora"], result.get("all_sarcastic", {})
    if floors:
        lines += ["", "Each matrix ends with the row *all sarcastic*: the score of labelling every test text "
                  "sarcastic, which rises with the column's sarcastic share (" +
                  ", ".join(f"{c} {floors[c]['sarcastic_share']:.0%}" for c in corpora if c in floors) + ")."]
    lines += _summary(result)
    for model in result["models"]:
        for metric, label in MATRIX_METRICS.items():
            values = matrix(result, model, metric)
            lines += ["", f"## {model}: {label}", ""] + _matrix_table(corpora, values, floors, metric)
    lines += ["", f"Every seed's value and run directory: `results/{result['experiment']}.json`."]
    return "\n".join(lines) + "\n"


def _matrix_table(corpora: list[str], values: dict, floors: dict, metric: str) -> list[str]:
    """Rows = training corpus, columns = test corpus; the in-domain diagonal in bold."""
    lines = ["| train \\ test | " + " | ".join(corpora) + " |", "|---" * (len(corpora) + 1) + "|"]
    for train in corpora:
        row = []
        for test in corpora:
            stats = values.get((train, test))
            text = "—" if stats is None else f"{stats['mean']:.3f}" + (f" ± {stats['std']:.3f}" if "std" in stats else "")
            row.append(f"**{text}**" if train == test and stats else text)
        lines.append(f"| {train} | " + " | ".join(row) + " |")
    if floors:
        lines.append("| *all sarcastic* | " + " | ".join(f"*{floors[c][metric]:.3f}*" if c in floors else "—"
                                                         for c in corpora) + " |")
    return lines


def _summary(result: dict) -> list[str]:
    """What a reader looks for first: each model's in-domain and out-of-domain means, and the matrix
    averaged over the models (which corpora transfer to which)."""
    corpora = result["corpora"]
    lines = ["", "## Summary: in-domain against out-of-domain (mean over cells of the seeds' means)", "",
             "| model | " + " | ".join(f"{label}, {where}" for label in MATRIX_METRICS.values()
                                      for where in ("in-domain", "out-of-domain")) + " |",
             "|---" * (1 + 2 * len(MATRIX_METRICS)) + "|"]
    for model in result["models"]:
        parts = []
        for metric in MATRIX_METRICS:
            values = matrix(result, model, metric)
            for same in (True, False):
                means = [v["mean"] for (a, b), v in values.items() if (a == b) == same]
                parts.append(f"{np.mean(means):.3f}" if means else "—")
        lines.append(f"| {model} | " + " | ".join(parts) + " |")
    floors = result.get("all_sarcastic", {})
    for metric, label in MATRIX_METRICS.items():
        per_model = [matrix(result, model, metric) for model in result["models"]]
        averaged = {}
        for train in corpora:
            for test in corpora:
                means = [values[train, test]["mean"] for values in per_model if (train, test) in values]
                if means:
                    averaged[train, test] = {"mean": float(np.mean(means))}
        lines += ["", f"## Mean over the {len(result['models'])} models: {label}", ""]
        lines += _matrix_table(corpora, averaged, floors, metric)
    return lines


def cross_csv(result: dict) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["model", "train_corpus", "test_corpus", "metric", "mean", "std", "n_seeds"])
    for cell in result["cells"]:
        for metric, stats in cell["metrics"].items():
            writer.writerow([cell["model"], cell["train_corpus"], cell["test_corpus"], metric, f"{stats['mean']:.4f}",
                             f"{stats['std']:.4f}", len(stats["values"])])
    return buffer.getvalue()
