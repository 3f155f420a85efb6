"""A study's results: one type, one constructor.

Every study (a table reproduction, the entrants' table, the cross-dataset matrix, a benchmark) returns a
:class:`Result`, built by :meth:`Result.made`, which records beside the cells what every results file records:
its kind, the schema's version, the provenance of the command (:func:`~experiments.runs.one.provenance.record`)
and of the runs behind the cells (:func:`~experiments.runs.one.provenance.run_origins`).  A results file is a
result's :meth:`~Result.to_dict` as JSON; :mod:`experiments.results.files` reads it back.
"""
from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from experiments.runs.one import provenance

#: The version of the results files this code writes (:mod:`experiments.results.files` says what each holds).
SCHEMA_VERSION = 1
#: The fields every result has as attributes; the rest of a file's top level is in :attr:`Result.fields`.
_CORE = ("experiment", "kind", "schema_version")


@dataclass(frozen=True)
class Result(Mapping):
    """One experiment's results: ``kind`` names the report that shows them (:mod:`experiments.reports.kinds`),
    ``cells`` hold the numbers, ``fields`` the kind's other top-level fields in the order a file lists them
    (title, seeds, training settings, provenance, ...).

    Read as a mapping, a result is its file's top level (``result["cells"]``, ``result.get("selection")``), for
    the readers that take a results file's fields by name."""

    kind: str
    experiment: str
    cells: list
    fields: dict = field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION

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

    def __getitem__(self, key: str):
        if key in _CORE or key == "cells":
            return getattr(self, key)
        return self.fields[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.fields) + len(_CORE) + 1
