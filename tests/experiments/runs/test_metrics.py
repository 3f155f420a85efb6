"""Metrics agree with scikit-learn and with hand-computed values."""
import numpy as np
import pytest
from sklearn.metrics import f1_score, precision_score, recall_score

from experiments.runs.one.metrics import (
    best_threshold,
    classification_metrics,
    main_metric,
    main_metric_for,
    predict_labels,
)


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


@pytest.mark.parametrize("select_on, average", [("default", "binary"), ("macro-f1", "macro")])
def test_the_selection_metric_is_scikit_learns_f1_at_the_decision_threshold(select_on, average):
    from experiments.runs.one.selection import selection_metric

    gold = np.array([1, 1, 1, 1, 0, 0, 1, 0])
    probabilities = np.array([0.9, 0.6, 0.4, 0.2, 0.7, 0.1, 0.55, 0.3])
    metric = selection_metric(2, select_on=select_on)
    metric.update_state(np.eye(2)[gold], np.stack([1 - probabilities, probabilities], axis=1))
    expected = f1_score(gold, (probabilities >= 0.5).astype(int), average=average)
    assert float(metric.result()) == pytest.approx(expected, abs=1e-6)
    assert expected != pytest.approx(f1_score(gold, (probabilities >= 0.5).astype(int),
                                              average="macro" if average == "binary" else "binary"))


#: (classes, multi-label, select_on, the task's main metric): the rule, case by case.
TASKS = [(2, False, "default", "f1_sarcastic"), (2, False, "macro-f1", "f1_macro"), (3, False, "default", "f1_macro"),
         (3, False, "macro-f1", "f1_macro"), (2, True, "default", "f1_macro")]


def _task_scores(num_classes: int, multi_label: bool, metric: str):
    """Gold targets, probabilities and the value of ``metric`` on them (scikit-learn's, at 0.5): the
    sarcastic class' F1 and macro-F1 differ on this data."""
    rng = np.random.default_rng(num_classes)
    probabilities = rng.dirichlet(np.ones(num_classes), size=60)
    if multi_label:
        gold = rng.integers(0, 2, size=(60, num_classes))
        return gold, probabilities, f1_score(gold, (probabilities >= 0.5).astype(int), average="macro")
    labels = rng.integers(0, num_classes, size=60)
    predicted = predict_labels(probabilities)
    macro = f1_score(labels, predicted, labels=list(range(num_classes)), average="macro")
    sarcastic = f1_score(labels, predicted) if num_classes == 2 else None
    assert sarcastic != pytest.approx(macro)  # a reader that chose the other metric would show
    return np.eye(num_classes)[labels], probabilities, sarcastic if metric == "f1_sarcastic" else macro


@pytest.mark.parametrize("num_classes, multi_label, select_on, expected", TASKS)
def test_every_reader_of_the_main_metric_follows_the_one_rule(num_classes, multi_label, select_on, expected):
    """main_metric_for decides; Keras' selection metric, NumPy's validation F1, the entrants' choice, the
    significance tests and the reports' headline (select_on default) read it."""
    from experiments.reports.significance import main_metric_classes
    from experiments.runs.entrants.registry import Job
    from experiments.runs.one.protocol import TrainConfig
    from experiments.runs.one.selection import selection_metric
    from experiments.runs.one.trajectory import validation_f1
    from preprocessing.records import Dataset

    assert main_metric_for(num_classes == 2 and not multi_label, select_on) == expected
    gold, probabilities, value = _task_scores(num_classes, multi_label, expected)
    assert validation_f1(gold, probabilities, 0.5, select_on) == pytest.approx(value)
    keras_metric = selection_metric(num_classes, multi_label, select_on)
    keras_metric.update_state(gold.astype("float32"), probabilities.astype("float32"))
    assert float(keras_metric.result()) == pytest.approx(value, abs=1e-6)
    dataset = Dataset("toy", "en", tuple(f"c{k}" for k in range(num_classes)), [], multi_label=multi_label)
    assert Job(dataset, 0, None, train=TrainConfig(select_on=select_on)).metric == expected
    if select_on == "default" and not multi_label:
        assert main_metric(classification_metrics([0, 1], [0, 1], num_classes)) == expected
        assert main_metric_classes(num_classes) == ([1] if expected == "f1_sarcastic" else list(range(num_classes)))
