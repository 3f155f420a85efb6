"""One experiment's results made by separate sweeps, as one file (``isarcasm report EXPERIMENT --merge FILE``).

A sweep of some models (``reproduce table7 --models siarn,miarn --clip-global-norm 0.1``) writes a results file
of the same name as a sweep of the others, and the second would replace the first.  Merging sets their cells
side by side in one file: nothing is retrained, and each sweep's command, commit and costs stay recorded
(``parts``), so every cell can still be traced to the command that made it.
"""
from __future__ import annotations

from experiments.results.schema import Result
from experiments.runs.one.protocol import TrainConfig
from preprocessing.errors import IsarcasmError

def merged(result: Result, other: Result, source: str) -> Result:
    """``result`` with the cells of ``other`` (read from ``source``) after its own; refused in one line where
    they are not the same experiment, seeds and settings, or where a cell (corpus and model) is in both."""
    if result.kind != "table" or other.kind != "table":
        raise IsarcasmError(f"{source}: only the results of a reproduction (a table of cells) are merged")
    mine, theirs = _identity(result), _identity(other)
    differ = [key for key in mine if mine[key] != theirs[key]]
    if differ:
        verb = "differs" if len(differ) == 1 else "differ"
        raise IsarcasmError(f"{source}: its {', '.join(differ)} {verb} from those of '{result.experiment}': only "
                            "results of the same experiment, seeds and training settings are merged")
    both = sorted(_keys(result) & _keys(other))
    if both:
        raise IsarcasmError(f"{source}: {', '.join(f'{corpus}/{model}' for corpus, model in both)} already in "
                            f"'{result.experiment}': merge results of other models or corpora")
    return result.updated(cells=result.cells + other.cells, parts=parts(result) + parts(other),
                          wall_seconds=round((result.wall_seconds or 0) + (other.wall_seconds or 0), 1),
                          compute_seconds=round((result.compute_seconds or 0) + (other.compute_seconds or 0), 1),
                          run_origins=result.run_origins + other.run_origins)


def parts(result: Result) -> list[dict]:
    """The sweeps that made ``result``: its recorded parts, or itself as the one sweep: its command, commit, costs,
    sweep, machine and versions, with the cells each made."""
    return result.parts or [{"command": result.command, "git_commit": result.git_commit,
                             "wall_seconds": result.wall_seconds, "compute_seconds": result.compute_seconds,
                             "sweep": result.sweep, "machine": result.machine, "versions": result.versions,
                             "cells": [f"{corpus}/{model}" for corpus, model in _keys(result, ordered=True)]}]


def made_by(part: dict) -> str:
    """One sweep of merged results in words, the same in every report: the cells it made, by which command and commit."""
    return f"{', '.join(part['cells'])} by `{part['command']}` (commit `{part['git_commit']}`)"


def _identity(result: Result) -> dict:
    """What two parts must share to be one experiment's results: the same name, kind, seeds and training settings
    (the settings as the identity of the runs they train, so that a file written before a setting existed equals
    one that records the setting at the value runs had before it)."""
    return {"experiment": result.experiment, "kind": result.kind, "seeds": result.seeds,
            "train": TrainConfig.recorded(result.train or {}, f"{result.experiment}'s training settings").identity()}


def _keys(result: Result, ordered: bool = False):
    keys = [(cell["corpus"], cell["model"]) for cell in result.cells]
    return keys if ordered else set(keys)
