"""Declarative experiment files (TOML): which cells to run and what to compare them with.

A cell is a (corpus, model) pair with optional reference numbers:
``published = {metric, value, source}`` and ``isarcasm_impl = {metric: value, ...}``.
Experiments ship in ``experiments/studies/tables/`` (``table6``, ``table7``); a path
to any TOML file with the same layout works too.
"""
from __future__ import annotations

import tomllib
import typing
from dataclasses import dataclass, field, fields
from pathlib import Path

from experiments.runs.metrics import METRICS
from experiments.runs.protocol import TrainConfig
from experiments.runs.store import safe_name
from preprocessing.errors import IsarcasmError

TABLES = Path(__file__).resolve().parent / "tables"
HUMAN = "manual-labelling"


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
        return Experiment(self.name, self.title, self.source, cells, self.train, self.metrics)


def available() -> list[str]:
    return sorted(p.stem for p in TABLES.glob("*.toml"))


def load_experiment(name_or_path: str) -> Experiment:
    path = Path(name_or_path)
    if path.suffix != ".toml":
        path = TABLES / f"{name_or_path}.toml"
        if not path.is_file():
            raise IsarcasmError(f"unknown experiment '{name_or_path}' (known: {', '.join(available())}, "
                                "or a path to a .toml file)")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise IsarcasmError(f"{path}: experiment file not found") from None
    except OSError as exc:
        raise IsarcasmError(f"{path}: cannot read the experiment file ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise IsarcasmError(f"{path}: not a valid TOML file ({exc})") from None
    cells = tuple(_cell(path, i, c) for i, c in enumerate(raw.get("cells", []), start=1))
    if not cells:
        raise IsarcasmError(f"{path}: no [[cells]] listed")
    safe_name(raw.get("name", path.stem), f"{path}: experiment name")  # it names folders and files of the stores
    return Experiment(raw.get("name", path.stem), raw.get("title", path.stem), raw.get("source", ""), cells,
                      _train(path, raw.get("train", {})),
                      tuple(_metric(f"{path}: metrics", m) for m in raw.get("metrics", [])))


def _train(path: Path, raw: dict) -> tuple[tuple[str, object], ...]:
    """The ``[train]`` table: TrainConfig fields only, each of its field's type (a whole number
    where a float is wanted becomes that float, so ``threshold = 1`` and ``1.0`` are one setting
    and one hash), checked by building the config.  Every setting kept here is used by the
    experiment's runs (see :meth:`experiments.studies.settings.Settings.train_for`), so what
    could not be honoured is refused here, in one line: a ``threshold`` outside (0, 1), a
    ``max_train`` below 1 (0 would silently mean "no cap")."""
    known = {f.name for f in fields(TrainConfig)}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise IsarcasmError(f"{path}: [train] has unknown setting(s) {', '.join(unknown)} "
                            f"(known: {', '.join(sorted(known))})")
    try:
        hints = typing.get_type_hints(TrainConfig)
    except (NameError, TypeError):  # an annotation that cannot be resolved here: the config's own check decides
        hints = {}
    checked = {name: _train_value(path, name, value, hints.get(name)) for name, value in raw.items()}
    if "threshold" in checked and not 0 < checked["threshold"] < 1:
        raise IsarcasmError(f"{path}: [train]: threshold must be between 0 and 1, got {checked['threshold']}")
    if "max_train" in checked and checked["max_train"] < 1:
        raise IsarcasmError(f"{path}: [train]: max_train must be at least 1 training example, "
                            f"got {checked['max_train']}")
    try:
        TrainConfig(**checked)
    except (IsarcasmError, TypeError) as exc:
        raise IsarcasmError(f"{path}: [train]: {exc}") from None
    return tuple(sorted(checked.items()))


def _train_value(path: Path, name: str, value, hint):
    """``value`` of ``[train]`` setting ``name`` when it has the field's type (``hint``); else a one-line error."""
    if hint is None:
        return value
    kinds = {kind for kind in (typing.get_args(hint) or (hint,)) if kind is not type(None)}
    if bool in kinds or not isinstance(value, bool):  # TOML's true is no number
        if float in kinds and isinstance(value, (int, float)):
            return float(value)
        if any(isinstance(value, kind) for kind in kinds if isinstance(kind, type)):
            return value
        if not kinds <= {bool, int, float, str}:
            return value  # a type this check does not know: the config's own check decides
    wanted = " or ".join(sorted({bool: "true or false", int: "a whole number", float: "a number",
                                 str: "a string"}.get(kind, str(kind)) for kind in kinds))
    raise IsarcasmError(f"{path}: [train]: {name} must be {wanted}, not {value!r}")


def _cell(path: Path, number: int, raw: dict) -> Cell:
    where = f"{path}: cell {number}"
    if "corpus" not in raw or "model" not in raw:
        raise IsarcasmError(f"{where}: needs both 'corpus' and 'model'")
    references = []
    if "published" in raw:
        published = raw["published"]
        references.append(Reference("published", _metric(where, published.get("metric")), float(published["value"]),
                                    published.get("source", "")))
    for metric, value in raw.get("isarcasm_impl", {}).items():
        references.append(Reference("iSarcasm impl.", _metric(where, metric), float(value)))
    if not isinstance(raw.get("folds", False), bool):
        raise IsarcasmError(f"{where}: 'folds' must be true or false")
    return Cell(raw["corpus"], raw["model"], tuple(references), raw.get("note", ""), raw.get("folds", False))


def _metric(where: str, metric: str | None) -> str:
    if metric not in METRICS:
        raise IsarcasmError(f"{where}: unknown metric {metric!r} (use one of: {', '.join(METRICS)})")
    return metric
