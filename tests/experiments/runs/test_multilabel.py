"""Multi-label tasks (iSarcasmEval task B): metrics against scikit-learn, sigmoid heads, a run end to end."""
from dataclasses import replace

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, f1_score, precision_recall_fscore_support
from toy_corpus import write_corpus, train_toy

from baselines import build_model
from experiments.runs.one.inference import evaluate_run, load_run
from experiments.runs.one.metrics import classification_metrics, multilabel_metrics, score
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.one.outputs import read_predictions
from experiments.runs.one.training import targets
from preprocessing.corpora import load_corpus
from preprocessing.errors import IsarcasmError
from test_models import small_config

GOLD = np.array([[1, 0, 0], [1, 1, 0], [0, 0, 1], [1, 0, 1], [0, 1, 0]])
PREDICTED = np.array([[1, 0, 0], [1, 0, 0], [0, 1, 1], [1, 0, 1], [0, 0, 0]])


def test_multilabel_metrics_match_scikit_learn():
    metrics = multilabel_metrics(GOLD, PREDICTED)
    for average in ("macro", "micro", "weighted", "samples"):
        assert metrics[f"f1_{average}"] == pytest.approx(f1_score(GOLD, PREDICTED, average=average, zero_division=0))
    assert metrics["accuracy"] == pytest.approx(accuracy_score(GOLD, PREDICTED)) == pytest.approx(2 / 5)
    precision, recall, f1, support = precision_recall_fscore_support(GOLD, PREDICTED, zero_division=0)
    assert [metrics["per_class"][str(k)]["f1"] for k in range(3)] == pytest.approx(f1)
    assert [metrics["per_class"][str(k)]["support"] for k in range(3)] == [3, 2, 2]
    # by hand: labels 0 and 2 exactly right (F1 1), label 1 never right (F1 0)
    assert metrics["f1_macro"] == pytest.approx((1 + 0 + 1) / 3)


def test_score_thresholds_each_label_or_takes_the_single_label_path():
    probabilities = np.array([[0.9, 0.2, 0.1], [0.6, 0.4, 0.3], [0.1, 0.5, 0.7], [0.8, 0.1, 0.55], [0.3, 0.2, 0.1]])
    assert score(GOLD, probabilities, 0.5, multi_label=True) == multilabel_metrics(GOLD, PREDICTED)
    one_hot = np.eye(3)[[0, 1, 2, 2, 1]]
    assert score(one_hot, probabilities, 0.5, multi_label=False) == \
        classification_metrics([0, 1, 2, 2, 1], probabilities.argmax(axis=1), 3)


def test_a_multi_label_model_has_independent_sigmoid_outputs():
    model = build_model("cnn", small_config(num_classes=4, multi_label=True))
    out = model.predict({"tokens": np.array([[3, 4, 5, 0, 0, 0, 0, 0, 0, 0]])}, verbose=0)
    assert out.shape == (1, 4) and ((out > 0) & (out < 1)).all()
    assert model.get_layer("label").activation.__name__ == "sigmoid"


@pytest.fixture(scope="module")
def tagged(tmp_path_factory):
    """The toy corpus as a multi-label task: 'yeah right' texts carry a and b, the others c."""
    path = write_corpus(tmp_path_factory.mktemp("data") / "toy.csv")
    dataset = load_corpus(str(path), path.parent, split_col="split")
    records = [replace(r, types=("a", "b") if r.label else ("c",)) for r in dataset.records]
    return replace(dataset, records=records, label_names=("a", "b", "c"), multi_label=True), path.parent


def test_targets_are_multi_hot(tagged):
    dataset, _ = tagged
    rows = targets(dataset, dataset.records[:2])
    assert rows.tolist() == [[1, 1, 0], [0, 0, 1]]


def test_a_multi_label_run_end_to_end(tagged, tmp_path):
    dataset, data_dir = tagged
    config = TrainConfig(epochs=8, batch_size=32, learning_rate=0.01, embeddings="random")
    run = train_toy(dataset, "cnn", tmp_path / "run", data_dir, config)
    test = run.metrics["test"]
    assert test["f1_macro"] >= 0.9 and "f1_sarcastic" not in test and "f1_samples" in test
    assert (run.directory / "predictions.tsv").read_text().splitlines()[1].split("\t")[1] in ("0|1", "2")
    with pytest.raises(IsarcasmError, match="multi-label predictions"):
        read_predictions(run.directory / "predictions.tsv")

    loaded = load_run(run.directory, data_dir)
    assert loaded.labels(np.array([[0.9, 0.6, 0.1], [0.1, 0.2, 0.3]])) == ["a|b", "(none)"]
    assert evaluate_run(loaded, dataset, force=True)["test"]["f1_macro"] == pytest.approx(test["f1_macro"])
    single = load_corpus(dataset.name, data_dir, split_col="split")
    with pytest.raises(IsarcasmError, match="multi-label classes but corpus .* single-label"):
        evaluate_run(loaded, replace(single, label_names=("x", "y", "z")))
    with pytest.raises(IsarcasmError, match="class_weight balanced is for single-label"):
        train_toy(dataset, "cnn", tmp_path / "weighted", data_dir, replace(config, class_weight="balanced"))
