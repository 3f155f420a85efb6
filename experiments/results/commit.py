"""A results set, committed as a whole: after a kill at any point, the previous set or the new one is complete.

An experiment's results are several files (``<experiment>.json``, ``.csv``, ``.md`` and, for some kinds,
figures in ``<experiment>/``), and one rename per file cannot replace them together: a kill between two
renames would leave a ``.json`` without its ``.csv`` and ``.md``, or no current results and a temporary file
that no rerun removes.  So a set is written like a database writes a transaction:

1. every new file is written into a staging folder, ``.<experiment>.staging-XXXX`` beside the results;
2. a journal, ``.<experiment>.commit.json``, lists the steps that install them (keep the previous files in
   ``previous/``, put each new file in place, drop a file the new set has not), and is renamed into place:
   from that moment the new set is decided;
3. the steps run, the staging folder and the journal are removed.

Writers of one set take turns (``.<experiment>.lock``, an flock, stays beside the results like a run's claim).

Every step can run twice with the same outcome, so every writer of a set, first (in :func:`staging`, under
the set's lock), finishes a journal a kill left (the new set), or removes a staging folder without one (the
previous set stays as it was).  A reader writes nothing (its folder may be read-only, or another user's): it reads
each file where :func:`decided` finds the set the journal decided, staged or in place.
"""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from preprocessing.fileio import load_json

_JOURNAL = ".{name}.commit.json"
_STAGING = ".{name}.staging-"
_LOCK = ".{name}.lock"


@contextmanager
def staging(root: Path, name: str) -> Iterator[Path]:
    """A fresh staging folder for set ``name`` in ``root``, held under the set's lock (two sweeps writing
    the same experiment's results take turns).  On an error or Ctrl-C it is removed, or, past the commit
    point, the commit finished; a kill leaves it to the next writer."""
    root.mkdir(parents=True, exist_ok=True)
    with _locked(root, name):
        _recover(root, name)
        folder = Path(tempfile.mkdtemp(prefix=_STAGING.format(name=name), dir=root))
        try:
            yield folder
        except OSError as exc:  # a full disk while staging: name the file the user will look for
            if exc.filename and Path(exc.filename).parent == folder:
                exc.filename = str(root / Path(exc.filename).name)
            raise
        finally:
            _recover(root, name)


def commit(root: Path, name: str, folder: Path, steps: list[list[str]]) -> None:
    """Install the set staged in ``folder`` by ``steps`` (see :func:`plan`): journal first, then the steps."""
    journal = root / _JOURNAL.format(name=name)
    written = folder / journal.name
    written.write_text(json.dumps({"staging": folder.name, "steps": steps}), encoding="utf-8")
    _sync(written)
    os.replace(written, journal)  # the commit point: from here on, the new set is the one a writer completes
    _finish(root, journal)


def plan(root: Path, folder: Path, keep: dict[str, str], drop: list[str]) -> list[list[str]]:
    """The steps that install every file staged in ``folder`` (paths relative to ``root``): first ``keep``
    (current file -> its place in ``previous/``, as a hard link or copy: the current file stays until the
    new one replaces it), then ``drop`` (current files the new set has not), then every staged file put."""
    staged = sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file())
    return ([["keep", current, kept] for current, kept in keep.items()] + [["drop", path] for path in drop]
            + [["put", f"{folder.name}/{path}", path] for path in staged])


def decided(root: Path, name: str, path: str) -> Path:
    """Where file ``path`` (relative to ``root``) of set ``name`` is read without writing: the staged file a
    journal a kill left is still to put there, else the file in place.  (A writer finishing the journal meanwhile
    moves the staged file into place: read that on a ``FileNotFoundError``.)"""
    try:
        steps = load_json(root / _JOURNAL.format(name=name))["steps"]
    except (OSError, ValueError):  # no journal (the usual case), or one this reader may not read
        return root / path
    staged = [root / step[1] for step in steps if step[0] == "put" and step[2] == path]
    return staged[0] if staged and staged[0].is_file() else root / path


@contextmanager
def _locked(root: Path, name: str) -> Iterator[None]:
    """The set's lock, ``.<name>.lock`` (flock: a killed holder frees it)."""
    with open(root / _LOCK.format(name=name), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _recover(root: Path, name: str) -> None:
    journal = root / _JOURNAL.format(name=name)
    if journal.is_file():
        _finish(root, journal)
    for stray in root.glob(_STAGING.format(name=name) + "*"):
        shutil.rmtree(stray, ignore_errors=True)


def _finish(root: Path, journal: Path) -> None:
    record = load_json(journal)
    for step in record["steps"]:
        _STEPS[step[0]](root, *step[1:])
    shutil.rmtree(root / record["staging"], ignore_errors=True)
    journal.unlink(missing_ok=True)


def _keep(root: Path, current: str, kept: str) -> None:
    source, target = root / current, root / kept
    if target.exists() or not source.is_file():  # kept already (a replayed step), or nothing to keep
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:  # a file system without hard links
        partial = target.with_name(f".{target.name}.partial")
        shutil.copy2(source, partial)
        os.replace(partial, target)


def _drop(root: Path, path: str) -> None:
    (root / path).unlink(missing_ok=True)


def _put(root: Path, staged: str, path: str) -> None:
    source = root / staged
    if source.is_file():  # else put already (a replayed step)
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        os.replace(source, root / path)


_STEPS = {"keep": _keep, "drop": _drop, "put": _put}


def _sync(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())
