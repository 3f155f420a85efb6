"""Evaluation metrics, all computed by scikit-learn.

Table 7 compares sarcastic-class precision/recall/F1; Tay et al.'s published
Riloff/Ptacek numbers (Table 6) are macro-F1.  Every run records all of them so
each published number is compared with the metric it actually used.
"""
from __future__ import annotations

import json

import numpy as np
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    confusion_matrix,
    f1_score,
    precision_recall_fscore_support,
)

from preprocessing.errors import IsarcasmError, json_shown

# The metric names a table cell may compare against.
METRICS = ("f1_sarcastic", "precision_sarcastic", "recall_sarcastic", "f1_macro", "f1_weighted", "f1_micro",
           "precision_weighted", "recall_weighted", "accuracy", "balanced_accuracy")

#: The range of every score a run or results file records, declared once and checked where such a file is read
#: (:func:`recorded_problem`, :func:`summary_problem`): a damaged or edited file is refused there, never drawn or
#: printed as a score.  Every score here lies in [0, 1]: the metrics above, multi-label F1 over texts, a class's
#: precision, recall and F1, a curve's average precision, and the decision thresholds.
RANGES = dict.fromkeys((*METRICS, "f1_samples", "precision", "recall", "f1", "average_precision", "threshold",
                        "tuned_threshold"), (0.0, 1.0))
#: The recorded counts: whole numbers, at least 0 (a confusion matrix is a list of lists of them).
COUNTS = ("n", "support", "confusion_matrix")


def outside(values, bounds: tuple[float, float] = (0.0, 1.0)) -> np.ndarray:
    """Where ``values`` (an array) are NaN or outside ``bounds``, a probability's by default: how the readers
    of predictions files and per-epoch records refuse a damaged one."""
    values = np.asarray(values, dtype=float)
    return ~((values >= bounds[0]) & (values <= bounds[1]))


def value_problem(name: str, value) -> str | None:
    """Why ``value`` cannot be the recorded score or count ``name`` (:data:`RANGES`, :data:`COUNTS`): outside
    its range, NaN, not a number, a count not whole; None when it can, or ``name`` is neither."""
    if name in COUNTS:
        wrong = [v for v in _leaves(value) if isinstance(v, bool) or not isinstance(v, int) or v < 0]
        if wrong or value == []:
            return f"{name} holds {_shown(wrong[0] if wrong else value)}, not a count (a whole number, at least 0)"
    elif name in RANGES:
        low, high = RANGES[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            return f"{name} {_shown(value)} is not a score (a number from {low:g} to {high:g})"
    return None


def _shown(value) -> str:
    """``value`` as JSON writes it (NaN, 1e+308, "text"), safe to print."""
    return json_shown(json.dumps(value, default=str))


def _leaves(value):
    """The values of a count, nested lists flattened (a confusion matrix)."""
    if isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def recorded_problem(record, where: str = "") -> str | None:
    """The first score or count of ``record`` (metrics.json, an evaluation: scores nested by split and class)
    that :func:`value_problem` refuses, named by its keys (``test.per_class.1.f1 1.7 is not a score ...``);
    None when every one can be what it names."""
    if not isinstance(record, dict):
        return None
    for key, value in record.items():
        problem = recorded_problem(value, f"{where}{key}.") if isinstance(value, dict) else value_problem(key, value)
        if problem:
            return problem if isinstance(value, dict) else f"{where}{problem}"
    return None


def summary_problem(name: str, summary: dict) -> str | None:
    """Why a results file's summary of score ``name`` over runs (mean, std, values) cannot be one: its mean or a
    run's value outside the score's range, or a std below 0 or wider than the range; None when it can (and for
    a name of no declared range, or an undefined mean: null)."""
    if name not in RANGES:
        return None
    low, high = RANGES[name]
    values = [summary.get("mean")] if summary.get("mean") is not None else []
    problem = next(filter(None, (value_problem(name, v) for v in [*values, *summary.get("values", ())])), None)
    std = summary.get("std")
    if problem is None and not (isinstance(std, (int, float)) and 0 <= std <= high - low):
        problem = f"{name} std {_shown(std)} is not a spread of scores (a number from 0 to {high - low:g})"
    return problem


class NonFinite(IsarcasmError):
    """A loss, weights or probabilities that are NaN or infinite: what a diverged run (too high a
    learning rate, NaN word vectors, a broken plugin) produces.  Scored, NaN probabilities become
    a plausible-looking F1 (every arg-max is class 0), so they are refused instead; a run that
    meets one during training is stored as failed (see :func:`experiments.runs.one.training.train_run`)."""


def require_finite(values, what: str) -> np.ndarray:
    """``values`` as an array when every one is finite; else :class:`NonFinite` naming ``what``."""
    values = np.asarray(values)
    if not np.isfinite(values).all():
        bad = values[~np.isfinite(values)].ravel()[0]
        raise NonFinite(f"non-finite {what} ({bad})")
    return values


def predict_labels(probabilities: np.ndarray, threshold: float = 0.5) -> np.ndarray:
    """Binary: sarcastic when P(sarcastic) >= threshold; multi-class: arg-max."""
    probabilities = np.asarray(probabilities)
    if probabilities.ndim == 2 and probabilities.shape[1] > 2:
        return probabilities.argmax(axis=1)
    positive = probabilities[:, 1] if probabilities.ndim == 2 else probabilities
    return (positive >= threshold).astype(int)


def classification_metrics(gold, predicted, num_classes: int = 2) -> dict:
    """All metrics of one prediction set; the ``*_sarcastic`` ones only for binary tasks."""
    gold, predicted = np.asarray(gold), np.asarray(predicted)
    labels = list(range(num_classes))
    # support-weighted precision, recall and F1: MUStARD's metrics (Castro et al. 2019)
    weighted = precision_recall_fscore_support(gold, predicted, labels=labels, average="weighted", zero_division=0)
    result = {
        "n": int(len(gold)),
        "accuracy": float(accuracy_score(gold, predicted)),
        "balanced_accuracy": float(balanced_accuracy_score(gold, predicted)),
        "f1_macro": float(f1_score(gold, predicted, labels=labels, average="macro", zero_division=0)),
        "f1_weighted": float(weighted[2]),
        "precision_weighted": float(weighted[0]),
        "recall_weighted": float(weighted[1]),
        "confusion_matrix": confusion_matrix(gold, predicted, labels=labels).tolist(),
    }
    precision, recall, f1, support = precision_recall_fscore_support(
        gold, predicted, labels=labels, zero_division=0
    )
    result["per_class"] = {
        str(k): {"precision": float(p), "recall": float(r), "f1": float(f), "support": int(s)}
        for k, p, r, f, s in zip(labels, precision, recall, f1, support)
    }
    if num_classes == 2:
        result.update(
            precision_sarcastic=float(precision[1]), recall_sarcastic=float(recall[1]), f1_sarcastic=float(f1[1])
        )
    return result


def multilabel_metrics(gold, predicted) -> dict:
    """Metrics of multi-hot predictions (iSarcasmEval task B's official one is macro-F1 over labels).

    ``accuracy`` is the share of texts whose whole label set is right (subset accuracy).
    """
    gold, predicted = np.asarray(gold), np.asarray(predicted)
    precision, recall, f1, support = precision_recall_fscore_support(gold, predicted, zero_division=0)
    return {
        "n": int(len(gold)),
        "accuracy": float(accuracy_score(gold, predicted)),
        **{f"f1_{average}": float(f1_score(gold, predicted, average=average, zero_division=0))
           for average in ("macro", "micro", "weighted", "samples")},
        "per_class": {str(k): {"precision": float(p), "recall": float(r), "f1": float(f), "support": int(n)}
                      for k, (p, r, f, n) in enumerate(zip(precision, recall, f1, support))},
    }


def score(targets: np.ndarray, probabilities: np.ndarray, threshold: float, multi_label: bool) -> dict:
    """Metrics of a prediction set from its gold ``targets`` (one-hot, or multi-hot for multi-label).

    Multi-label: every label whose probability reaches ``threshold`` is predicted.  Non-finite
    probabilities are refused (:class:`NonFinite`), never scored.
    """
    targets, probabilities = np.asarray(targets), require_finite(probabilities, "probabilities")
    if multi_label:
        return multilabel_metrics(targets.astype(int), (probabilities >= threshold).astype(int))
    return classification_metrics(targets.argmax(axis=1), predict_labels(probabilities, threshold), targets.shape[1])


def absent_classes(metrics: dict) -> list[int]:
    """The classes (indices) with no text in the scored data, from ``metrics``' per-class supports."""
    return [int(k) for k, scores in metrics.get("per_class", {}).items() if scores["support"] == 0]


def undefined_metrics(metrics: dict) -> list[str]:
    """The metrics among ``metrics`` that the scored data leaves undefined (scikit-learn scores them 0,
    which reads like a result): recall and F1 of the sarcastic class when no text is sarcastic, and
    its precision when none is predicted sarcastic either; macro-F1 when any class has no text."""
    absent = absent_classes(metrics)
    undefined = ["f1_macro"] if absent and "f1_macro" in metrics else []
    if 1 in absent and "f1_sarcastic" in metrics:
        predicted = sum(row[1] for row in metrics.get("confusion_matrix", [[0, 0]]))
        undefined += ["recall_sarcastic", "f1_sarcastic"] + ([] if predicted else ["precision_sarcastic"])
    return [m for m in METRICS if m in undefined]


#: The main metrics: the sarcastic class' F1 where there is a sarcastic class (binary corpora), else
#: macro-F1 (multi-class and multi-label corpora); :func:`main_metric_for` decides between them.
MAIN_METRICS = ("f1_sarcastic", "f1_macro")
METRIC_NAMES = {"f1_sarcastic": "F1(sarcastic)", "f1_macro": "macro-F1"}


def main_metric_for(binary: bool, select_on: str = "default") -> str:
    """The main metric of a task, the one rule every reader follows (Keras' and NumPy's selection F1,
    the entrants' choices, the reports' headline, the significance tests): the sarcastic class' F1
    when the task is ``binary`` (two classes, one label per text), macro-F1 otherwise, or when
    selection is asked to maximise macro-F1 (``select_on="macro-f1"``, see
    :data:`experiments.runs.one.protocol.SELECT_ON`; the reports' headline is always the default's)."""
    return "f1_sarcastic" if binary and select_on != "macro-f1" else "f1_macro"


def main_metric(metrics: dict) -> str:
    """A result's headline metric: :func:`main_metric_for` its task, binary when its scores have the
    sarcastic class' (only a binary task's do, see :func:`classification_metrics`)."""
    return main_metric_for("f1_sarcastic" in metrics)


def summary_stats(values) -> dict:
    """Mean, sample standard deviation and the values: how every result aggregates seeds."""
    values = [float(v) for v in values]
    return {"mean": float(np.mean(values)), "std": float(np.std(values, ddof=1)) if len(values) > 1 else 0.0,
            "values": values}


def per_class_scores(label_names: tuple[str, ...], tests: list[dict], folds: list[int | None]) -> dict:
    """Each class's (or label's) test precision, recall and F1 over the runs, with its support in the
    test data they cover (the test split, or the test parts of the folds they ran on: ``folds`` is
    each run's).  KoCoSa's paper reports per-class precision and recall; the multi-class tasks need
    them to show which types are learnt."""
    one_per_fold = list({fold: test for fold, test in zip(folds, tests)}.values())  # seeds share a fold's test
    return {name: {**{score: summary_stats([t["per_class"][str(k)][score] for t in tests])
                      for score in ("precision", "recall", "f1")},
                   "support": sum(t["per_class"][str(k)]["support"] for t in one_per_fold)}
            for k, name in enumerate(label_names)}


def best_threshold(gold, positive_probability, grid: np.ndarray | None = None) -> float:
    """The threshold maximising sarcastic-class F1 (used on VALIDATION data only)."""
    grid = np.round(np.arange(0.05, 0.951, 0.01), 2) if grid is None else grid
    scores = [f1_score(gold, (positive_probability >= t).astype(int), zero_division=0) for t in grid]
    return float(grid[int(np.argmax(scores))])
