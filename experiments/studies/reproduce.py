"""Running an experiment's cells over seeds and aggregating them.

Every (cell, seed) is one :func:`experiments.runs.one.training.train_run`; finished runs with the
same configuration are reused, so an interrupted reproduction resumes where it
stopped.  Aggregates go to ``results/<experiment>.{json,csv,md}`` (see
:mod:`experiments.reports.table`).
"""
from __future__ import annotations

import logging
import time

from tqdm import tqdm

from experiments.reports.kinds import save_result
from experiments.reports.operating_point import operating_point, operating_point_of
from experiments.reports.table import failure_note
from experiments.results.schema import Result
from experiments.runs.one.metrics import METRIC_NAMES, METRICS, main_metric, per_class_scores, summary_stats
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.many.scheduler import RunTask, run_tasks
from experiments.runs.one.spec import RunSpec
from experiments.runs.one.trajectory import run_under
from experiments.studies.experiment import Cell, Experiment
from experiments.studies.human import manual_labelling_metrics
from experiments.studies.settings import Settings
from preprocessing.corpora import corpus_label, corpus_labels
from preprocessing.errors import IsarcasmError

log = logging.getLogger("isarcasm")


def run_experiment(experiment: Experiment, seeds: list[int], settings: Settings,
                   reference_rows: list[dict] = ()) -> Result:
    """Train and evaluate every cell for every seed; return (and save) the aggregate.

    Runs are trained under ``settings`` combined with the experiment's own protocol (its ``[train]``
    table; see :meth:`Settings.train_for`), which names the faithful runs; other training settings
    make a named variant.  They are stored under ``settings.store.root``; the results go to
    ``settings.results_root``.  ``reference_rows`` (:func:`experiments.studies.entrants.reference_rows`)
    are saved apart from the cells.
    """
    protocol = experiment.protocol()
    started = time.time()
    trainable = settings.trainable(list(dict.fromkeys(c.model for c in experiment.cells if not c.is_human)), protocol)
    train = settings.train_for(protocol)  # what every run uses: its config.json, its hash and the variant's name
    # tuned and grid are applied to the per-epoch record of best runs: train (or reuse) those
    training, runs_name = train.trained(), settings.experiment(experiment.name, protocol, trained=True)
    model_cells = [c for c in experiment.cells if c.model in trainable]
    tasks, owners, runs_of = [], [], {}
    for cell in model_cells:
        dataset = settings.corpora.load(cell.corpus)
        for seed, fold in cell_runs(cell, dataset, seeds):
            tasks.append(settings.task(runs_name, RunSpec(cell.corpus, cell.model, seed, training, fold)))
            owners.append(cell)
            runs_of.setdefault(cell.key, []).append(len(tasks) - 1)
    results, summaries = {}, {}

    def finished(index: int, run) -> None:
        """Once every run of a cell is in, summarise the cell in one line."""
        results[index] = run
        cell = owners[index]
        mine = runs_of[cell.key]
        if all(i in results for i in mine):
            summaries[cell.key] = summarise_cell(cell, datasets[cell.corpus], [results[i] for i in mine],
                                             [tasks[i] for i in mine], seeds, train)
            tqdm.write(cell_line(summaries[cell.key]))

    datasets = {cell.corpus: settings.corpora.load(cell.corpus) for cell in model_cells}
    settings.announce(experiment.name, protocol)
    run_tasks(tasks, datasets, settings.executor, runs_name, finished)
    name, variant = settings.experiment(experiment.name, protocol), train.variant(protocol)
    kept = [cell for cell in experiment.cells if cell.is_human or cell in model_cells]
    labels = corpus_labels(list(dict.fromkeys(cell.corpus for cell in kept)))  # two files never share a name
    cells = [{**(aggregate(cell, [manual_labelling_metrics(settings.corpora.data_dir)], [], seeds=[]) if cell.is_human
                 else summaries[cell.key]), "corpus": labels[cell.corpus]} for cell in kept]
    title = experiment.title + (f" — variant {variant}, not the paper's protocol" if variant else "")
    result = table_result(experiment, name, cells, started, seeds=seeds, train=train.recorded_form(), title=title,
                          **({"reference_rows": list(reference_rows)} if reference_rows else {}))
    save_result(result, settings.results_root)
    return result


def table_result(experiment: Experiment, name: str, cells: list[dict], started: float, **fields) -> Result:
    """The result of a table's ``cells`` (:func:`aggregate`), named ``name``, begun at ``started``: the experiment's
    source and shown metrics, the cells' training compute and ``fields`` (title, seeds, training settings...)."""
    return Result.made("table", name, cells, runs=(run for cell in cells for run in cell["runs"]), started=started,
                       source=experiment.source, shown_metrics=list(experiment.metrics),
                       compute_seconds=round(sum(sum(c["train_seconds"]) for c in cells), 1), **fields)


def summarise_cell(cell: Cell, dataset, runs: list, tasks: list[RunTask], seeds: list[int], train: TrainConfig) -> dict:
    """A cell's aggregate over its finished runs, with the operating point (binary) or per-class F1.
    A rule the runs were not trained with (tuned, grid) is applied to their per-epoch record.
    Failed runs (training diverged) are listed in ``failed_runs`` and never averaged in."""
    failed = [{"seed": task.spec.seed, "fold": task.spec.fold, "run": str(r.directory), "reason": r.failure}
              for r, task in zip(runs, tasks) if r.failure]
    tasks = [task for r, task in zip(runs, tasks) if not r.failure]
    runs = [r for r in runs if not r.failure]
    from_record = train.selection != train.trained().selection
    under = [run_under(r.directory, train.selection) for r in runs] if from_record else []
    metrics = [m for m, _ in under] if from_record else [r.metrics for r in runs]
    summary = aggregate(cell, metrics, [str(r.directory) for r in runs], seeds)
    summary["run_ids"] = [{"seed": task.spec.seed, "fold": task.spec.fold} for task in tasks]  # beside "runs", in order
    summary["reused_runs"] = sum(r.skipped for r in runs)
    summary["failed_runs"] = failed
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
