"""Another selection rule applied to a finished reproduction, from its runs' per-epoch records.

``isarcasm report table7 --selection grid`` reads each run's ``epochs.npz`` (see
:mod:`experiments.runs.one.trajectory`), lets the rule choose an epoch and a threshold on validation
data, scores the test split there, and aggregates the cells exactly as ``reproduce`` does.
Nothing is trained, so it takes seconds; the new results are saved beside the old ones as
``<experiment>-selection-<rule>``, never over them.
"""
from __future__ import annotations

import time
from pathlib import Path

from experiments.runs.one.operating_point import operating_point_of
from experiments.reports.table import run_ids
from experiments.results.files import require_kind
from experiments.results.schema import Result
from experiments.runs.one import provenance
from experiments.runs.one.metrics import per_class_scores
from experiments.runs.one.store import EPOCHS
from experiments.runs.one.trajectory import check_rule, run_under
from experiments.studies.experiment import Cell, Reference
from experiments.studies.cells import aggregate
from preprocessing.errors import IsarcasmError


def reselect(result: Result, rule: str, localised=lambda result: result) -> Result:
    """``result`` (a reproduction's results) with every trained cell rescored under ``rule``.  ``localised``
    finds its runs where this machine has them (:meth:`Settings.localised`), once the file's kind is known to
    have runs to rescore."""
    require_kind(result, "table", "--selection")
    result = localised(result)
    own = result.selection_rule
    rule = check_rule(rule)
    if rule == own:
        return result
    runs = [Path(run) for cell in result.cells for run in cell.get("runs", [])]
    gone = [run for run in runs if not run.is_dir()]
    if gone:
        raise IsarcasmError(f"{len(gone)} of {len(runs)} runs of '{result.experiment}' are not on this machine "
                            f"(first: {gone[0]}): the results file was made elsewhere or its runs were deleted; "
                            f"make them with the command that made it (`isarcasm reproduce ...`; finished runs are "
                            f"reused) to apply rule '{rule}'")
    missing = [run for run in runs if not (run / EPOCHS).is_file()]
    if missing:
        raise IsarcasmError(f"{len(missing)} of {len(runs)} runs of '{result.experiment}' have no per-epoch record "
                            f"({EPOCHS}; first: {missing[0]}): they were trained before runs kept one, or moved; "
                            f"retrain them with `isarcasm reproduce ... --force` to apply rule '{rule}'")
    started = time.time()
    cells = [_rescored(cell, rule) if cell.get("runs") else cell for cell in result.cells]
    return result.updated(experiment=f"{result.experiment}-selection-{rule}", selection=rule,
                          title=f"{result.title} — selection rule '{rule}' applied to the runs' per-epoch record",
                          selected_from=result.experiment, reselect_seconds=round(time.time() - started, 1),
                          rescored_by={"git_commit": provenance.git_commit(), "command": provenance.command_line()},
                          cells=cells)


def _rescored(cell: dict, rule: str) -> dict:
    under = [run_under(Path(run), rule) for run in cell["runs"]]
    metrics = [m for m, _ in under]
    references = tuple(Reference(**r) for r in cell["references"])
    summary = aggregate(Cell(cell["corpus"], cell["model"], references, cell["note"]), metrics, cell["runs"],
                        cell["seeds"])
    summary = {**cell, **summary, "corpus": cell["corpus"], "selection": rule}
    summary.pop("tuned_threshold_variant", None)  # the rule replaces the run's own threshold
    if cell.get("operating_point"):
        summary["operating_point"] = operating_point_of([p for _, p in under], summary["thresholds"])
    if cell.get("per_class"):
        summary["per_class"] = per_class_scores(tuple(cell["per_class"]), [m["test"] for m in metrics],
                                                [fold for _, fold in run_ids(cell)])
    return summary
