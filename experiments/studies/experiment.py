"""Declarative experiment files (TOML): which cells to run and what to compare them with.

A cell is a (corpus, model) pair with optional reference numbers:
``published = {metric, value, source}`` and ``isarcasm_impl = {metric: value, ...}``.
Experiments ship in ``experiments/studies/tables/`` (``table6``, ``table7``); a path
to any TOML file with the same layout works too.  A file that ``extends`` another
(``table7-authors-code`` extends ``table7``) is that experiment under other training
settings: it takes every key it does not set from the other file, and its ``[train]``
table updates the other's.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from experiments.runs.one.metrics import METRICS
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.one.store import safe_name
from preprocessing.errors import IsarcasmError, shown
from preprocessing.fileio import require_file, toml_value
from preprocessing.limits import MAX_SEEDS
from preprocessing.schema import nearest

TABLES = Path(__file__).resolve().parent / "tables"
HUMAN = "manual-labelling"

#: What an experiment file may hold, each key with its type, declared once: the file's top level, a
#: cell, a cell's ``published`` table (the ``[train]`` table's keys are TrainConfig's fields).  Any
#: other key, in any case, is refused in one line with the nearest known name: a key that is read
#: nowhere would leave a results file that looks as if it had been used.
FILE_KEYS = {"name": str, "title": str, "source": str, "metrics": list, "cells": list, "train": dict, "extends": str,
             "corpora": list, "seeds": int}
CELL_KEYS = {"corpus": str, "model": str, "note": str, "folds": bool, "published": dict, "isarcasm_impl": dict}
PUBLISHED_KEYS = {"metric": str, "value": float, "source": str}
#: Keys that name a command-line option rather than anything a file sets.
COMMAND_LINE = {"seed": "--seeds", "models": "--models"}
#: A training setting's names (its field's, its option's: ``lr``) -> its key in the [train] table, which
#: sets it for every cell.
TRAIN_NAMES = {"lr": "learning_rate", **{f.name: f.name for f in fields(TrainConfig)}}


@dataclass(frozen=True)
class Reference:
    label: str   # "published" or "iSarcasm impl."
    metric: str
    value: float
    source: str = ""


@dataclass(frozen=True)
class Cell:
    corpus: str
    model: str
    references: tuple[Reference, ...] = ()
    note: str = ""
    #: Run every official cross-validation fold of the corpus (MUStARD's five) instead of its splits.
    folds: bool = False

    @property
    def key(self) -> str:
        return f"{self.corpus}/{self.model}"

    @property
    def is_human(self) -> bool:
        return self.model == HUMAN


@dataclass(frozen=True)
class Experiment:
    name: str
    title: str
    source: str
    cells: tuple[Cell, ...] = field(default_factory=tuple)
    #: Training settings this experiment's protocol changes from the paper's (its ``[train]`` table).
    train: tuple[tuple[str, object], ...] = ()
    #: Metrics the report shows for every cell, besides the references' and the F1s (``metrics = [...]``).
    metrics: tuple[str, ...] = ()
    #: Seeds per cell when the command gives no ``--seeds`` (``seeds = N``; None: the command's default).
    seeds: int | None = None

    def protocol(self) -> TrainConfig:
        """The training settings of this experiment's faithful runs."""
        return TrainConfig(**dict(self.train))

    def select(self, models: list[str] | None = None, corpora: list[str] | None = None) -> "Experiment":
        """Only the cells whose model and corpus are listed (None keeps all)."""
        for wanted, present, kind in ((models, {c.model for c in self.cells}, "model"),
                                      (corpora, {c.corpus for c in self.cells}, "corpus")):
            unknown = sorted(set(wanted or ()) - present)
            if unknown:
                raise IsarcasmError(f"{self.name} has no cell with {kind} {', '.join(unknown)} "
                                    f"(its {kind}s: {', '.join(sorted(present))})")
        cells = tuple(c for c in self.cells
                      if (not models or c.model in models) and (not corpora or c.corpus in corpora))
        return replace(self, cells=cells)


def available() -> list[str]:
    return sorted(p.stem for p in TABLES.glob("*.toml"))


def load_experiment(name_or_path: str, _extending: tuple[Path, ...] = ()) -> Experiment:
    """The experiment of a shipped file's name or of a path to a .toml file (``_extending``: the files
    that extend it, so a file that comes back to itself is refused rather than read forever)."""
    path = _path(name_or_path)
    if path.resolve() in _extending:
        raise IsarcasmError(f"{path}: 'extends' comes back to this file ({' -> '.join(map(str, _extending))})")
    try:
        raw = toml_value(path.read_text(encoding="utf-8"), path)
    except OSError as exc:
        raise IsarcasmError(f"{path}: cannot read the experiment file ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise IsarcasmError(f"{path}: not a valid TOML file ({exc})") from None
    where = str(path)
    _known_keys(where, raw, FILE_KEYS)
    base = (load_experiment(_typed(where, raw, "extends", str, ""), (*_extending, path.resolve()))
            if "extends" in raw else None)
    cells = tuple(_cell(path, i, c) for i, c in enumerate(_typed(where, raw, "cells", list, []), start=1))
    cells = _of_corpora(path, cells or (base.cells if base else ()), raw.get("corpora"))
    if not cells:
        raise IsarcasmError(f"{path}: no [[cells]] listed")
    _no_repeated_cell(path, cells)
    name = _typed(where, raw, "name", str, path.stem)
    safe_name(name, f"{path}: experiment name")  # it names folders and files of the stores
    inherited = base or Experiment(name, path.stem, "")
    metrics, seeds = raw.get("metrics"), raw.get("seeds", inherited.seeds)
    if seeds is not None and (isinstance(seeds, bool) or not 1 <= seeds <= MAX_SEEDS):
        raise IsarcasmError(f"{path}: 'seeds' must be a whole number from 1 to {MAX_SEEDS:,}, not {seeds!r}")
    return Experiment(name, _typed(where, raw, "title", str, inherited.title),
                      _typed(where, raw, "source", str, inherited.source), cells,
                      _train(path, {**dict(inherited.train), **_typed(where, raw, "train", dict, {})}),
                      inherited.metrics if metrics is None else
                      tuple(_metric(f"{path}: metrics", m) for m in _typed(where, raw, "metrics", list, [])),
                      seeds)


def _of_corpora(path: Path, cells: tuple["Cell", ...], corpora: list | None) -> tuple["Cell", ...]:
    """The cells of the corpora a file lists (``corpora = [...]``: its study covers only those); all without."""
    if corpora is None:
        return cells
    present = {cell.corpus for cell in cells}
    unknown = [corpus for corpus in corpora if corpus not in present]
    if unknown:
        raise IsarcasmError(f"{path}: corpora: no cell of {', '.join(map(repr, unknown))} "
                            f"(its corpora: {', '.join(sorted(present))})")
    return tuple(cell for cell in cells if cell.corpus in corpora)


def _path(name_or_path: str) -> Path:
    """The file of an experiment's name (a shipped one) or of a path to a .toml file."""
    path = Path(name_or_path)
    if path.suffix != ".toml":
        path = TABLES / f"{name_or_path}.toml"
        if not path.is_file():
            raise IsarcasmError(f"unknown experiment '{name_or_path}' (known: {', '.join(available())}, "
                                "or a path to a .toml file)")
    require_file(path, f"{path}: experiment file not found")
    return path


def _known_keys(where: str, raw: dict, declared: dict[str, type]) -> None:
    """Every key of ``raw`` is one of ``declared`` and holds its type; else one line naming the key and
    what to write instead."""
    for key in raw:
        if key in declared:
            _typed(where, raw, key, declared[key], None)
            continue
        normal, named = str(key).lower().replace("-", "_"), shown(str(key))
        if normal in COMMAND_LINE:
            raise IsarcasmError(f"{where}: '{named}' is not read from an experiment file; give it on the command "
                                f"line ({COMMAND_LINE[normal]})")
        if normal in TRAIN_NAMES:
            raise IsarcasmError(f"{where}: '{named}' is a training setting; put it in the file's [train] table as "
                                f"{TRAIN_NAMES[normal]} (it applies to every cell)")
        raise IsarcasmError(f"{where}: unknown key '{named}' ({shown(nearest(key, declared))})")


def _typed(where: str, raw: dict, key: str, kind: type, default):
    """``raw[key]`` when it is a ``kind`` (``default`` when absent); else one line naming the key."""
    value = raw.get(key, default)
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not (number if kind is float else isinstance(value, kind)):
        wanted = {list: "a list", dict: "a table", str: "a string", bool: "true or false", float: "a number",
                  int: "a whole number"}[kind]
        raise IsarcasmError(f"{where}: '{key}' must be {wanted}, not {value!r}")
    return value


def _no_repeated_cell(path: Path, cells: tuple["Cell", ...]) -> None:
    """A (corpus, model) pair listed twice would train and report the same runs twice."""
    first: dict[str, int] = {}
    for number, cell in enumerate(cells, start=1):
        if cell.key in first:
            raise IsarcasmError(f"{path}: cell {number}: {cell.key} is listed twice (first as cell {first[cell.key]})")
        first[cell.key] = number


def _train(path: Path, raw: dict) -> tuple[tuple[str, object], ...]:
    """The ``[train]`` table, checked against TrainConfig's declarations (types, choices, ranges:
    :meth:`TrainConfig.from_dict`); a whole number where a float is wanted becomes that float, so
    ``threshold = 1`` and ``1.0`` are one setting and one hash.  Every setting kept here is used
    by the experiment's runs (see :meth:`experiments.studies.settings.Settings.train_for`), so
    what could not be honoured is refused here, in one line."""
    config = TrainConfig.from_dict(raw, f"{path}: [train]")
    return tuple(sorted((name, getattr(config, name)) for name in raw))


def _cell(path: Path, number: int, raw) -> Cell:
    where = f"{path}: cell {number}"
    if not isinstance(raw, dict):
        raise IsarcasmError(f"{where}: must be a table ([[cells]] with corpus and model), not {raw!r}")
    _known_keys(where, raw, CELL_KEYS)
    if not raw.get("corpus") or not raw.get("model"):
        raise IsarcasmError(f"{where}: needs both 'corpus' and 'model'")
    references = []
    if "published" in raw:
        published = _typed(where, raw, "published", dict, {})
        _known_keys(f"{where}: published", published, PUBLISHED_KEYS)
        references.append(Reference("published", _metric(where, published.get("metric")),
                                    _value(where, "published value", published.get("value")),
                                    _typed(where, published, "source", str, "")))
    for metric, value in _typed(where, raw, "isarcasm_impl", dict, {}).items():
        references.append(Reference("iSarcasm impl.", _metric(where, metric), _value(where, metric, value)))
    return Cell(_typed(where, raw, "corpus", str, ""), _typed(where, raw, "model", str, ""), tuple(references),
                _typed(where, raw, "note", str, ""), _typed(where, raw, "folds", bool, False))


def _value(where: str, what: str, value) -> float:
    """A reference number: a finite number between 0 and 1 (every metric a cell cites is a rate)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise IsarcasmError(f"{where}: {what} must be a number between 0 and 1, not {value!r}")
    return float(value)


def _metric(where: str, metric: str | None) -> str:
    if metric not in METRICS:
        raise IsarcasmError(f"{where}: unknown metric {metric!r} (use one of: {', '.join(METRICS)})")
    return metric
