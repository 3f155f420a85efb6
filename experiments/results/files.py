"""Results files: one version number, one loader, one writer.

Every results file a study writes (``results/<experiment>.json``, a :class:`~experiments.results.schema.Result`'s
:meth:`~experiments.results.schema.Result.to_dict`) carries its ``kind`` (table, cross, benchmark, fidelity,
elements: :mod:`experiments.reports.kinds`) and a ``schema_version``.  Every command that reads one goes through
:func:`load_results`, which checks it against its kind's shape (:func:`checked`) or refuses it with one line, so a
report never fails deep inside with a ``KeyError``; :func:`write_result_files` writes a result's files as one set
(:mod:`experiments.results.commit`).

Version history:

- 0: files written before results carried a version; a table's file had no ``kind``.  No longer read (every
  committed file is version 1): such a file is refused in one line, and the command that made it makes it again.
- 1: ``kind`` and ``schema_version`` in every file; a table cell may carry ``thresholds`` and a
  results file a ``selection`` rule (experiments/runs/one/trajectory.py); a table cell ``failed_runs``
  and a cross or benchmark file ``failed_runs`` (runs whose training diverged, averaged nowhere;
  absent in older files, which is read as none); a cross file ``majority`` floors beside
  ``all_sarcastic``, ``files`` (the label of each file column -> its path) and a cell metric whose
  ``mean`` is null with ``undefined`` (a test split that leaves it undefined); all absent in older files.
  The ``elements`` kind (``report --elements``) is new in version 1; no older file has it.
  The ``leaderboard`` kind (``isarcasm leaderboard``) is new in version 1, and so is a benchmark cell's
  ``data_sha256`` (the corpus files' checksums, absent in older files, which the leaderboard then never ranks
  with another).
"""
from __future__ import annotations

import itertools
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from experiments.results import commit
from experiments.results.schema import SCHEMA_VERSION, Result
from experiments.runs.console import chatty
from experiments.runs.one.metrics import recorded_problem, summary_problem, value_problem
from experiments.runs.one.protocol import rerun_at, retired
from experiments.runs.one.reference import SHIPPED
from experiments.runs.one.store import json_text, safe_name, write_text
from preprocessing.errors import IsarcasmError
from preprocessing.fileio import json_value


_NUMBER = (int, float)
#: What each kind's readers rely on, checked on loading so that a report meets only files of this shape
#: (and a report that still fails has a bug, which raises): the top-level keys, the keys of every cell,
#: each with its JSON type.
REQUIRED = {
    "table": ({"experiment": str, "title": str, "source": str, "seeds": list, "cells": list},
              {"corpus": str, "model": str, "note": str, "metrics": dict, "references": list}),
    "cross": ({"experiment": str, "corpora": list, "models": list, "seeds": list, "cells": list},
              {"model": str, "train_corpus": str, "test_corpus": str, "metrics": dict}),
    "benchmark": ({"experiment": str, "model": str, "seeds": list, "method": str, "missing": list, "cells": list},
                  {"experiment": str, "cell": str, "metric": str, "candidate": dict, "classics": list, "of": int}),
    "fidelity": ({"experiment": str, "title": str, "cells": list}, {"model": str, "paper": dict, "protocols": dict}),
    "elements": ({"experiment": str, "title": str, "as_written": str, "inputs": dict, "cells": list},
                 {"corpus": str, "model": str, "element": str, "measured": bool}),
    "leaderboard": ({"experiment": str, "entrants": list, "groups": list, "cells": list, "tests": int},
                    {"group": int, "experiment": str, "cell": str, "metric": str, "floors": dict, "rows": list}),
}
#: A metric's summary over runs (a table's or cross cell's ``metrics`` values).
SUMMARY = {"mean": _NUMBER, "std": _NUMBER, "values": list}
#: A cross file's floors: every test corpus' scores when every text is labelled sarcastic, or its majority class.
FLOORS = ("all_sarcastic", "majority")
#: A published number beside a table cell (its ``references``).
REFERENCE = {"label": str, "metric": str, "value": _NUMBER}


#: The committed results files (docs/results), the last place :class:`ResultsFiles` looks.
COMMITTED = SHIPPED.parent
#: The committed folder, under :data:`COMMITTED`, of the results the elements and fidelity reports read beside
#: the tables: each single element of the authors' code and the two protocols that put them together.
ELEMENTS = "elements"


#: Where a results file goes when a later invocation writes the same experiment's results.
PREVIOUS = "previous"


def require_kind(result: Result, kind: str, use: str) -> None:
    """One line when ``result`` is not of ``kind``: ``use`` (say, ``--selection``) reads only that kind."""
    if result.kind != kind:
        raise IsarcasmError(f"{use} reads {kind} results; '{result.experiment}' is a {result.kind} results file")


def checked(data, source: str, retired: bool = False) -> dict:
    """A results file's top level ``data`` (read from ``source``), when it is of this version and its kind's
    shape; else one line saying what is wrong.  One made by what left the suite (:func:`retired_results`) is
    that line too, unless ``retired``: read only to set its seeds beside today's (the distribution criterion),
    never as today's results."""
    if not isinstance(data, dict):
        raise IsarcasmError(f"{source}: not a results file (a JSON {type(data).__name__}, not an object)")
    version = data.get("schema_version")
    if version is None:
        raise IsarcasmError(f"{source}: written before results files carried a schema version, which this isarcasm "
                            "no longer reads; run the command that made it again")
    if not isinstance(version, int) or version < 0:
        raise IsarcasmError(f"{source}: schema_version {version!r} is not a version number")
    if version > SCHEMA_VERSION:
        raise IsarcasmError(f"{source}: written by a newer isarcasm (results schema {version}; this one reads up to "
                            f"{SCHEMA_VERSION}): upgrade isarcasm")
    if not retired and (gone := retired_results(data)):
        raise RetiredResults(rerun_at(f"{source}: {gone}", f"`isarcasm report {data.get('experiment', 'NAME')}`"))
    kind = data.get("kind")
    if kind not in REQUIRED:
        raise IsarcasmError(f"{source}: unknown kind of results {kind!r} (known: {', '.join(REQUIRED)})")
    top, per_cell = REQUIRED[kind]
    wrong = _malformed(data, top)
    if wrong:
        raise IsarcasmError(f"{source}: not a {kind} results file this version can read (missing or malformed: "
                            f"{', '.join(wrong)}); run the command that made it again")
    for number, cell in enumerate(data["cells"], start=1):
        wrong = _malformed(cell, per_cell) or _malformed_parts(cell, per_cell)
        if wrong:
            raise IsarcasmError(f"{source}: cell {number} lacks or has malformed {', '.join(wrong)}; run the command "
                                "that made it again")
        not_scores = _not_finite(cell, per_cell)
        if not_scores:
            raise IsarcasmError(f"{source}: cell {number}: {', '.join(not_scores)} holds NaN or an infinity where a "
                                "score is expected (an edited file? a run that failed is never averaged in); run the "
                                "command that made it again")
        out_of_range = _out_of_range(cell, per_cell)
        if out_of_range:
            raise IsarcasmError(f"{source}: cell {number}: {out_of_range}; the file is damaged: run the command that "
                                "made it again")
    floors = recorded_problem({name: data[name] for name in FLOORS if isinstance(data.get(name), dict)})
    if floors:
        raise IsarcasmError(f"{source}: {floors}; the file is damaged: run the command that made it again")
    return data


def load_results(path: Path, retired: bool = False) -> Result:
    """The results file at ``path``, checked (:func:`checked`; or one line saying why not).  Nothing is
    written: of a set whose commit a kill interrupted, the file the commit decided is read (the next writer
    completes the commit).  ``retired``: as :func:`checked`."""
    try:
        text = results_text(Path(path))
    except FileNotFoundError:
        raise IsarcasmError(f"{path}: no such results file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise IsarcasmError(f"{path}: cannot read the results file ({exc})") from None
    try:
        data = json_value(text, path)
    except json.JSONDecodeError as exc:
        raise IsarcasmError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno}); run the command that made it "
                            "again") from None
    return Result.from_dict(checked(data, str(path), retired))


@dataclass
class ResultsFiles:
    """Where a report finds a results file by name: the results folder (what was made here), then the committed
    results of docs/results, where each name is one file (at its top level or in its :data:`ELEMENTS` folder).
    So a fresh clone's ``report table7 --fidelity`` reads the inputs the committed report was made from,
    without --results-dir.  ``found``: where each file found outside the folder came from, for the report to say."""

    folder: Path
    committed: Path = COMMITTED
    found: dict = field(default_factory=dict)

    def find(self, name: str) -> Result | None:
        """Results ``name``, checked (:func:`load_results`); None where neither place has it."""
        path = self.folder / f"{name}.json"
        if path.is_file():
            return load_results(path)
        for path in (self.committed / f"{name}.json", self.committed / ELEMENTS / f"{name}.json"):
            if path.is_file():
                result = load_results(path)
                self.found[name] = str(path)
                return result
        return None

    def missing(self, name: str) -> str:
        """One line for results ``name`` that :meth:`find` did not find: where it looked, and how to make them."""
        return (f"no results '{name}' in {self.folder}/ nor in the committed {self.committed}/ (run `isarcasm "
                f"reproduce {name}` first")


class RetiredResults(IsarcasmError):
    """A results file made by what left the suite (:func:`retired_results`): one line naming the commit that has it."""


def retired_results(data: dict) -> str:
    """'' for results this suite makes; else what left the suite made them: the exact engine, another test
    set (:func:`~experiments.runs.one.protocol.retired`), or a rescoring on padded splits (``report
    --padded-batches``, a diagnostic).  ``data``: a results file's top level as read (checked or not), or a
    result's :meth:`~experiments.results.schema.Result.to_dict`."""
    train = data.get("train")
    if isinstance(train, dict) and (gone := retired(train)):
        return gone
    return "rescored on padded validation and test splits (report --padded-batches, a diagnostic)" \
        if data.get("padded_batches") else ""


def write_result_files(result: Result, results_root: Path, csv_text: str | None, markdown: str,
                       figures: Callable[[Path], list[Path]] | None = None) -> list[Path]:
    """``<results_root>/<experiment>.{json,csv,md}`` (no csv when ``csv_text`` is None) and the figures
    ``figures(folder)`` draws into ``<experiment>/``, committed as one set (see
    :mod:`experiments.results.commit`): a kill leaves the previous set or this one, never a mix.

    Results an earlier invocation wrote there are never replaced silently:
    they are first kept in ``<results_root>/previous/`` under their time
    stamp (they hold, e.g., the wall time of the invocation that trained the
    runs a later one reused), and a line on stderr says so (not under ``-q``).
    """
    name = safe_name(result.experiment, "experiment")
    files = {f"{name}.json": json_text(result.to_dict()),
             f"{name}.csv": csv_text, f"{name}.md": markdown}
    with commit.staging(results_root, name) as folder:
        for file, text in files.items():
            if text is not None:
                write_text(folder / file, text)
        drawn = figures(folder / name) if figures else []
        stamp = _stamp(results_root / f"{name}.json")
        keep = {file: f"{PREVIOUS}/{Path(file).stem}-{stamp}{Path(file).suffix}" for file in files
                if stamp and (results_root / file).is_file()}
        steps = commit.plan(results_root, folder, keep, [file for file in keep if files[file] is None])
        commit.commit(results_root, name, folder, steps)
    if keep and chatty():  # -q: results and errors only
        print(f"earlier {name} results moved to {results_root / PREVIOUS}/ (suffix -{stamp})", file=sys.stderr)
    return [results_root / file for file, text in files.items() if text is not None] + \
        [results_root / path.relative_to(folder) for path in drawn]


def _stamp(current: Path) -> str | None:
    """The suffix a current results file is kept under: when it was written (``-2``, ``-3``... after it when
    a set of the same second is kept already); None when there is no current file."""
    if not current.is_file():
        return None
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(current.stat().st_mtime))
    for suffix in itertools.chain([stamp], (f"{stamp}-{n}" for n in itertools.count(2))):
        if not (current.parent / PREVIOUS / f"{current.stem}-{suffix}{current.suffix}").exists():
            return suffix


def results_text(path: Path) -> str:
    """The text of results file ``path`` as its set's commit decided it (see
    :func:`experiments.results.commit.decided`)."""
    source = commit.decided(path.parent, path.stem, path.name)
    try:
        return source.read_text(encoding="utf-8")
    except FileNotFoundError:
        if source == path:
            raise
        return path.read_text(encoding="utf-8")  # a writer finished the commit meanwhile: the file is in place


def _malformed(value, shape: dict) -> list[str]:
    """The keys of ``shape`` that ``value`` lacks or holds with another JSON type (everything, for a non-object)."""
    if not isinstance(value, dict):
        return list(shape)
    return [key for key, kind in shape.items() if not isinstance(value.get(key), kind)]


def _undefined(summary) -> bool:
    """A summary of a score its test split leaves undefined, as a cross file records it: why, and no numbers."""
    return (isinstance(summary, dict) and isinstance(summary.get("undefined"), str)
            and (summary.get("mean"), summary.get("std"), summary.get("values")) == (None, None, []))


def _malformed_parts(cell: dict, per_cell: dict) -> list[str]:
    """The metric summaries and references of a cell (of a kind that has them) not of their shape, named as
    ``metrics.f1_macro`` and ``references[0]``."""
    metrics = cell["metrics"].items() if "metrics" in per_cell else ()
    references = enumerate(cell["references"]) if "references" in per_cell else ()
    return ([f"metrics.{name}" for name, summary in metrics if not _undefined(summary) and _malformed(summary, SUMMARY)]
            + [f"references[{i}]" for i, reference in references if _malformed(reference, REFERENCE)])


def _not_finite(cell: dict, per_cell: dict) -> list[str]:
    """The metric summaries of a cell whose mean, std or a run's value is NaN or infinite, which Python's JSON
    reader accepts and a report would print as ``nan``: no run's score is (a failed run is never averaged
    in).  Benchmark cells carry no summaries; their p-values may be NaN."""
    metrics = cell["metrics"].items() if "metrics" in per_cell else ()
    return [f"metrics.{name}" for name, summary in metrics
            if any(isinstance(number, float) and not math.isfinite(number)
                   for number in (summary.get("mean"), summary.get("std"), *summary.get("values", ())))]


def _out_of_range(cell: dict, per_cell: dict) -> str | None:
    """The first metric summary (a benchmark cell's: the candidate's and each compared model's) or published
    number of a cell outside its score's range (:data:`~experiments.runs.one.metrics.RANGES`), which a report
    would print as a score; None when none is."""
    metrics = cell["metrics"].items() if "metrics" in per_cell else ()
    if "candidate" in per_cell:
        metrics = [(cell["metric"], row) for row in (cell["candidate"], *cell["classics"]) if isinstance(row, dict)]
    references = cell["references"] if "references" in per_cell else ()
    return next(filter(None, [*(summary_problem(name, summary) for name, summary in metrics if not _undefined(summary)),
                              *(value_problem(r["metric"], r["value"]) for r in references)]), None)
