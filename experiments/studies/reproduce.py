"""Running an experiment's cells over seeds and aggregating them.

Every (cell, seed) is one :func:`experiments.runs.one.training.train_run`, all of them in one sweep
(:func:`experiments.studies.cells.run_cells`); finished runs with the same configuration are reused,
so an interrupted reproduction resumes where it stopped.  Aggregates go to
``results/<experiment>.{json,csv,md}`` (see :mod:`experiments.reports.table`).
"""
from __future__ import annotations

import logging
import time

from experiments.reports.kinds import save_result
from experiments.results.schema import Result
from experiments.studies.cells import aggregate, run_cells, table_result
from experiments.studies.entrants import reference_cells
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
    (:func:`experiments.studies.entrants.reference_cells`) are scored in the same sweep and saved apart
    from the table's cells.
    """
    protocol = experiment.protocol()
    started = time.time()
    trainable = settings.trainable(list(dict.fromkeys(c.model for c in experiment.cells if not c.is_human)), protocol)
    train = settings.train_for(protocol)  # what every run uses: its config.json, its hash and the variant's name
    name, variant = settings.experiment(experiment.name, protocol), train.variant(protocol)
    model_cells = [c for c in experiment.cells if c.model in trainable]
    rows = reference_cells(experiment, settings) if references else []
    runs_name = settings.experiment(experiment.name, protocol, trained=True)  # tuned and grid read best runs
    summaries = run_cells(model_cells + rows, seeds, settings, runs_name, train,
                          placed=lambda: settings.announce(experiment.name, protocol))
    kept = [cell for cell in experiment.cells if cell.is_human or cell in model_cells]
    labels = corpus_labels(list(dict.fromkeys(cell.corpus for cell in kept)))  # two files never share a name
    cells = [{**(aggregate(cell, [manual_labelling_metrics(settings.corpora.data_dir)], [], seeds=[]) if cell.is_human
                 else summaries[cell.key]), "corpus": labels[cell.corpus]} for cell in kept]
    title = experiment.title + (f" — variant {variant}, not the paper's protocol" if variant else "")
    result = table_result(experiment, name, cells, started, seeds=seeds, train=train.recorded_form(), title=title,
                          **({"reference_rows": [summaries[cell.key] for cell in rows]} if rows else {}))
    save_result(result, settings.results_root)
    return result
