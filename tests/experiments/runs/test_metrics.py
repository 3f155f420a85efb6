"""Metrics agree with scikit-learn and with hand-computed values."""
import numpy as np
import pytest
from sklearn.metrics import f1_score, precision_score, recall_score

from experiments.runs.metrics import best_threshold, classification_metrics, predict_labels


def test_binary_metrics_by_hand():
    gold = [1, 1, 1, 0, 0, 0, 0, 0]
    pred = [1, 1, 0, 1, 0, 0, 0, 0]
    m = classification_metrics(gold, pred)
    assert m["precision_sarcastic"] == pytest.approx(2 / 3)
    assert m["recall_sarcastic"] == pytest.approx(2 / 3)
    assert m["f1_sarcastic"] == pytest.approx(2 / 3)
    assert m["accuracy"] == pytest.approx(6 / 8)
    assert m["f1_macro"] == pytest.approx((2 / 3 + 0.8) / 2)
    assert m["balanced_accuracy"] == pytest.approx((2 / 3 + 4 / 5) / 2)
    assert m["confusion_matrix"] == [[4, 1], [1, 2]]


def test_multiclass_metrics_match_sklearn_and_have_no_sarcastic_class():
    rng = np.random.default_rng(0)
    gold, pred = rng.integers(0, 4, 100), rng.integers(0, 4, 100)
    m = classification_metrics(gold, pred, num_classes=4)
    assert m["f1_macro"] == pytest.approx(f1_score(gold, pred, average="macro"))
    assert m["f1_weighted"] == pytest.approx(f1_score(gold, pred, average="weighted"))
    assert m["precision_weighted"] == pytest.approx(precision_score(gold, pred, average="weighted"))
    assert m["recall_weighted"] == pytest.approx(recall_score(gold, pred, average="weighted"))
    assert "f1_sarcastic" not in m and len(m["confusion_matrix"]) == 4


def test_predict_labels_uses_the_threshold_on_the_sarcastic_column():
    probs = np.array([[0.6, 0.4], [0.3, 0.7], [0.5, 0.5]])
    assert predict_labels(probs).tolist() == [0, 1, 1]
    assert predict_labels(probs, threshold=0.35).tolist() == [1, 1, 1]
    assert predict_labels(np.array([[0.1, 0.2, 0.7]])).tolist() == [2]


def test_best_threshold_maximises_validation_f1():
    gold = np.array([0, 0, 0, 1, 1])
    p = np.array([0.1, 0.2, 0.3, 0.35, 0.4])
    t = best_threshold(gold, p)
    assert 0.3 < t <= 0.35
    assert f1_score(gold, (p >= t).astype(int)) == 1.0


@pytest.mark.parametrize("macro, average", [(False, "binary"), (True, "macro")])
def test_the_selection_metric_is_scikit_learns_f1_at_the_decision_threshold(macro, average):
    from experiments.runs.selection import selection_metric

    gold = np.array([1, 1, 1, 1, 0, 0, 1, 0])
    probabilities = np.array([0.9, 0.6, 0.4, 0.2, 0.7, 0.1, 0.55, 0.3])
    metric = selection_metric(2, macro=macro)
    metric.update_state(np.eye(2)[gold], np.stack([1 - probabilities, probabilities], axis=1))
    expected = f1_score(gold, (probabilities >= 0.5).astype(int), average=average)
    assert float(metric.result()) == pytest.approx(expected, abs=1e-6)
    assert expected != pytest.approx(f1_score(gold, (probabilities >= 0.5).astype(int),
                                              average="macro" if average == "binary" else "binary"))
