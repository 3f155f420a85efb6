"""Training's engine: a batch computed as length-sorted pieces, their gradients summed into one update."""
from types import SimpleNamespace

import keras
import numpy as np
import pytest
from sklearn.metrics import f1_score
from test_batching import bucket_inputs

from baselines import ModelConfig, build_model
from baselines.batching import (
    SplitBatches, batches_per_epoch, class_ratio_rows, largest_batch, shuffled_rows, used_length)
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.one.selection import ValidationLogs
from experiments.runs.one.training import fit_data, set_determinism, training_optimizer


def pieces_of(batches: SplitBatches) -> list:
    return [batches[index] for index in range(len(batches))]


def test_every_batch_is_split_into_sorted_pieces_cut_to_their_longest_text():
    x, lengths = bucket_inputs(rows=300)
    y = np.eye(2, dtype="float32")[lengths % 2]
    batches = SplitBatches(x, y, lambda rng: shuffled_rows(rng, 300, 64), parts=4, seed=0)
    pieces = pieces_of(batches)
    assert len(pieces) == 4 * 5  # ceil(300 / 64) batches of 4 pieces
    for index, (inputs, targets, weights) in enumerate(pieces):
        width = inputs["tokens"].shape[1]
        if index:  # the first piece is widened so that Keras keeps the time axis variable
            assert width == max(1, used_length(inputs["tokens"]).max())
        assert inputs["lexicon"].shape == (len(targets), 3) and weights.shape == (len(targets),)
    for first in range(0, len(pieces), 4):
        lengths_in = [used_length(p[0]["tokens"]) for p in pieces[first:first + 4]]
        assert all(a.max() <= b.min() for a, b in zip(lengths_in, lengths_in[1:]))  # sorted across pieces
    assert pieces[0][0]["tokens"].shape[1] == x["tokens"].shape[1] + 1
    assert sum(len(targets) for _, targets, _ in pieces) == 300


def test_the_weights_make_the_mean_of_piece_means_the_batch_mean():
    x, lengths = bucket_inputs(rows=130)
    loss = np.random.default_rng(1).random(130)  # any per-row loss
    batches = SplitBatches({"tokens": x["tokens"]}, np.arange(130), lambda rng: shuffled_rows(rng, 130, 64),
                           parts=4, seed=0)
    pieces = pieces_of(batches)
    for first in range(0, len(pieces), 4):
        rows = [p[1] for p in pieces[first:first + 4]]
        weights = [p[2] for p in pieces[first:first + 4]]
        piece_means = [np.mean(w * loss[r]) for r, w in zip(rows, weights)]  # Keras' sum_over_batch_size
        real = np.unique(np.concatenate([r for r, w in zip(rows, weights) if w.any()]))
        assert np.mean(piece_means) == pytest.approx(np.mean(loss[real]))
    assert len(pieces) == 12 and len(pieces[-1][1]) == 1  # the last batch of 2 rows: pieces of one text,
    assert [p[2][0] for p in pieces[-4:]].count(0.0) == 2  # two of them empty, weight 0


def test_class_weights_ride_on_the_row_weights():
    x, lengths = bucket_inputs(rows=64)
    labels = lengths % 2
    row_weights = np.where(labels == 1, 3.0, 1.0).astype("float32")
    batches = SplitBatches({"tokens": x["tokens"]}, labels, lambda rng: class_ratio_rows(rng, labels, 1), parts=2,
                           seed=0, row_weights=row_weights)
    for _, targets, weights in pieces_of(batches):
        np.testing.assert_allclose(weights / np.where(targets == 1, 3.0, 1.0), weights[0] / (3.0 if targets[0] else 1))


def test_one_update_from_the_pieces_equals_the_update_from_the_padded_batch():
    """The pieces give the same gradient step, up to floating-point order."""
    config = ModelConfig(vocab_size=30, max_len=20, embedding_dim=8, hidden=8, num_classes=2, dropout=0.0)
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 21, size=16)
    tokens = rng.integers(2, 30, size=(16, 20)).astype("int32")
    tokens[np.arange(20) >= lengths[:, None]] = 0
    y = np.eye(2, dtype="float32")[lengths % 2]
    weights = {}
    for parts in (1, 4):
        keras.utils.set_random_seed(3)
        model = build_model("lstm", config)
        optimizer = keras.optimizers.SGD(0.5, gradient_accumulation_steps=parts if parts > 1 else None)
        model.compile(optimizer=optimizer, loss="categorical_crossentropy")
        batches = SplitBatches({"tokens": tokens}, y, lambda r: shuffled_rows(r, 16, 16), parts=parts, seed=0)
        for index in range(len(batches)):
            inputs, targets, sample_weight = batches[index]
            model.train_on_batch(inputs, targets, sample_weight=sample_weight)
        weights[parts] = model.get_weights()
    for whole, split in zip(weights[1], weights[4]):
        np.testing.assert_allclose(split, whole, rtol=1e-4, atol=1e-6)
    assert any(not np.allclose(w, v) for w, v in zip(weights[1], build_model("lstm", config).get_weights()))


def test_validation_logs_are_what_keras_metrics_and_losses_give():
    rng = np.random.default_rng(2)
    gold = np.eye(2, dtype="float32")[rng.integers(0, 2, size=50)]
    probabilities = rng.dirichlet([1, 1], size=50).astype("float32")
    logs = ValidationLogs("val_f1", gold).of(probabilities, gold)
    assert logs["val_f1"] == pytest.approx(f1_score(gold.argmax(1), probabilities.argmax(1)))
    expected = float(keras.losses.CategoricalCrossentropy()(gold, probabilities))
    assert logs["val_loss"] == pytest.approx(expected, rel=1e-5)
    heads = ValidationLogs("val_label_f1", {"label": gold, "kind": gold}).of({"label": probabilities,
                                                                              "kind": probabilities}, gold)
    assert heads["val_loss"] == pytest.approx(2 * expected, rel=1e-5)


def _trained_weights(name: str, parts: int, optimizer) -> list:
    """``name``'s weights after 3 Adam updates on 3 batches of 16 toy texts, each computed in ``parts`` pieces."""
    config = ModelConfig(vocab_size=12, max_len=20, embedding_dim=8, hidden=8, filters=8, num_classes=2, dropout=0.0)
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 21, size=48)
    tokens = rng.integers(2, 12, size=(48, 20)).astype("int32")  # 10 words: each occurs many times in a batch
    tokens[np.arange(20) >= lengths[:, None]] = 0
    y = np.eye(2, dtype="float32")[lengths % 2]
    keras.utils.set_random_seed(3)
    model = build_model(name, config)
    model.compile(optimizer=optimizer, loss="categorical_crossentropy")
    batches = SplitBatches({"tokens": tokens}, y, lambda r: shuffled_rows(r, 48, 16), parts=parts, seed=0)
    for index in range(len(batches)):
        inputs, targets, sample_weight = batches[index]
        model.train_on_batch(inputs, targets, sample_weight=sample_weight)
    return model.get_weights()


@pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="sparse word-vector gradients are TensorFlow's")
@pytest.mark.parametrize("name", ["lstm", "cnn"])
def test_piece_adam_makes_the_padded_batchs_adam_updates_and_keras_accumulation_does_not(name):
    """TensorFlow's Adam applies the word vectors' gradient slice by slice; PieceAdam keeps that."""
    from baselines.optimizers import PieceAdam

    whole = _trained_weights(name, 1, keras.optimizers.Adam(0.05))
    pieces = _trained_weights(name, 2, PieceAdam(2, capacity=8 * 21, learning_rate=0.05))
    for expected, got in zip(whole, pieces):
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    dense = _trained_weights(name, 2, keras.optimizers.Adam(0.05, gradient_accumulation_steps=2))
    assert not np.allclose(dense[0], whole[0], atol=1e-3)  # the word vectors: dense Adam is another optimiser


def test_a_class_ratio_batch_holds_at_most_one_text_more_per_class_beyond_the_first():
    rng = np.random.default_rng(0)
    for _ in range(200):
        classes = int(rng.integers(2, 5))
        labels = rng.integers(0, classes, size=int(rng.integers(20, 400)))
        batch_size = int(rng.integers(4, 64))
        rows = class_ratio_rows(rng, labels, batches_per_epoch(len(labels), batch_size))
        assert max(len(r) for r in rows) <= largest_batch("class-ratio", batch_size, classes)
    nine_seven = np.array([0] * 9 + [1] * 7)  # parts of 5 + 4 and 4 + 3 texts: the first batch holds 9 of 8
    assert max(len(r) for r in class_ratio_rows(rng, nine_seven, 2)) == 9 == largest_batch("class-ratio", 8, 2)
    assert largest_batch("shuffled", 8, 2) == largest_batch("class-ratio-once", 8, 2) == 8


@pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="PieceAdam's buffers are TensorFlow's")
def test_training_on_class_ratio_batches_over_the_batch_size():
    """`reproduce table6 --protocol authors-code` stopped on SemEval-2018's Dense-LSTM: a class-ratio batch of 129
    texts gave its first piece 65 full-width rows, more than PieceAdam's buffer held (64 rows)."""
    labels = np.array([0] * 9 + [1] * 7)
    tokens = np.random.default_rng(1).integers(2, 30, size=(16, 10)).astype("int32")  # every text full length
    y = np.eye(2, dtype="float32")[labels]
    train = TrainConfig(batch_size=8, batching="class-ratio")
    plan = SimpleNamespace(train=train, seed=0)
    data = SimpleNamespace(x={"train": {"tokens": tokens}}, y_fit={"train": y}, y={"train": y},
                           corpus_order=np.arange(16))
    set_determinism(0)
    model = build_model("cnn", ModelConfig(vocab_size=30, max_len=10, embedding_dim=4, filters=4, num_classes=2))
    model.compile(optimizer=training_optimizer(train, 8, 2, {"tokens": tokens}), loss="categorical_crossentropy")
    history = model.fit(**fit_data(plan, data), epochs=3, verbose=0)
    assert len(history.history["loss"]) == 3 and np.isfinite(history.history["loss"]).all()


class _NoteRows(keras.layers.Layer):
    """Notes the rows of every call (a toy text's first token is its row + 2): fit() calls it once a step."""

    def __init__(self, note, **kwargs):
        super().__init__(**kwargs)
        self.note = note  # a function: a list attribute would be Keras' tracked copy

    def call(self, tokens):
        self.note(sorted(np.asarray(tokens)[:, 0] - 2))
        return tokens

    def compute_output_spec(self, tokens):
        return keras.KerasTensor(tokens.shape, tokens.dtype)


def _steps(epochs: int = 3, batch_order: str = "once") -> list[list]:
    """Per epoch, the rows of each step fit() trains on, on 20 toy texts in batches of 8, seeded as a run is."""
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 11, size=20)
    tokens = rng.integers(2, 40, size=(20, 10)).astype("int32")
    tokens[:, 0] = np.arange(20) + 2
    tokens[np.arange(10) >= lengths[:, None]] = 0
    y = np.eye(2, dtype="float32")[lengths % 2]
    plan = SimpleNamespace(train=TrainConfig(batch_size=8, batch_order=batch_order), seed=0)
    data = SimpleNamespace(x={"train": {"tokens": tokens}}, y_fit={"train": y}, y={"train": y},
                           corpus_order=np.arange(20))
    set_determinism(0)
    seen = []
    inputs = {"tokens": keras.Input(shape=(None,), dtype="int32", name="tokens")}
    embedded = keras.layers.Embedding(40, 4, mask_zero=True)(_NoteRows(seen.append)(inputs["tokens"]))
    model = keras.Model(inputs, keras.layers.Dense(2, activation="softmax")(
        keras.layers.GlobalAveragePooling1D()(embedded)))
    model.compile(optimizer="sgd", loss="categorical_crossentropy", run_eagerly=True)
    model.fit(**fit_data(plan, data), epochs=epochs, verbose=0)
    per_epoch = len(seen) // epochs
    return [seen[start:start + per_epoch] for start in range(0, len(seen), per_epoch)]


@pytest.mark.skipif(keras.backend.backend() != "tensorflow", reason="Keras draws them every epoch on JAX and torch")
def test_every_epoch_trains_on_the_same_batches_in_the_same_order():
    """On TensorFlow Keras' shuffled batches are drawn once after the run's seeding; a run's are too, and fit()
    takes each batch's pieces one after the other (they make one update)."""
    epochs = _steps()
    assert epochs[1] == epochs[0] and epochs[2] == epochs[0]
    steps = epochs[0]
    batches = [steps[i] + steps[i + 1] for i in range(0, len(steps), 2)]
    assert sorted(len(rows) for rows in batches) == [4, 8, 8]  # a piece pairs with its own batch's other half
    assert sorted(row for rows in batches for row in rows) == list(range(20))


def test_batch_order_each_epoch_draws_new_batches_every_epoch_from_the_seed():
    """``--batch-order each-epoch``: every epoch a new permutation cut into batches, on every backend, the same
    permutations when the run is repeated."""
    epochs = _steps(epochs=3, batch_order="each-epoch")
    assert epochs[1] != epochs[0] and epochs[2] not in epochs[:2]
    for steps in epochs:
        batches = [steps[i] + steps[i + 1] for i in range(0, len(steps), 2)]
        assert sorted(len(rows) for rows in batches) == [4, 8, 8]
        assert sorted(row for rows in batches for row in rows) == list(range(20))
    assert _steps(epochs=3, batch_order="each-epoch") == epochs


def test_a_run_of_an_earlier_engine_revision_is_never_reused(tmp_path, monkeypatch):
    """The engine's revision is part of its runs' identity: runs of the engine before the batch-draw fix get
    another hash."""
    from toy_corpus import write_corpus

    import experiments.runs.one.training as training
    from experiments.runs.one.spec import RunSpec
    from preprocessing.corpora import load_corpus

    dataset = load_corpus(str(write_corpus(tmp_path / "toy.csv")), tmp_path, split_col="split")

    def hash_of(revision: int) -> str:
        monkeypatch.setattr(training, "FAST_ENGINE_REVISION", revision)
        spec = RunSpec(dataset.name, "cnn", 0, TrainConfig(embeddings="random"))
        return training.expected_hash(spec, dataset, tmp_path)

    revision = training.FAST_ENGINE_REVISION
    assert hash_of(revision) != hash_of(revision + 1)
