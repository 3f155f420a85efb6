"""A table's cells: each (corpus, model) run over its seeds in one sweep, summarised, and the table's result.

Every run of a table's cells, a model's trained and an entrant's scored (:func:`run_kind`), is produced in one
sweep of the study's executor (:func:`run_cells`).  A cell's summary is the mean, sample std and per-seed values
of every metric over its finished runs (:func:`aggregate`), with the operating point of a binary cell and the
per-class F1 beside them (:func:`summarise_cell`); a selection rule the runs were not produced under is applied
to their per-epoch record (:func:`~experiments.runs.one.trajectory.run_under`).  Reproductions, entrants and the
rescoring of ``report --selection`` all summarise their cells with these functions.
"""
from __future__ import annotations

from collections.abc import Callable

from tqdm import tqdm

from experiments.runs.one.operating_point import operating_point, operating_point_of
from experiments.reports.table import failure_note
from experiments.results.schema import Result
from experiments.runs.entrants.registry import ENTRANTS, scoring
from experiments.runs.many.scheduler import RunKind, RunTask, Trained, run_tasks
from experiments.runs.one.metrics import METRIC_NAMES, METRICS, main_metric, per_class_scores, summary_stats
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.one.spec import RunSpec
from experiments.runs.one.trajectory import run_under
from experiments.studies.experiment import Cell, Experiment
from experiments.studies.settings import Settings
from preprocessing.corpora import corpus_label
from preprocessing.errors import IsarcasmError


def run_kind(model: str) -> RunKind:
    """How a cell's runs are produced: an entrant's (:mod:`experiments.runs.entrants.registry`) scored, a
    model's trained."""
    return scoring(model) if model in ENTRANTS else Trained()


def cell_specs(cells: list[Cell], seeds: list[int], settings: Settings,
               train: TrainConfig) -> list[tuple[Cell, RunSpec]]:
    """Every run of ``cells`` in a study under ``train``, each under the settings its kind produces it with
    (:meth:`~experiments.runs.many.scheduler.RunKind.produced_under`): (cell, spec)."""
    return [(cell, RunSpec(cell.corpus, cell.model, seed, run_kind(cell.model).produced_under(train), fold))
            for cell in cells for seed, fold in cell_runs(cell, settings.corpora.load(cell.corpus), seeds)]


def run_cells(cells: list[Cell], seeds: list[int], settings: Settings, runs_name: str, train: TrainConfig,
              placed: Callable[[], None] = lambda: None) -> dict[str, dict]:
    """Produce (or reuse) every run of ``cells`` under ``train`` into the store's ``runs_name``, in one sweep of the
    settings' executor; each cell is summarised (:func:`summarise_cell`) in one printed line once its last run
    is in.  Cell key -> summary.

    Every run is placed by its configuration hash before any is written, so an input a run refuses stops the
    study with one line and writes nothing; ``placed()`` is called then, before the first run starts."""
    specs = cell_specs(cells, seeds, settings, train)
    tasks = [settings.task(runs_name, spec, run_kind(cell.model)) for cell, spec in specs]
    placed()
    runs_of: dict[str, list[int]] = {}
    for index, (cell, _) in enumerate(specs):
        runs_of.setdefault(cell.key, []).append(index)
    datasets = {cell.corpus: settings.corpora.load(cell.corpus) for cell in cells}
    results, summaries = {}, {}

    def finished(index: int, run) -> None:
        results[index] = run
        cell = specs[index][0]
        mine = runs_of[cell.key]
        if all(i in results for i in mine):
            summaries[cell.key] = summarise_cell(cell, datasets[cell.corpus], [results[i] for i in mine],
                                                 [tasks[i] for i in mine], seeds, train)
            tqdm.write(cell_line(summaries[cell.key]))

    run_tasks(tasks, datasets, settings.executor, runs_name, finished)
    return summaries


def table_result(experiment: Experiment, name: str, cells: list[dict], started: float, **fields) -> Result:
    """The result of a table's ``cells`` (:func:`aggregate`), named ``name``, begun at ``started``: the experiment's
    source and shown metrics, the cells' training compute and ``fields`` (title, seeds, training settings...)."""
    return Result.made("table", name, cells, runs=(run for cell in cells for run in cell["runs"]), started=started,
                       source=experiment.source, shown_metrics=list(experiment.metrics),
                       compute_seconds=round(sum(sum(c["train_seconds"]) for c in cells), 1), **fields)


def summarise_cell(cell: Cell, dataset, runs: list, tasks: list[RunTask], seeds: list[int], train: TrainConfig) -> dict:
    """A cell's aggregate over its finished runs, with the operating point (binary) or per-class F1.
    A rule the runs were not produced under (tuned, grid: their tasks' settings) is applied to their
    per-epoch record.  Failed runs (training diverged) are listed in ``failed_runs`` and never averaged in;
    an entrant's cell says what the entrant is."""
    from_record = any(task.spec.train.selection != train.selection for task in tasks)
    failed = [{"seed": task.spec.seed, "fold": task.spec.fold, "run": str(r.directory), "reason": r.failure}
              for r, task in zip(runs, tasks) if r.failure]
    tasks = [task for r, task in zip(runs, tasks) if not r.failure]
    runs = [r for r in runs if not r.failure]
    under = [run_under(r.directory, train.selection) for r in runs] if from_record else []
    metrics = [m for m, _ in under] if from_record else [r.metrics for r in runs]
    summary = aggregate(cell, metrics, [str(r.directory) for r in runs], seeds)
    summary["run_ids"] = [{"seed": task.spec.seed, "fold": task.spec.fold} for task in tasks]  # beside "runs", in order
    summary["reused_runs"] = sum(r.skipped for r in runs)
    summary["failed_runs"] = failed
    if cell.model in ENTRANTS:
        entrant = ENTRANTS.get(cell.model)
        summary["entrant"] = {"kind": entrant.kind, "description": entrant.description}
    if cell.folds:
        summary["folds"] = len(dataset.folds)  # every metric's values: each fold x each seed
    if not runs:
        return summary
    if dataset.is_binary:
        summary["operating_point"] = (operating_point_of([p for _, p in under], summary["thresholds"]) if from_record
                                      else operating_point([r.directory for r in runs], train.threshold))
    summary["per_class"] = per_class_scores(dataset.label_names, [m["test"] for m in metrics],
                                            [task.spec.fold for task in tasks])
    return summary


def cell_runs(cell: Cell, dataset, seeds: list[int]) -> list[tuple[int, int | None]]:
    """(seed, fold) of every run of a cell: each seed, on every official fold when the cell asks for folds."""
    if not cell.folds:
        return [(seed, None) for seed in seeds]
    if not dataset.folds:
        raise IsarcasmError(f"{cell.key}: folds = true, but corpus '{cell.corpus}' has no official folds")
    return [(seed, fold) for fold in range(len(dataset.folds)) for seed in seeds]


def aggregate(cell: Cell, metrics: list[dict], directories: list[str], seeds: list[int]) -> dict:
    """Mean, sample std and per-seed values of every metric (faithful threshold; tuned kept apart)."""
    test = [m["test"] if "test" in m else m for m in metrics]
    summary = {
        "corpus": corpus_label(cell.corpus),
        "model": cell.model,
        "note": cell.note,
        "seeds": seeds,
        "runs": directories,
        "references": [vars(r) for r in cell.references],
        "metrics": {k: summary_stats([t[k] for t in test]) for k in METRICS if k in test[0]} if test else {},
        "selected_epochs": [m.get("selected_epoch") for m in metrics if "selected_epoch" in m],
        "thresholds": [m.get("threshold") for m in metrics if "threshold" in m],
        "train_seconds": [m.get("train_seconds", 0.0) for m in metrics],
    }
    tuned = [m["test_tuned_threshold"] for m in metrics if "test_tuned_threshold" in m]
    if tuned:
        summary["tuned_threshold_variant"] = {
            "thresholds": [m["tuned_threshold"] for m in metrics],
            "metrics": {k: summary_stats([t[k] for t in tuned]) for k in METRICS if k in tuned[0]},
        }
    return summary


def cell_line(cell: dict) -> str:
    failed = failure_note(cell)
    if not cell["metrics"]:
        return f"{cell['corpus']}/{cell['model']}: {failed}; nothing to average"
    metric = main_metric(cell["metrics"])
    f1, label = cell["metrics"][metric], METRIC_NAMES[metric]
    reused = f", {cell['reused_runs']} reused" if cell["reused_runs"] else ""
    runs = f"{len(f1['values'])} run(s) of {cell['folds']} folds x {len(cell['seeds'])} seed(s)" \
        if cell.get("folds") else f"{len(f1['values'])} seed(s)"
    return (f"{cell['corpus']}/{cell['model']}: {label} {f1['mean']:.3f} ± {f1['std']:.3f} "
            f"over {runs}{reused}, {sum(cell['train_seconds']):.0f} s" + (f" ({failed})" if failed else ""))
