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
from experiments.results.schema import Result
from experiments.runs.many.scheduler import run_tasks
from experiments.runs.one.spec import RunSpec
from experiments.studies.cells import aggregate, cell_line, cell_runs, summarise_cell, table_result
from experiments.studies.entrants import reference_rows
from experiments.studies.experiment import Experiment
from experiments.studies.human import manual_labelling_metrics
from experiments.studies.settings import Settings
from preprocessing.corpora import corpus_labels

log = logging.getLogger("isarcasm")


def run_experiment(experiment: Experiment, seeds: list[int], settings: Settings, references: bool = False) -> Result:
    """Train and evaluate every cell for every seed; return (and save) the aggregate.

    Runs are trained under ``settings`` combined with the experiment's own protocol (its ``[train]``
    table; see :meth:`Settings.train_for`), which names the faithful runs; other training settings
    make a named variant.  They are stored under ``settings.store.root``; the results go to
    ``settings.results_root``.  With ``references``, the reference rows of its corpora
    (:func:`experiments.studies.entrants.reference_rows`) are saved apart from the cells.
    """
    rows = reference_rows(experiment, seeds, settings) if references else []  # not in the table's wall time
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
                          **({"reference_rows": rows} if rows else {}))
    save_result(result, settings.results_root)
    return result
