"""A run's output files beside its metrics: test predictions, the training history, a fitted estimator and the
model's size, each written and read back here (the run folder itself, and its other files, are
:mod:`experiments.runs.one.store`'s).  Every reader checks what it reads, so a damaged or edited file is one
line naming it, never a number in a report.
"""
from __future__ import annotations

import csv
import io
import math
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from experiments.runs.one.metrics import outside, predict_labels, value_problem
from experiments.runs.one.store import (CONFIG, ENTRANT, ESTIMATOR, HISTORY, MODEL, PREDICTIONS, REFERENCE,
                                        read_json)
from preprocessing.errors import DataError, IsarcasmError
from preprocessing.fileio import content_sha256, load_json
from preprocessing.records import id_problem
from preprocessing.specs import BINARY_LABELS


@dataclass(frozen=True)
class Predictions:
    """One run's test predictions: ids, gold labels and class probabilities, in file order."""

    path: Path
    ids: list[str]
    gold: np.ndarray
    probabilities: np.ndarray

    def labels(self, threshold: float = 0.5) -> np.ndarray:
        return predict_labels(self.probabilities, threshold)


def predictions_tsv(ids: list[str], gold: np.ndarray, probabilities: np.ndarray, multi_label: bool) -> str:
    """id, gold label, and the probability of each class (:func:`probability_columns`: P(sarcastic) is
    ``p_sarcastic`` for binary, as everywhere else): one line per test text, so every id is checked first
    (:func:`~preprocessing.records.id_problem`).

    ``gold`` are the targets (one-hot or multi-hot rows).  A multi-label file's
    second column is ``gold_labels``, the gold label indices joined by ``|``.
    """
    if not len(ids) == len(gold) == len(probabilities):
        raise IsarcasmError(f"predictions for {len(probabilities)} texts with {len(ids)} ids and {len(gold)} gold labels: "
                            "each test text is one row")
    wrong = next(filter(None, map(id_problem, ids)), None)
    if wrong:
        raise IsarcasmError(wrong)
    header = ["id", "gold_labels" if multi_label else "gold", *probability_columns(probabilities.shape[1], multi_label)]
    lines = ["\t".join(header)]
    for id_, target, row in zip(ids, gold, probabilities):
        labels = "|".join(map(str, np.flatnonzero(target))) if multi_label else str(int(target.argmax()))
        lines.append("\t".join([id_, labels, *(f"{p:.6f}" for p in row)]))
    return "\n".join(lines) + "\n"


def save_estimator(path: Path, estimator) -> dict:
    """Save a fitted scikit-learn estimator with joblib; what entrant.json records of it (file, format,
    sha256).  skops, whose format runs no code when loaded, is not installable here; a joblib file is a
    pickle and runs code when loaded, so :func:`load_estimator_file` loads only a file whose sha256 is the
    one recorded (a damaged or swapped file is refused).  That guards the file, not the folder: someone who
    may write a whole run folder may write both, so evaluate runs whose store you trust."""
    import joblib  # scikit-learn's own dependency: only when an estimator is saved

    joblib.dump(estimator, path)
    return {"file": path.name, "format": "joblib", "sha256": content_sha256(path)}


def load_estimator_file(directory: Path, saved: dict):
    """The estimator an entrant's run saved (``saved``: entrant.json's ``model``), its sha256 checked
    first; a damaged, swapped or unloadable file is one line naming it."""
    import joblib  # the same: only when an estimator is loaded

    path = directory / str(saved.get("file", ESTIMATOR))
    if not path.is_file() or path.parent != directory or saved.get("format") != "joblib":
        raise IsarcasmError(f"{directory}: its {ENTRANT} names an estimator file {path.name} this version cannot "
                            "read; score the run again with --force")
    if content_sha256(path) != saved.get("sha256"):
        raise IsarcasmError(f"{path}: its sha256 is not the one {ENTRANT} recorded, so it is not loaded (a joblib "
                            "file runs code when loaded); score the run again with --force")
    try:
        return joblib.load(path)
    except Exception as exc:  # noqa: BLE001 - unpickling a user's estimator: whatever it raises is one line
        raise IsarcasmError(f"{path}: cannot load the estimator ({type(exc).__name__}: {exc}); an estimator "
                            "using classes or functions of its own .py file cannot be loaded back, only one of scikit-learn's "
                            "or an installed package's") from None


def probability_columns(classes: int, multi_label: bool) -> list[str]:
    """The probability columns of a predictions file: ``p_not_sarcastic``, ``p_sarcastic`` for a
    single-label binary run (the name ``predict`` and outside predictions use), ``p_<k>`` by class
    index otherwise.  Files written before this name (``prob_<k>``) read the same: the columns are
    read by position."""
    if classes == len(BINARY_LABELS) and not multi_label:
        return [f"p_{name}" for name in BINARY_LABELS]
    return [f"p_{k}" for k in range(classes)]


def read_predictions(path: Path) -> Predictions:
    """Read a ``predictions.tsv`` (id, gold, then one probability per class, by position) of a
    single-label run."""
    try:  # lines end in \n as written (never split at \x1c or U+2028 as str.splitlines would)
        lines = path.read_text(encoding="utf-8").removesuffix("\n").split("\n")
    except FileNotFoundError:
        raise IsarcasmError(f"{path} not found (a finished run has {PREDICTIONS})") from None
    header = lines[0].split("\t") if lines else []
    if header[1:2] == ["gold_labels"]:
        raise IsarcasmError(f"{path} holds multi-label predictions: paired tests and curves are for single-label runs")
    if header[:2] != ["id", "gold"] or len(header) < 4:
        raise DataError.at(path, 1, "expected the header id, gold, then one probability column per class")
    ids, gold, probabilities = [], [], []
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(header):
            raise DataError.at(path, number, f"expected {len(header)} tab-separated fields, got {len(fields)}")
        try:
            gold.append(int(fields[1]))
            probabilities.append([float(p) for p in fields[2:]])
        except ValueError:
            raise DataError.at(path, number, "gold must be an integer and probabilities numbers") from None
        ids.append(fields[0])
    probabilities = np.asarray(probabilities, dtype=float).reshape(len(ids), -1)
    _in_range(path, header, np.asarray(gold, dtype=int), probabilities)
    _one_row_per_test_text(path, len(ids))
    return Predictions(path, ids, np.asarray(gold), probabilities)


def _in_range(path: Path, header: list[str], gold: np.ndarray, probabilities: np.ndarray) -> None:
    """One line naming the first row whose gold label is not a class or whose probability is NaN or outside
    [0, 1]: a damaged or edited file, which would otherwise be drawn and scored as a run's."""
    bad_gold = (gold < 0) | (gold >= probabilities.shape[1])
    bad = outside(probabilities)
    rows = np.flatnonzero(bad_gold | bad.any(axis=1))
    if not len(rows):
        return
    row = int(rows[0])
    if bad_gold[row]:
        problem = f"gold {gold[row]} is not a class (0 to {probabilities.shape[1] - 1})"
    else:
        column = int(np.flatnonzero(bad[row])[0])
        problem = f"{header[column + 2]} {probabilities[row, column]:g} is not a probability (a number from 0 to 1)"
    raise DataError.at(path, row + 2, f"{problem}; the file is damaged: make it again (train the run, or evaluate "
                                      "with --force)")


def _one_row_per_test_text(path: Path, rows: int) -> None:
    """A run's predictions hold one row per test text, as many as its config.json counted when it was
    trained; else the file was damaged (or written by a version whose ids could break it), and no
    report may score rows that are no text."""
    try:
        config = load_json(path.parent / CONFIG)
        expected = config.get("test_scored", config["splits"]["test"])  # fewer under a --test-texts diagnostic
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return  # no config.json with the test size beside it (an evaluation's file): nothing to compare
    if rows != expected:
        raise IsarcasmError(f"{path.parent}: {PREDICTIONS} holds {rows} rows for {expected} test texts (its "
                            f"{CONFIG}); the run is damaged: train it again with --force")


def history_csv(history: dict) -> str:
    """One row per epoch: ``epoch`` and every logged value (loss, f1, val_loss, val_f1, ...)."""
    columns = ["epoch", *history]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for epoch in range(len(next(iter(history.values())))):
        writer.writerow([epoch + 1, *(f"{history[c][epoch]:.6f}" for c in history)])
    return buffer.getvalue()


def read_history(directory: Path) -> dict[str, np.ndarray]:
    """The columns of a run's history.csv as arrays (empty when the run has none); a value that is no finite
    number, or a score out of its range (``f1``, ``val_f1``: :data:`~experiments.runs.one.metrics.RANGES`), is
    one line naming the file, the line and the column, never a point of a training curve."""
    path = directory / HISTORY
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for number, row in enumerate(rows, start=2):
        for key, value in row.items():
            try:
                number_value = float(value)
            except (TypeError, ValueError):
                problem = f"{key} {value!r} is not a number"
            else:
                problem = value_problem(str(key).removeprefix("val_"), number_value) or \
                    (None if math.isfinite(number_value) else f"{key} {value} is not a finite number")
            if problem:
                raise DataError.at(path, number, f"{problem}; the file is damaged: train the run again with --force")
    return {key: np.asarray([float(row[key]) for row in rows]) for key in (rows[0] if rows else {})}


def model_parameters(directory: Path) -> int | None:
    """The number of weights of the run's model (every layer's, not the optimizer's): read from the
    shapes in ``model.keras``'s weights file without loading the model or its values, or, for a Keras
    model entrant or a linear scikit-learn estimator (which keep no model), as its run recorded it in
    ``entrant.json``; None for a run with neither (another estimator, outside predictions) or an
    unreadable file."""
    import h5py  # start-up time: only the benchmark's cost columns need it

    if (directory / REFERENCE).is_file():
        recorded = read_json(directory / REFERENCE).get("parameters")
        return recorded if isinstance(recorded, int) else None
    if (directory / ENTRANT).is_file():
        chosen = read_json(directory / ENTRANT)
        chosen = chosen.get("chosen") if isinstance(chosen, dict) else None
        recorded = chosen.get("parameters") if isinstance(chosen, dict) else None
        return recorded if isinstance(recorded, int) else None

    sizes = []
    try:
        with zipfile.ZipFile(directory / MODEL) as archive, archive.open("model.weights.h5") as member, \
                h5py.File(member, "r") as weights:
            weights["layers"].visititems(lambda _, item: sizes.append(item.size)
                                         if isinstance(item, h5py.Dataset) else None)
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return None
    return int(sum(sizes))
