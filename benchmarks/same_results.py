"""Does every results file still hold the same numbers?  Compare docs/results at a commit with the working tree.

A change that moves, renames or upgrades the committed results files must leave their numbers as
they were.  This script reads every results file (``docs/results/**/*.json``, not the run sets under
``docs/results/runs/``) as it stands at the BEFORE commit (with ``git show``, so no snapshot is
needed) and the same file in the working tree, and compares every cell.

A BEFORE file is found in the working tree at its own path; else under ``docs/results/archive/``
(any depth) by its name; where several share the name, the one whose path ends in the same path
under docs/results, else the one ``git diff -M`` says it was renamed to; else where ``git diff -M``
says it was renamed to.  A file found nowhere is missing.

Compared: every number (and true/false and null) of the file, each seed list and each value per
seed among them, each found by its path in the document; an item of a list of records (a cell, a
per-class score, a reference row) is named by its identity fields (:data:`IDENTITY`: corpus, model,
train and test corpus, element, ...), so a list in another order is the same.  Not compared
(:data:`IGNORED`): what records how or where a file was made rather than what it found (commits,
times, machine, versions, commands, run folders, titles, notes, the settings block).  A newer
schema may add fields, and may rename one when the renamed field holds the same numbers.

Usage::

    python benchmarks/same_results.py [--before COMMIT] [--repo DIR]

Prints one line per file (same / N differences / missing) and ``N files, M cells, K numbers
compared: D differences``.  Exit status: 0 when nothing differs, 1 when a number differs or a file
is missing, 2 on bad input (one line on stderr).
"""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

from preprocessing.errors import IsarcasmError

RESULTS = "docs/results"
#: Run sets, not results: their bytes are kept as they are, so they need no comparison.
RUN_SETS = f"{RESULTS}/runs/"
ARCHIVE = f"{RESULTS}/archive/"
BEFORE = "e853916"
#: Fields that name a record in a list of records, in the order they make its name.
IDENTITY = ("corpus", "train_corpus", "test_corpus", "model", "element", "cell", "experiment", "group",
            "role", "metric", "label", "method", "entrant", "seed", "fold")
#: Fields that say how, when or where a result was made, not what it found.
IGNORED = frozenset({
    "git_commit", "cpu", "cpu_id", "cores", "machine", "platform", "versions", "command", "runs", "run_origins",
    "title", "note", "why", "description", "source", "sources", "file", "started", "load", "jobs", "train",
    "options", "shown_metrics", "reused_runs", "parts", "results", "schema_version",
    "train_seconds", "wall_seconds", "compute_seconds", "setup_seconds", "reselect_seconds",
    "predict_texts_per_second", "peak_memory_mb"})
#: How many differences of a file are printed under its line.
SHOWN = 5


def leaves(document, path: tuple = ()) -> dict[tuple, object]:
    """Every compared leaf of ``document`` (numbers, booleans and nulls) by its path, the fields of
    :data:`IGNORED` left out; strings are names, not results, and name records in the path."""
    found = {}
    if isinstance(document, dict):
        for key, value in document.items():
            if key not in IGNORED:
                found.update(leaves(value, path + (key,)))
    elif isinstance(document, list):
        for key, item in zip(_item_keys(document), document):
            found.update(leaves(item, path + (key,)))
    elif document is None or isinstance(document, (bool, int, float)):
        found[path] = document
    return found


def _item_keys(items: list) -> list:
    """A list's items' names: a record's identity fields (``corpus=isarcasm,model=lstm``) where they name
    each record once, else its position."""
    if items and all(isinstance(item, dict) for item in items):
        names = [",".join(f"{field}={item[field]}" for field in IDENTITY
                          if isinstance(item.get(field), (str, int)) or field in item and item[field] is None)
                 for item in items]
        if all(names) and len(set(names)) == len(names):
            return names
    return list(range(len(items)))


def cells(document) -> int:
    """The records of the document's compared top-level lists of records (its cells, rows, classics ...)."""
    return sum(len(value) for key, value in document.items() if key not in IGNORED
               and isinstance(value, list) and value and all(isinstance(item, dict) for item in value))


def differences(before: dict, after: dict) -> tuple[list[str], int]:
    """(each difference, one line; the numbers compared) of two documents' leaves.  A field of BEFORE
    absent from AFTER is renamed when one new field of the same parent holds exactly its leaves."""
    old, new = leaves(before), leaves(after)
    renamed = _renames(old, new)
    found = []
    for path, value in old.items():
        target = _renamed_path(path, renamed)
        if target not in new:
            found.append(f"{_written(path)}: {value!r} before, absent after")
        elif not _same(value, new[target]):
            found.append(f"{_written(path)}: {value!r} before, {new[target]!r} after")
    return found, len(old)


def _renames(old: dict, new: dict) -> dict[tuple, tuple]:
    """{old field: new field} for each field absent after whose leaves all stand under one new sibling."""
    present = {path[:depth] for path in new for depth in range(len(path) + 1)}
    before = {path[:depth] for path in old for depth in range(len(path) + 1)}
    gone = {next(path[:depth] for depth in range(1, len(path) + 1) if path[:depth] not in present)
            for path in old.keys() - new.keys()}
    renamed = {}
    for field in sorted(gone, key=_written):
        mine, parent = _under(old, field), field[:-1]
        for sibling in sorted({path for path in present if len(path) == len(field) and path[:-1] == parent}
                              - before, key=_written):
            theirs = _under(new, sibling)
            if theirs.keys() == mine.keys() and all(_same(mine[k], theirs[k]) for k in mine):
                renamed[field] = sibling
                break
    return renamed


def _under(found: dict, field: tuple) -> dict:
    """The leaves under ``field``, by their path below it."""
    return {path[len(field):]: value for path, value in found.items() if path[:len(field)] == field}


def _renamed_path(path: tuple, renamed: dict) -> tuple:
    for field, target in renamed.items():
        if path[:len(field)] == field:
            return target + path[len(field):]
    return path


def _same(a, b) -> bool:
    """Equal values of one kind (a number is no boolean); two NaNs are the same."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a is b
    return a == b or (math.isnan(a) and math.isnan(b))


def _written(path: tuple) -> str:
    return "/".join(f"[{part}]" if isinstance(part, int) else str(part) for part in path)


# --- the files ----------------------------------------------------------------------------------------

def git(repo: Path, *arguments: str) -> str:
    done = subprocess.run(["git", *arguments], cwd=repo, capture_output=True, text=True)
    if done.returncode:
        raise IsarcasmError(f"git {' '.join(arguments)}: {done.stderr.strip().splitlines()[-1:] or ['failed']}"
                            "; run it in a clone of the project, naming a commit it has")
    return done.stdout


def results_files(names) -> list[str]:
    return sorted(name for name in names
                  if name.startswith(f"{RESULTS}/") and name.endswith(".json") and not name.startswith(RUN_SETS))


def after_path(before: str, present: set[str], renames: dict[str, str]) -> str | None:
    """Where BEFORE's file is in the working tree (see the module), None when nowhere."""
    if before in present:
        return before
    name, relative = Path(before).name, before[len(RESULTS) + 1:]
    archived = [path for path in present if path.startswith(ARCHIVE) and Path(path).name == name]
    renamed = renames.get(before)
    if len(archived) > 1:
        archived = [path for path in archived if path.endswith(f"/{relative}")]
        archived = [renamed] if renamed in archived else archived
        if len(archived) != 1:
            raise IsarcasmError(f"{before}: {len(archived) or 'several'} files named {name} under {ARCHIVE}, and "
                                "neither their paths nor git's renames tell which one it became; keep their names "
                                "apart")
    if archived:
        return archived[0]
    return renamed if renamed in present else None


def git_renames(repo: Path, commit: str) -> dict[str, str]:
    """{path at ``commit``: its path now} of the renames git finds between them (staged or committed)."""
    renames = {}
    for line in git(repo, "diff", "-M", "-l0", "--name-status", commit, "--", RESULTS).splitlines():
        status, *paths = line.split("\t")
        if status.startswith("R"):
            renames[paths[0]] = paths[1]
    return renames


def compare_all(repo: Path, commit: str, out=print) -> dict[str, int]:
    """Print a line per BEFORE file; the counts of files, cells, numbers, differences and missing files."""
    befores = results_files(git(repo, "ls-tree", "-r", "--name-only", commit, "--", RESULTS).splitlines())
    if not befores:
        raise IsarcasmError(f"{commit} has no results file under {RESULTS}; name the commit before the change")
    present = set(results_files(path.relative_to(repo).as_posix() for path in (repo / RESULTS).rglob("*.json")))
    renames = git_renames(repo, commit)
    counts = dict.fromkeys(("files", "cells", "numbers", "differences", "missing"), 0)
    for before in befores:
        after = after_path(before, present, renames)
        if after is None:
            out(f"{before}: missing")
            counts["missing"] += 1
            continue
        old = json.loads(git(repo, "show", f"{commit}:{before}"))
        found, compared = differences(old, json.loads((repo / after).read_text()))
        counts["files"] += 1
        counts["cells"] += cells(old)
        counts["numbers"] += compared
        counts["differences"] += len(found)
        out(f"{before if after == before else f'{before} -> {after}'}: "
            f"{f'{len(found)} differences' if found else 'same'}")
        for line in found[:SHOWN]:
            out(f"    {line}")
        if len(found) > SHOWN:
            out(f"    ... and {len(found) - SHOWN} more")
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE, help=f"the commit before the change (default {BEFORE})")
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="the clone whose working tree is compared")
    args = parser.parse_args(argv)
    try:
        repo = Path(git(args.repo, "rev-parse", "--show-toplevel").strip())
        counts = compare_all(repo, args.before)
    except (IsarcasmError, OSError, json.JSONDecodeError) as exc:
        print(f"same_results: {exc}", file=sys.stderr)
        return 2
    print(f"{counts['files']} files, {counts['cells']} cells, {counts['numbers']} numbers compared: "
          f"{counts['differences']} differences" + (f", {counts['missing']} files missing" if counts["missing"] else ""))
    return 1 if counts["differences"] or counts["missing"] else 0


if __name__ == "__main__":
    sys.exit(main())
