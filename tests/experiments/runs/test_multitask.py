"""Dense-LSTM's multi-task heads (Wu et al. 2018): auxiliary labels read, trained, and kept out of the scores."""
import json
from dataclasses import replace

import numpy as np
import pytest
from test_lexicons import write_lexicons
from toy_corpus import write_corpus, train_toy

from experiments.runs.one.inference import load_run
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.one.training import aux_targets
from preprocessing.corpora import load_corpus
from preprocessing.errors import IsarcasmError

FAST = TrainConfig(epochs=2, embeddings="random")


@pytest.fixture(scope="module")
def multitask(tmp_path_factory):
    """The toy corpus with two auxiliary tasks on its training records: 'echo' (= the label) and 'parity'."""
    folder = tmp_path_factory.mktemp("data")
    write_lexicons(folder)
    path = write_corpus(folder / "toy.csv")
    dataset = load_corpus(str(path), folder, split_col="split")
    records = [replace(r, aux=(("echo", r.label), ("parity", int(r.id[-1]) % 3))) if r.split == "train" else r
               for r in dataset.records]
    tasks = {"echo": ("no", "yes"), "parity": ("0", "1", "2")}
    return replace(dataset, records=records, aux_labels=tasks), folder


def test_aux_targets_are_one_hot_per_task(multitask):
    dataset, _ = multitask
    train = dataset.split("train")[:5]
    targets = aux_targets(dataset, train, dataset.aux_labels)
    assert targets["parity"].shape == (5, 3) and (targets["parity"].sum(axis=1) == 1).all()
    np.testing.assert_array_equal(targets["echo"].argmax(axis=1), [r.label for r in train])
    with pytest.raises(IsarcasmError, match="no 'echo' label"):
        aux_targets(dataset, dataset.split("test")[:1], dataset.aux_labels)


def test_dense_lstm_trains_every_head_and_is_scored_on_the_label_alone(multitask, tmp_path):
    dataset, folder = multitask
    run = train_toy(dataset, "dense-lstm", tmp_path / "run", folder, FAST)
    config = json.loads((run.directory / "config.json").read_text())
    assert config["aux_tasks"] == {"echo": ["no", "yes"], "parity": ["0", "1", "2"]}
    assert config["model_config"]["aux_heads"] == {"echo": 2, "parity": 3}
    header = (run.directory / "history.csv").read_text().splitlines()[0].split(",")
    assert {"f1", "val_f1", "echo_loss", "parity_loss", "val_parity_loss"} <= set(header)
    assert run.metrics["test"]["confusion_matrix"] and 1 <= run.metrics["selected_epoch"] <= 2
    trained = load_run(run.directory, folder)
    probabilities = trained.probabilities(["movie yeah right", "coffee is fine"])
    assert probabilities.shape == (2, 2)  # the label's head only
    np.testing.assert_allclose(probabilities.sum(axis=1), 1, rtol=1e-5)


def test_single_head_models_ignore_the_auxiliary_labels(multitask, tmp_path):
    dataset, folder = multitask
    run = train_toy(dataset, "cnn", tmp_path / "run", folder, FAST)
    config = json.loads((run.directory / "config.json").read_text())
    assert "aux_tasks" not in config and config["model_config"]["aux_heads"] == {}


def test_class_weights_are_refused_for_a_multi_task_run(multitask, tmp_path):
    dataset, folder = multitask
    with pytest.raises(IsarcasmError, match="single-head"):
        train_toy(dataset, "dense-lstm", tmp_path / "run", folder, replace(FAST, class_weight="balanced"))


def test_semeval2018_b_training_tweets_carry_irony_and_the_removed_hashtag(real_data_dir):
    dataset = load_corpus("semeval2018-b", real_data_dir)
    train = dataset.split("train")
    assert dataset.aux_labels["hashtag"] == ("none", "#not", "#sarcasm", "#irony")
    hashtags = np.bincount([dict(r.aux)["hashtag"] for r in train], minlength=4)
    assert hashtags.tolist() == [1459, 1145, 776, 454]  # counted from the original-text training file
    assert all(dict(r.aux)["ironic"] == int(r.label != 0) for r in train)
    assert all(r.aux == () for r in dataset.split("test"))
    assert load_corpus("semeval2018-a", real_data_dir).aux_labels == {}
