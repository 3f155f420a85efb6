"""Where a binary cell's decision threshold puts it, and how well it ranks.

A sarcastic-class F1 far from a published one has two possible causes that
one number cannot tell apart: the model ranks sarcastic texts no better
(ranking), or it ranks them as well but threshold 0.5 makes it predict
"sarcastic" more or less often (operating point), which trades precision for
recall.  The report therefore shows, for every binary cell, the share of
sarcastic texts in the test split, the share the model predicts sarcastic,
the threshold-free average precision, and the F1 of the trivial classifier
that calls every text sarcastic, all computed from the runs' own
``predictions.tsv``.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from sklearn.metrics import average_precision_score

from experiments.runs.one.metrics import summary_stats
from experiments.runs.one.store import PREDICTIONS
from experiments.runs.one.outputs import Predictions, read_predictions


def all_sarcastic_f1(positive_share: float) -> float:
    """Sarcastic-class F1 of predicting every text sarcastic: precision is the share, recall 1."""
    return 2 * positive_share / (1 + positive_share) if positive_share else 0.0


def all_sarcastic_floor(positive_share: float) -> dict:
    """The scores of labelling every text sarcastic, beside which any binary result is read (a split
    with many sarcastic texts gives that trivial rule an F1 that can beat every model): the share,
    the sarcastic-class F1 and the macro-F1 (the other class' F1 is 0)."""
    f1 = all_sarcastic_f1(positive_share)
    return {"sarcastic_share": positive_share, "f1_sarcastic": f1, "f1_macro": f1 / 2}


def majority_floor(positive_share: float) -> dict:
    """The scores of labelling every text with the split's own majority class (not sarcastic on a tie):
    the best a constant label can do on macro-F1, as all-sarcastic is on the sarcastic class' F1."""
    if positive_share > 0.5:
        return all_sarcastic_floor(positive_share)
    other = all_sarcastic_f1(1 - positive_share)  # the other class' F1 when every text is labelled with it
    return {"sarcastic_share": positive_share, "f1_sarcastic": 0.0, "f1_macro": other / 2}


def constant_floors(positive_share: float) -> dict[str, dict]:
    """Both floors a binary result is read beside: ``all_sarcastic`` and ``majority``."""
    return {"all_sarcastic": all_sarcastic_floor(positive_share), "majority": majority_floor(positive_share)}


def floors_of(share: float | None) -> dict[str, dict] | None:
    """The floors of a split with this sarcastic share (:func:`constant_floors`); None without a share
    (not a binary corpus) or with texts of one class only, where they are as undefined as the scores."""
    return constant_floors(share) if share is not None and 0 < share < 1 else None


def operating_point(run_dirs: list[Path], threshold: float = 0.5) -> dict | None:
    """The cell's operating-point figures over its runs, or ``None`` for a multi-class cell or no runs."""
    predictions = [read_predictions(Path(d) / PREDICTIONS) for d in run_dirs]
    return operating_point_of(predictions, [threshold] * len(predictions))


def operating_point_of(predictions: list[Predictions], thresholds: list[float]) -> dict | None:
    """:func:`operating_point` of test predictions each at its own threshold (a rule such as the
    authors' grid chooses one per run)."""
    if not predictions or predictions[0].probabilities.shape[1] != 2:
        return None
    share = float(np.mean([np.mean(p.gold == 1) for p in predictions]))  # runs on folds test different texts
    same = len(set(thresholds)) == 1
    return {
        "threshold": thresholds[0] if same else None,
        **({} if same else {"thresholds": list(thresholds)}),
        "positive_share": share,
        "all_sarcastic_f1": all_sarcastic_f1(share),
        "predicted_positive_rate": summary_stats([np.mean(p.labels(t) == 1) for p, t in zip(predictions, thresholds)]),
        "average_precision": summary_stats([average_precision_score(p.gold, p.probabilities[:, 1])
                                            for p in predictions]),
    }
