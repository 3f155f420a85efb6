"""A run's per-epoch record, and the selection rules that read it.

A run records, after every epoch, its class probabilities on the validation
split and on the test split (``epochs.npz``), with both splits' gold labels.
Every selection rule chooses an epoch and a decision threshold from the
**validation** arrays alone (:func:`choose` is never given the test split);
the test arrays only score the choice.  So one training trajectory serves
every rule, a rule added later is scored from the record without retraining,
and the test-label flip test can check all rules at once.

The rules:

- ``best``: the epoch with the highest validation F1 (the task's main metric,
  :func:`~experiments.runs.one.metrics.main_metric_for`: sarcastic class; macro-F1 for multi-class tasks or
  with ``select_on="macro-f1"``) at the run's threshold; the paper's protocol as written.
- ``last``: the final epoch, at the run's threshold.
- ``tuned``: ``best``'s epoch, with the threshold that maximises validation F1 on a 0.01 grid
  (the ``--tune-threshold`` variant).
- ``grid``: the iSarcasm authors' public evaluation code (silviu-oprea/sarcasm-cronos,
  ``src/metrics.py`` ``RocAccumulator`` and ``src/main.py`` ``print_epoch_stats``): after each
  epoch, the threshold of the grid 0.05, 0.10, ..., 0.85 with the best validation F1 of the
  sarcastic class (the lowest such threshold on ties); the epoch whose best validation F1 is
  highest (the first on ties).
"""
from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.metrics import f1_score

from experiments.runs.one.metrics import best_threshold, main_metric_for, outside, score
from experiments.runs.one.protocol import RULES, THRESHOLD_RULES
from experiments.runs.one.store import EPOCHS, read_config, read_metrics
from experiments.runs.one.outputs import Predictions
from preprocessing.errors import IsarcasmError

#: The authors' threshold grid (src/metrics.py, ``RocAccumulator.thresholds``).
AUTHORS_GRID = np.round(np.arange(0.05, 0.851, 0.05), 2)
#: The record's format; a record of another version is refused, not guessed at.
RECORD_VERSION = 1
_ARRAYS = ("validation", "test", "validation_gold", "test_gold")


@dataclass(frozen=True)
class Trajectory:
    """Per-epoch probabilities (epochs x texts x classes) and gold targets (texts x classes,
    one-hot or multi-hot) of the validation and test splits."""

    validation: np.ndarray
    test: np.ndarray
    validation_gold: np.ndarray
    test_gold: np.ndarray

    @property
    def epochs(self) -> int:
        return len(self.validation)

    @property
    def binary(self) -> bool:
        return self.validation.shape[-1] == 2 and np.all(self.validation_gold.sum(axis=1) == 1)

    @property
    def multi_label(self) -> bool:
        return not np.all(self.validation_gold.sum(axis=1) == 1)


@dataclass(frozen=True)
class Choice:
    """What a rule chose: a 1-based epoch and a decision threshold."""

    rule: str
    epoch: int
    threshold: float


def check_rule(rule: str) -> str:
    if rule not in RULES:
        raise IsarcasmError(f"unknown selection rule '{rule}' (use one of: {', '.join(RULES)})")
    return rule


def validation_f1(gold: np.ndarray, probabilities: np.ndarray, threshold: float, select_on: str = "default") -> float:
    """The validation F1 that ``best`` maximises: the task's main metric
    (:func:`~experiments.runs.one.metrics.main_metric_for`), the sarcastic class's or macro-F1 (over labels
    at ``threshold`` for multi-label tasks)."""
    if not np.all(gold.sum(axis=1) == 1):  # multi-hot rows: a multi-label task
        return float(f1_score(gold.astype(int), (probabilities >= threshold).astype(int), average="macro",
                              zero_division=0))
    labels = gold.argmax(axis=1)
    if main_metric_for(probabilities.shape[1] == 2, select_on) == "f1_sarcastic":
        return float(f1_score(labels, (probabilities[:, 1] >= threshold).astype(int), zero_division=0))
    predicted = probabilities.argmax(axis=1) if probabilities.shape[1] > 2 else \
        (probabilities[:, 1] >= threshold).astype(int)
    return float(f1_score(labels, predicted, labels=list(range(probabilities.shape[1])), average="macro",
                          zero_division=0))


def grid_threshold(gold: np.ndarray, positive: np.ndarray) -> tuple[float, float]:
    """The authors' per-epoch choice: (threshold, validation F1) of the best grid threshold, the
    lowest on ties (``max`` over the grid in ascending order keeps the first maximum)."""
    predicted = positive[None, :] >= AUTHORS_GRID[:, None]
    true_positive = (predicted & (gold == 1)).sum(axis=1)
    wrong = (predicted != (gold == 1)).sum(axis=1)  # false positives + false negatives
    denominator = 2 * true_positive + wrong
    scores = np.where(denominator > 0, 2 * true_positive / np.maximum(denominator, 1), 0.0)  # F1, 0 when undefined
    best = int(np.argmax(scores))
    return float(AUTHORS_GRID[best]), float(scores[best])


def choose(rule: str, validation: np.ndarray, validation_gold: np.ndarray, threshold: float = 0.5,
           select_on: str = "default") -> Choice:
    """The epoch and threshold ``rule`` picks from per-epoch **validation** probabilities alone."""
    check_rule(rule)
    epochs = len(validation)
    if epochs == 0:
        raise IsarcasmError("the per-epoch record holds no epoch")
    binary = validation.shape[-1] == 2 and np.all(validation_gold.sum(axis=1) == 1)
    if rule in THRESHOLD_RULES and not binary:
        raise IsarcasmError(f"selection rule '{rule}' chooses a threshold for the sarcastic class: it is for "
                            "binary tasks (use best or last)")
    if rule == "last":
        return Choice(rule, epochs, threshold)
    if rule == "grid":
        gold = validation_gold.argmax(axis=1)
        per_epoch = [grid_threshold(gold, probabilities[:, 1]) for probabilities in validation]
        epoch = int(np.argmax([f1 for _, f1 in per_epoch]))  # the first epoch on ties (the authors' strict >)
        return Choice(rule, epoch + 1, per_epoch[epoch][0])
    # Keras' selection metric takes the arg-max class, which for two classes is P(sarcastic) >= 0.5 (up to an
    # exact tie), so "best" picks the epoch KeepBestEpoch kept: its weights are the run's model.keras.  Except
    # under the exact engine, whose Keras F1 (float32) can split two epochs of exactly equal F1 that this float64
    # score keeps tied and gives to the first (docs/protocol.md, below the rules).
    scores = [validation_f1(validation_gold, probabilities, 0.5, select_on) for probabilities in validation]
    epoch = int(np.argmax(scores)) + 1
    if rule == "tuned":
        return Choice(rule, epoch, best_threshold(validation_gold.argmax(axis=1), validation[epoch - 1][:, 1]))
    return Choice(rule, epoch, threshold)


def choose_in(trajectory: Trajectory, rule: str, threshold: float = 0.5, select_on: str = "default") -> Choice:
    """:func:`choose` on a record: it is handed the validation arrays only."""
    return choose(rule, trajectory.validation, trajectory.validation_gold, threshold, select_on)


def scored(trajectory: Trajectory, choice: Choice) -> dict:
    """A run's metrics under ``choice``, in metrics.json's shape (validation and test scores, the
    selected epoch and threshold): the test split is read here, after the choice is made."""
    index, multi_label = choice.epoch - 1, trajectory.multi_label
    return {
        "selection": choice.rule,
        "selected_epoch": choice.epoch,
        "threshold": choice.threshold,
        "validation": score(trajectory.validation_gold, trajectory.validation[index], choice.threshold, multi_label),
        "test": score(trajectory.test_gold, trajectory.test[index], choice.threshold, multi_label),
    }


def padded_rows(rows: int, batch_size: int, rng: np.random.RandomState) -> np.ndarray:
    """The rows of a split of ``rows`` texts as the iSarcasm authors' code scores it: every row once, then
    ``batch_size - rows % batch_size`` more (a whole batch more when ``rows`` divides evenly, as theirs does),
    the first rows of a random permutation, so no text is repeated twice (sarcasm-cronos
    src/data_and_resources_acl.py:284, ``batch_data``, called on validation and test in :383-384; every row,
    repeats included, is scored: src/main.py ``run_valid_epoch``)."""
    fill = batch_size - rows % batch_size
    if fill > rows:  # their permutation cannot fill the batch, and their code stops at its assert
        raise IsarcasmError(f"a split of {rows} texts cannot be padded to a whole batch of {batch_size} as the "
                            "authors' code pads it (each text repeated at most once): --padded-batches is for "
                            "splits of at least a batch")
    return np.concatenate([np.arange(rows), rng.permutation(rows)[:fill]])


def padded(trajectory: Trajectory, batch_size: int, seed: int) -> Trajectory:
    """``trajectory`` with its validation and test splits padded with repeated texts to whole batches
    (:func:`padded_rows`), a DIAGNOSTIC that scores other texts than the published splits.  The repeats are
    drawn from the run's ``seed``, validation first: the authors drew theirs from the one RandomState(9876)
    that had already drawn their training batches, a draw no other code can repeat."""
    rng = np.random.RandomState(seed)
    validation = padded_rows(len(trajectory.validation_gold), batch_size, rng)
    test = padded_rows(len(trajectory.test_gold), batch_size, rng)
    return Trajectory(trajectory.validation[:, validation], trajectory.test[:, test],
                      trajectory.validation_gold[validation], trajectory.test_gold[test])


def run_under(directory: Path, rule: str, padded_batches: bool = False) -> tuple[dict, Predictions]:
    """A finished run's metrics (metrics.json's shape) and test predictions under ``rule``, from its
    record, with the threshold and validation metric it was trained with; with ``padded_batches``, chosen
    and scored on both splits padded as the authors' code pads them (:func:`padded`, a diagnostic)."""
    check_rule(rule)
    record = load_record(Path(directory) / EPOCHS)
    config = read_config(Path(directory))
    train = config.get("train", {})
    if padded_batches:
        if "batch_size" not in train:
            raise IsarcasmError(f"{directory}: the run records no batch size (an entrant without batches): "
                                "--padded-batches pads the splits of the classic models' runs")
        record = padded(record, int(train["batch_size"]), int(config["seed"]))
    choice = choose_in(record, rule, float(train.get("threshold", 0.5)), train.get("select_on", "default"))
    metrics = {**scored(record, choice), "train_seconds": read_metrics(Path(directory)).get("train_seconds", 0)}
    test = Predictions(Path(directory) / EPOCHS, [], record.test_gold.argmax(axis=1), record.test[choice.epoch - 1])
    return metrics, test


# --- the record file ----------------------------------------------------------------------------

def save_record(path: Path, trajectory: Trajectory) -> None:
    """Write the record (compressed NumPy arrays, float32 probabilities)."""
    arrays = {name: np.asarray(getattr(trajectory, name), dtype="float32") for name in _ARRAYS}
    with path.open("wb") as handle:
        np.savez_compressed(handle, version=np.asarray(RECORD_VERSION), **arrays)


def load_record(path: Path) -> Trajectory:
    """Read a record; a missing, damaged or inconsistent one is one line naming the file."""
    if not path.is_file():
        raise IsarcasmError(f"{path.parent}: the run has no per-epoch record ({path.name}); it was trained before "
                            "runs kept one: retrain it (reproduce ... --force) to apply another selection rule")
    try:
        with np.load(path, allow_pickle=False) as data:
            version = int(data["version"]) if "version" in data else None
            arrays = {name: np.asarray(data[name], dtype="float64") for name in _ARRAYS}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise IsarcasmError(f"{path}: damaged per-epoch record ({type(exc).__name__}); retrain the run "
                            "(reproduce ... --force)") from None
    if version != RECORD_VERSION:
        raise IsarcasmError(f"{path}: per-epoch record of version {version}; this isarcasm reads version "
                            f"{RECORD_VERSION}")
    record = Trajectory(**arrays)
    shapes_agree = (record.validation.ndim == 3 and record.test.ndim == 3 and len(record.validation) == len(record.test)
                    and record.validation.shape[1:] == record.validation_gold.shape
                    and record.test.shape[1:] == record.test_gold.shape)
    if not shapes_agree or any(outside(getattr(record, name)).any() for name in _ARRAYS):
        raise IsarcasmError(f"{path}: damaged per-epoch record (array shapes disagree, or a probability or gold "
                            "value is not a number from 0 to 1); retrain the run (reproduce ... --force)")
    return record
