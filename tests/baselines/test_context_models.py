"""The context-aware variant of the token-only models: shared embedding, masking, learning, saving."""
from __future__ import annotations

import warnings

import keras
import numpy as np
import pytest

from baselines import build_model, load_model
from preprocessing import model_file
from preprocessing.errors import IsarcasmError
from test_models import MARKER, VOCAB, pad, small_config

CONTEXT_MODELS = ["lstm", "att-lstm", "cnn", "3cnn", "siarn", "miarn"]
RESPONSES = [[5, 6, 7], [8, 9, 10, 11, 12], [13]]
CONTEXTS = [[14, 15, 16, 17], [], [18, 19]]  # the second text has no context: all padding


@pytest.fixture(autouse=True)
def seeded():
    keras.utils.set_random_seed(99)


def context_config(max_len=8, context_len=12, **overrides):
    return small_config(max_len=max_len, context_len=context_len, **overrides)


def test_the_context_has_its_own_encoder_and_shares_the_embedding():
    model = build_model("lstm", context_config())
    assert set(model.input) == {"tokens", "context"}
    assert [layer.name for layer in model.layers if isinstance(layer, keras.Model)] == \
        ["response_encoder", "context_encoder"]
    embeddings = [w for w in model.weights if w.path.endswith("embeddings")]
    assert len(embeddings) == 1
    response, context = model.get_layer("response_encoder"), model.get_layer("context_encoder")
    lstm_kernels = [w for w in response.weights + context.weights if w.path.endswith("lstm_cell/kernel")]
    assert len(lstm_kernels) == 2  # two LSTMs, not one reused


@pytest.mark.parametrize("name", CONTEXT_MODELS)
def test_padding_of_either_input_does_not_change_the_prediction(name):
    short = build_model(name, context_config(max_len=6, context_len=5))
    long = build_model(name, context_config(max_len=15, context_len=20))
    long.set_weights(short.get_weights())
    reference = short.predict({"tokens": pad(RESPONSES, 6), "context": pad(CONTEXTS, 5)}, verbose=0)
    for pre in (False, True):
        inputs = {"tokens": pad(RESPONSES, 15, pre=pre), "context": pad(CONTEXTS, 20, pre=pre)}
        np.testing.assert_allclose(long.predict(inputs, verbose=0), reference, atol=1e-5)
    assert np.isfinite(reference).all()


def context_task(n, rng):
    """The label is only in the context: sarcastic exactly when the marker word occurs in it."""
    labels = rng.integers(0, 2, size=n)
    responses, contexts = [], []
    for label in labels:
        responses.append(list(rng.integers(MARKER + 1, VOCAB, size=rng.integers(2, 8))))
        words = list(rng.integers(MARKER + 1, VOCAB, size=rng.integers(3, 12)))
        if label:
            words[rng.integers(len(words))] = MARKER
        contexts.append(words)
    return {"tokens": pad(responses, 8), "context": pad(contexts, 12)}, labels


@pytest.mark.parametrize("name", ["lstm", "cnn"])
def test_learns_a_task_whose_label_is_in_the_context(name):
    rng = np.random.default_rng(3)
    (x_train, y_train), (x_test, y_test) = context_task(384, rng), context_task(200, rng)
    model = build_model(name, context_config())
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01), loss="sparse_categorical_crossentropy")
    model.fit(x_train, y_train, batch_size=32, epochs=6, verbose=0)
    assert (model.predict(x_test, verbose=0).argmax(axis=1) == y_test).mean() >= 0.9


def test_keras_file_round_trip_gives_identical_predictions(tmp_path, monkeypatch):
    model = build_model("siarn", context_config(num_classes=3))
    inputs = {"tokens": pad(RESPONSES, 8), "context": pad(CONTEXTS, 12)}
    expected = model.predict(inputs, verbose=0)
    model.save(tmp_path / "model.keras")
    monkeypatch.setattr(model_file, "LAYER_SLACK", 0)  # the embedding both encoders share is declared once
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loaded = load_model(tmp_path / "model.keras")
        np.testing.assert_array_equal(loaded.predict(inputs, verbose=0), expected)
    assert not [w for w in caught if "masking" in str(w.message)]


def test_a_model_with_other_inputs_has_no_context_variant():
    with pytest.raises(IsarcasmError, match="dense-lstm.*models that read tokens only"):
        build_model("dense-lstm", context_config())


def test_context_len_must_not_be_negative():
    with pytest.raises(IsarcasmError, match="context_len"):
        context_config(context_len=-1)


def test_training_keeps_every_column_of_a_context_aware_models_inputs():
    """Its encoders are built for max_len and context_len, so its batches are never cut to their longest text
    (training's pieces and per-epoch record); a token-only model's are."""
    from baselines.batching import cut_inputs, predict_by_length

    assert cut_inputs(build_model("cnn", context_config())) == ()
    assert cut_inputs(build_model("cnn", small_config())) == ("tokens",)
    model = build_model("cnn", context_config())
    inputs = {"tokens": pad(RESPONSES, 8), "context": pad(CONTEXTS, 12)}
    np.testing.assert_allclose(predict_by_length(model, inputs), model.predict(inputs, verbose=0), atol=1e-6)
