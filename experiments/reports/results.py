"""Results files: one version number, one loader.

Every results file a study writes (``results/<experiment>.json``) carries its ``kind`` (table,
cross, benchmark, fidelity: :mod:`experiments.reports.kinds`) and a ``schema_version``.  Every
command that reads one goes through :func:`load_results`, which upgrades an older file or
refuses it with one line, so a report never fails deep inside with a ``KeyError``.

Version history:

- 0: files written before results carried a version (until 2026-11-25); a table's file had no
  ``kind``.  Upgraded by naming the kind.
- 1: ``kind`` and ``schema_version`` in every file; a table cell may carry ``thresholds`` and a
  results file a ``selection`` rule (experiments/runs/trajectory.py); a table cell ``failed_runs``
  and a cross or benchmark file ``failed_runs`` (runs whose training diverged, averaged nowhere;
  absent in older files, which is read as none).
"""
from __future__ import annotations

import json
from pathlib import Path

from experiments.runs.results_set import decided
from preprocessing.errors import IsarcasmError

SCHEMA_VERSION = 1
#: What each kind's readers rely on: top-level keys, and the keys of every cell.
REQUIRED = {
    "table": (("experiment", "title", "source", "seeds", "cells"), ("corpus", "model", "metrics", "references")),
    "cross": (("experiment", "corpora", "models", "seeds", "cells"), ()),
    "benchmark": (("experiment", "model", "cells"), ()),
    "fidelity": (("experiment", "title", "cells"), ("model", "paper", "protocols")),
}


def stamped(result: dict) -> dict:
    """``result`` as the current version writes it."""
    return {**result, "kind": result.get("kind", "table"), "schema_version": SCHEMA_VERSION}


def upgrade(result, source: str) -> dict:
    """A results dict of any known version as the current version reads it; else one line."""
    if not isinstance(result, dict):
        raise IsarcasmError(f"{source}: not a results file (a JSON {type(result).__name__}, not an object)")
    version = result.get("schema_version", 0)
    if not isinstance(version, int) or version < 0:
        raise IsarcasmError(f"{source}: schema_version {version!r} is not a version number")
    if version > SCHEMA_VERSION:
        raise IsarcasmError(f"{source}: written by a newer isarcasm (results schema {version}; this one reads up to "
                            f"{SCHEMA_VERSION}): upgrade isarcasm")
    if version == 0:
        result = stamped(result)
    kind = result["kind"]
    if kind not in REQUIRED:
        raise IsarcasmError(f"{source}: unknown kind of results {kind!r} (known: {', '.join(REQUIRED)})")
    top, per_cell = REQUIRED[kind]
    missing = [key for key in top if key not in result]
    cells = result.get("cells")
    if missing or not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
        raise IsarcasmError(f"{source}: not a {kind} results file this version can read (missing or malformed: "
                            f"{', '.join(missing) or 'cells'}); run the command that made it again")
    for number, cell in enumerate(cells, start=1):
        absent = [key for key in per_cell if key not in cell]
        if absent:
            raise IsarcasmError(f"{source}: cell {number} lacks {', '.join(absent)}; run the command that made it again")
    return result


def load_results(path: Path) -> dict:
    """The results file at ``path``, upgraded to the current version (or one line saying why not).  Nothing is
    written: of a set whose commit a kill interrupted, the file the commit decided is read (the next writer
    completes the commit)."""
    try:
        text = _text(Path(path))
    except FileNotFoundError:
        raise IsarcasmError(f"{path}: no such results file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise IsarcasmError(f"{path}: cannot read the results file ({exc})") from None
    try:
        result = json.loads(text)
    except json.JSONDecodeError as exc:
        raise IsarcasmError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno}); run the command that made it "
                            "again") from None
    return upgrade(result, str(path))


def _text(path: Path) -> str:
    """The text of results file ``path`` as its set's commit decided it (see
    :func:`experiments.runs.results_set.decided`)."""
    source = decided(path.parent, path.stem, path.name)
    try:
        return source.read_text(encoding="utf-8")
    except FileNotFoundError:
        if source == path:
            raise
        return path.read_text(encoding="utf-8")  # a writer finished the commit meanwhile: the file is in place
