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

#: What two parts must share to be one experiment's results: the same name, kind, seeds and training settings.
SAME = ("experiment", "kind", "seeds", "train")
#: What each part records of the sweep that made it.
PART = ("command", "git_commit", "wall_seconds", "compute_seconds", "sweep", "machine", "versions")


def merged(result: Result, other: Result, source: str) -> Result:
    """``result`` with the cells of ``other`` (read from ``source``) after its own; refused in one line where
    they are not the same experiment, seeds and settings, or where a cell (corpus and model) is in both."""
    if result.kind != "table" or other.kind != "table":
        raise IsarcasmError(f"{source}: only the results of a reproduction (a table of cells) are merged")
    differ = [key for key in SAME if _setting(result, key) != _setting(other, key)]
    if differ:
        verb = "differs" if len(differ) == 1 else "differ"
        raise IsarcasmError(f"{source}: its {', '.join(differ)} {verb} from those of '{result.experiment}': only "
                            "results of the same experiment, seeds and training settings are merged")
    both = sorted(_keys(result) & _keys(other))
    if both:
        raise IsarcasmError(f"{source}: {', '.join(f'{corpus}/{model}' for corpus, model in both)} already in "
                            f"'{result.experiment}': merge results of other models or corpora")
    return result.updated(cells=result.cells + other.cells, parts=parts(result) + parts(other),
                          **{cost: round(result.get(cost, 0) + other.get(cost, 0), 1)
                             for cost in ("wall_seconds", "compute_seconds")},
                          run_origins=result.get("run_origins", []) + other.get("run_origins", []))


def parts(result: Result) -> list[dict]:
    """The sweeps that made ``result``: its recorded parts, or itself as the one sweep, with the cells each made."""
    return result.get("parts") or [{**{key: result.get(key) for key in PART},
                                    "cells": [f"{corpus}/{model}" for corpus, model in _keys(result, ordered=True)]}]


def made_by(part: dict) -> str:
    """One sweep of merged results in words, the same in every report: the cells it made, by which command and commit."""
    return f"{', '.join(part['cells'])} by `{part['command']}` (commit `{part['git_commit']}`)"


def _setting(result: Result, key: str):
    """What ``result`` records under ``key``; its training settings as the identity of its runs, so that a
    file written before a setting existed equals one that records the setting at the value runs had before it."""
    if key != "train":
        return result.get(key)
    return TrainConfig.recorded(result.get("train") or {}, f"{result.experiment}'s training settings").identity()


def _keys(result: Result, ordered: bool = False):
    keys = [(cell["corpus"], cell["model"]) for cell in result.cells]
    return keys if ordered else set(keys)
