"""A study's results: one type, one constructor.

Every study (a table reproduction, the entrants' table, the cross-dataset matrix, a benchmark) returns a
:class:`Result`, built by :meth:`Result.made`, which records beside the cells what every results file records:
its kind, the schema's version, the provenance of the command (:func:`~experiments.runs.one.provenance.record`)
and of the runs behind the cells (:func:`~experiments.runs.one.provenance.run_origins`).  A results file is a
result's :meth:`~Result.to_dict` as JSON; :mod:`experiments.results.files` reads it back.  Reports read a result's
fields as its attributes (``result.seeds``, ``result.train``), each declared once on :class:`Result`.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from experiments.runs.one import provenance

#: The version of the results files this code writes (:mod:`experiments.results.files` says what each holds).
SCHEMA_VERSION = 1
#: The fields every result has as attributes; the rest of a file's top level is in :attr:`Result.fields`.
_CORE = ("experiment", "kind", "schema_version")

T = TypeVar("T")


class _Field(Generic[T]):
    """A top-level field of a results file, read (never set) as an attribute of :class:`Result` of the same
    name: the file's value, else ``empty()``, what a result whose kind (or whose older file) lacks the field
    reads as: None, or an empty list for a field that holds a list."""

    def __init__(self, empty: Callable[[], T] = lambda: None) -> None:
        self.empty = empty

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, result: Result | None, owner: type | None = None) -> T:
        if result is None:  # read on the class: the declaration itself
            return self
        return result.fields[self.name] if self.name in result.fields else self.empty()


@dataclass(frozen=True)
class Result:
    """One experiment's results: ``kind`` names the report that shows them (:mod:`experiments.reports.kinds`),
    ``cells`` hold the numbers, ``fields`` the kind's other top-level fields in the order a file lists them,
    each read as the attribute of its name declared below (None where the result has none; [] for a list).
    :func:`~experiments.results.files.checked` makes sure each kind's own fields are there."""

    kind: str
    experiment: str
    cells: list
    fields: dict = field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION

    # What every study records: what the results are, and how they were made.
    #: The report's heading (table, cross, fidelity, elements).
    title = _Field[str | None]()
    #: The seeds of every cell (table, cross, benchmark).
    seeds = _Field[list[int]](list)
    #: The training settings every run was trained with, in their recorded form (table, cross, benchmark).
    train = _Field[dict | None]()
    #: The commit that made the results (:func:`~experiments.runs.one.provenance.record`, as the next four).
    git_commit = _Field[str | None]()
    #: The command line that made them.
    command = _Field[str | None]()
    #: The sweep its runs were trained in (:func:`~experiments.runs.one.provenance.sweep`).
    sweep = _Field[dict | None]()
    #: The machine it ran on.
    machine = _Field[dict | None]()
    #: The versions of the packages it ran with.
    versions = _Field[dict | None]()
    #: Where the runs behind the cells come from (:func:`~experiments.runs.one.provenance.run_origins`).
    run_origins = _Field[list[dict]](list)
    #: The seconds the command took, and the seconds of training compute of its runs (reused runs included).
    wall_seconds = _Field[float | None]()
    compute_seconds = _Field[float | None]()
    #: The runs whose training diverged, averaged nowhere (cross, benchmark).
    failed_runs = _Field[list[dict]](list)
    #: The sweeps merged into one table (``report --merge``: :func:`~experiments.reports.merge.parts`).
    parts = _Field[list[dict]](list)

    # A table's.
    #: Where the reference numbers beside the cells come from.
    source = _Field[str | None]()
    #: The metrics the report shows beside the references' and the F1s.
    shown_metrics = _Field[list[str]](list)
    #: The reference rows scored beside the cells (``reproduce --references``).
    reference_rows = _Field[list[dict]](list)
    #: A table rescored from its runs' per-epoch records (``report --selection``): the rule applied, the results
    #: rescored, the commit and command that rescored them, and the seconds it took; None for a table as trained.
    selection = _Field[str | None]()
    selected_from = _Field[str | None]()
    rescored_by = _Field[dict | None]()
    reselect_seconds = _Field[float | None]()

    # A cross matrix's.
    #: The test corpora (the columns) and the models.
    corpora = _Field[list[str]](list)
    models = _Field[list[str]](list)
    #: The training corpora (the rows); [] in a file written before test-only columns, whose rows are its corpora.
    train_corpora = _Field[list[str]](list)
    #: How many training runs the matrix's models are.
    training_runs = _Field[int | None]()
    #: Each test corpus' scores when every text is labelled sarcastic, and when every text is labelled with its
    #: majority class (the columns' floors).
    all_sarcastic = _Field[dict | None]()
    majority = _Field[dict | None]()
    #: The label of each file column -> its path.
    files = _Field[dict | None]()

    # A benchmark's.
    #: The entrant benchmarked, the paired test (bootstrap or McNemar) and its resamples, the classic runs not found.
    model = _Field[str | None]()
    method = _Field[str | None]()
    resamples = _Field[int | None]()
    missing = _Field[list[dict]](list)

    # A fidelity or elements report's.
    #: The corpora of its cells, in words.
    corpus = _Field[str | None]()
    #: Fidelity: the results read, protocol -> results name, and element -> results name.
    sources = _Field[dict | None]()
    elements = _Field[dict | None]()
    #: Elements: the results of the paper as written, and what made each results file read.
    as_written = _Field[str | None]()
    inputs = _Field[dict | None]()

    # The leaderboard's.
    #: The paired tests Holm-adjusted over the board, the entrants, their groups, the files left out.
    tests = _Field[int | None]()
    entrants = _Field[list[dict]](list)
    groups = _Field[list[dict]](list)
    shadowed = _Field[list[str]](list)

    @property
    def selection_rule(self) -> str:
        """The rule that chose every run's epoch and threshold: the one a rescoring applied (:attr:`selection`),
        else the one the runs were trained under, else the paper's, ``best``."""
        return self.selection or (self.train or {}).get("selection", "best")

    @classmethod
    def made(cls, kind: str, experiment: str, cells: list, *, runs: Iterable, started: float | None = None,
             **fields) -> Result:
        """A study's result of ``cells`` from ``runs`` (the run folders behind them): ``fields``, then the wall time
        since ``started`` (a ``time.time()``, when given), the command's provenance and the runs' origins."""
        timed = {"wall_seconds": round(time.time() - started, 1)} if started is not None else {}
        return cls(kind, experiment, cells, {**fields, **timed, **provenance.record(),
                                             "run_origins": provenance.run_origins(runs)})

    @classmethod
    def from_dict(cls, data: dict) -> Result:
        """The result a results file's top level ``data`` holds (as :func:`~experiments.results.files.checked`
        passed it)."""
        return cls(data["kind"], data["experiment"], data["cells"],
                   {key: value for key, value in data.items() if key not in (*_CORE, "cells")},
                   data.get("schema_version", SCHEMA_VERSION))

    def updated(self, **changes) -> Result:
        """This result with ``changes`` (its cells, name or any other field), as a report derived from it holds it
        (rescored under another rule, merged with another sweep's cells, its runs found elsewhere)."""
        return Result.from_dict({**self.to_dict(), **changes})

    def to_dict(self) -> dict:
        """The results file's top level, as JSON writes it: experiment, kind, version, the fields, the cells."""
        return {"experiment": self.experiment, "kind": self.kind, "schema_version": self.schema_version,
                **self.fields, "cells": self.cells}
