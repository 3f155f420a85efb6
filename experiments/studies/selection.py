"""Another selection rule applied to a finished reproduction, from its runs' per-epoch records.

``isarcasm report table7 --selection grid`` reads each run's ``epochs.npz`` (see
:mod:`experiments.runs.one.trajectory`), lets the rule choose an epoch and a threshold on validation
data, scores the test split there, and aggregates the cells exactly as ``reproduce`` does.
Nothing is trained, so it takes seconds; the new results are saved beside the old ones as
``<experiment>-selection-<rule>``, never over them.

``--padded-batches`` rescores the same records with the validation and test splits padded with repeated
texts to whole batches, as the iSarcasm authors' code scores them (:func:`~experiments.runs.one.trajectory.padded`):
a DIAGNOSTIC that scores another test set, saved as ``<experiment>-padded-batches``, which says how much
the repeats weigh (each cell keeps the same runs' scores on the published splits beside it) and is never
set beside the paper.
"""
from __future__ import annotations

import time
from pathlib import Path

from experiments.reports.operating_point import operating_point_of
from experiments.reports.table import run_ids
from experiments.results.files import require_kind
from experiments.results.schema import Result
from experiments.runs.one import provenance
from experiments.runs.one.metrics import per_class_scores, summary_stats
from experiments.runs.one.store import EPOCHS
from experiments.runs.one.trajectory import check_rule, run_under
from experiments.studies.experiment import Cell, Reference
from experiments.studies.reproduce import aggregate
from preprocessing.errors import IsarcasmError


def reselect(result: Result, rule: str | None, padded_batches: bool = False, localised=lambda result: result) -> Result:
    """``result`` (a reproduction's results) with every trained cell rescored under ``rule`` (None: the rule
    it was made with), on the splits padded as the authors pad them with ``padded_batches``.  ``localised`` finds
    its runs where this machine has them (:meth:`Settings.localised`), once the file's kind is known to have runs
    to rescore."""
    require_kind(result, "table", "--padded-batches" if padded_batches else "--selection")
    result = localised(result)
    own = result.get("selection", result.get("train", {}).get("selection", "best"))
    rule = check_rule(rule or own)
    if result.get("padded_batches"):
        raise IsarcasmError(f"'{result.experiment}' is already rescored on padded splits (a diagnostic): "
                            f"rescore '{result.get('selected_from', result.experiment)}' instead")
    if rule == own and not padded_batches:
        return result
    runs = [Path(run) for cell in result.cells for run in cell.get("runs", [])]
    option = f"rule '{rule}'" + (" on padded splits" if padded_batches else "")
    gone = [run for run in runs if not run.is_dir()]
    if gone:
        raise IsarcasmError(f"{len(gone)} of {len(runs)} runs of '{result.experiment}' are not on this machine "
                            f"(first: {gone[0]}): the results file was made elsewhere or its runs were deleted; "
                            f"make them with the command that made it (`isarcasm reproduce ...`; finished runs are "
                            f"reused) to apply {option}")
    missing = [run for run in runs if not (run / EPOCHS).is_file()]
    if missing:
        raise IsarcasmError(f"{len(missing)} of {len(runs)} runs of '{result.experiment}' have no per-epoch record "
                            f"({EPOCHS}; first: {missing[0]}): they were trained before runs kept one, or moved; "
                            f"retrain them with `isarcasm reproduce ... --force` to apply {option}")
    started = time.time()
    cells = [_rescored(cell, rule, padded_batches) if cell.get("runs") else cell for cell in result.cells]
    name = result.experiment + (f"-selection-{rule}" if rule != own else "") + \
        ("-padded-batches" if padded_batches else "")
    title = f"{result['title']} — " + (
        (f"selection rule '{rule}', " if rule != own else "") + "validation and test padded with repeated texts as "
        "the authors' code pads them (a diagnostic: another test set)" if padded_batches
        else f"selection rule '{rule}' applied to the runs' per-epoch record")
    return result.updated(experiment=name, selection=rule, title=title, selected_from=result.experiment,
                          reselect_seconds=round(time.time() - started, 1),
                          rescored_by={"git_commit": provenance.git_commit(), "command": provenance.command_line()},
                          **({"padded_batches": True} if padded_batches else {}), cells=cells)


def _rescored(cell: dict, rule: str, padded_batches: bool) -> dict:
    under = [run_under(Path(run), rule, padded_batches) for run in cell["runs"]]
    metrics = [m for m, _ in under]
    references = tuple(Reference(**r) for r in cell["references"])
    summary = aggregate(Cell(cell["corpus"], cell["model"], references, cell["note"]), metrics, cell["runs"],
                        cell["seeds"])
    summary = {**cell, **summary, "corpus": cell["corpus"], "selection": rule}
    summary.pop("tuned_threshold_variant", None)  # the rule replaces the run's own threshold
    if padded_batches:  # the same runs, rule and metrics on the splits as published: what the repeats weigh
        published = [run_under(Path(run), rule)[0]["test"] for run in cell["runs"]]
        summary["published_splits"] = {k: summary_stats([m[k] for m in published]) for k in summary["metrics"]}
    if cell.get("operating_point"):
        summary["operating_point"] = operating_point_of([p for _, p in under], summary["thresholds"])
    if cell.get("per_class"):
        summary["per_class"] = per_class_scores(tuple(cell["per_class"]), [m["test"] for m in metrics],
                                                [fold for _, fold in run_ids(cell)])
    return summary
