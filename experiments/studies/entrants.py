"""Entrants in studies: the reference rows of a reproduction, and an entrant's benchmark cells.

Every run of an entrant (:mod:`experiments.runs.entrants.registry`) is settled first, for every cell and seed,
and only then scored and written: a refused input (a predictions file with a wrong id, a corpus
an entrant cannot score) stops the study with one line before anything is written.  They are scored
as trained runs are trained, in the same sweep (:func:`~experiments.studies.cells.run_cells`, ``--jobs``),
by their tasks' kind (:func:`~experiments.runs.entrants.registry.scoring`).  The runs
go to the same folders as the trained runs of the experiment (``<runs>/<experiment>/<corpus>/<name>/
seed-N``), and finished ones are reused wherever they are in the store.
"""
from __future__ import annotations

import logging
import time

from experiments.reports.kinds import save_result
from experiments.results.schema import Result
from experiments.runs.entrants.registry import ENTRANTS, REFERENCES, Plan, plan_run
from experiments.runs.entrants.estimators import load_estimator
from experiments.runs.entrants.keras_models import load_keras_model
from experiments.runs.entrants.outside import load_predictions
from experiments.runs.one.spec import RunSpec
from experiments.studies.experiment import Cell, Experiment
from experiments.studies.cells import cell_specs, run_cells, table_result
from experiments.studies.settings import Settings
from preprocessing.errors import IsarcasmError

log = logging.getLogger("isarcasm")

#: The note of every reference row.
NOT_FROM_THE_PAPER = "reference row, not from the paper"


def register_entrant(name: str, estimator: str | None = None, predictions: str | None = None,
                     keras_model: str | None = None) -> None:
    """Make ``name`` an entrant: the scikit-learn estimator of file ``estimator``, the prediction
    files of folder ``predictions`` or the Keras model that file ``keras_model`` builds (``benchmark
    NAME --estimator FILE.py`` / ``--predictions DIR`` / ``--keras-model FILE.py``)."""
    from baselines.registry import MODELS  # with installed plugins: imported where used

    given = {"--estimator FILE.py": estimator, "--predictions DIR": predictions, "--keras-model FILE.py": keras_model}
    if sum(bool(value) for value in given.values()) > 1:
        raise IsarcasmError(f"give one of {', '.join(given)}, not several")
    if not any(given.values()):
        return
    if name in MODELS:
        raise IsarcasmError(f"'{name}' is the name of a model; give the entrant another name")
    if estimator:
        load_estimator(name, estimator)
    elif predictions:
        load_predictions(name, predictions)
    else:
        load_keras_model(name, keras_model)


def plan_cells(experiment: Experiment, cells: list[Cell], seeds: list[int],
               settings: Settings) -> list[tuple[Cell, RunSpec, Plan]]:
    """Every run of the cells settled (:func:`~experiments.studies.cells.cell_specs`, each planned: its
    entrant's checks, its hash): (cell, spec, plan)."""
    return [(cell, spec, plan_run(spec, settings.corpora.load(cell.corpus), settings.corpora.data_dir))
            for cell, spec in cell_specs(cells, seeds, settings, settings.train_for(experiment.protocol()))]


def entrant_cells(experiment: Experiment, cells: list[Cell], seeds: list[int], settings: Settings) -> list[dict]:
    """Score (or reuse) every run of the cells with the runs of ``experiment``
    (:func:`~experiments.studies.cells.run_cells`); one summary per cell, in the shape of a reproduction's cells."""
    protocol = experiment.protocol()
    summaries = run_cells(cells, seeds, settings, settings.experiment(experiment.name, protocol, trained=True),
                          settings.train_for(protocol))
    return [summaries[cell.key] for cell in cells]


def reference_cells(experiment: Experiment, settings: Settings, names: tuple[str, ...] = REFERENCES) -> list[Cell]:
    """The reference rows' cells (``reproduce --references``) of every corpus of the experiment's model cells:
    one per (corpus, reference) that the corpus can have (labelling everything sarcastic is for binary
    corpora; no reference scores several labels per text)."""
    cells = []
    for corpus in dict.fromkeys(c.corpus for c in experiment.cells if not c.is_human):
        dataset = settings.corpora.load(corpus)
        if dataset.multi_label:
            log.warning(f"no reference rows for {corpus}: it gives several labels per text")
            continue
        folds = any(c.folds for c in experiment.cells if c.corpus == corpus)
        cells += [Cell(corpus, name, note=NOT_FROM_THE_PAPER, folds=folds) for name in names
                  if dataset.is_binary or not ENTRANTS.get(name).binary_only]
    return cells


def run_entrant_experiment(experiment: Experiment, seeds: list[int], settings: Settings) -> Result:
    """:func:`~experiments.studies.reproduce.run_experiment` for an experiment whose cells are
    entrants: score (or reuse) every cell for every seed; return (and save) the aggregate."""
    started = time.time()
    name = settings.experiment(experiment.name, experiment.protocol())
    cells = entrant_cells(experiment, [c for c in experiment.cells if not c.is_human], seeds, settings)
    result = table_result(experiment, name, cells, started, title=experiment.title, seeds=seeds,
                          train=settings.train_for(experiment.protocol()).recorded_form())
    save_result(result, settings.results_root)
    return result
