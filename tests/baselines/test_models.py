"""The seven baselines: shapes, masking, learning, serialization, registry and CLI.

Models are built small (a 30-word vocabulary, 16 units) so the whole file runs
in well under a minute on two cores; the architecture is the same as at paper size.
"""
from __future__ import annotations

import json

import keras
import numpy as np
import pytest
from click.testing import CliRunner

from baselines import MODELS, ModelConfig, build_model, load_model, register_model
from baselines.batching import predict_by_length, used_length
from baselines.layers import MaskedGlobalAveragePooling1D
from preprocessing import model_file
from preprocessing.errors import IsarcasmError

NAMES = ["lstm", "att-lstm", "cnn", "3cnn", "siarn", "miarn", "dense-lstm"]
VOCAB = 30
MARKER = 2  # the toy task's "sarcastic" word
LEXICON_DIM = 3


def small_config(max_len: int = 10, **overrides) -> ModelConfig:
    sizes = {"vocab_size": VOCAB, "max_len": max_len, "embedding_dim": 16, "hidden": 16, "filters": 16,
             "attention_size": 8, "k": 4, "lexicon_dim": LEXICON_DIM}
    return ModelConfig(**{**sizes, **overrides})


def pad(texts: list[list[int]], length: int, pre: bool = False) -> np.ndarray:
    out = np.zeros((len(texts), length), dtype="int32")
    for row, text in enumerate(texts):
        if pre:
            out[row, length - len(text):] = text
        else:
            out[row, :len(text)] = text
    return out


def model_inputs(name: str, tokens: np.ndarray, lexicon: np.ndarray | None = None) -> dict:
    inputs = {"tokens": tokens}
    if "lexicon" in MODELS.get(name).inputs:
        inputs["lexicon"] = lexicon if lexicon is not None else np.ones((len(tokens), LEXICON_DIM), "float32")
    return inputs


@pytest.fixture(autouse=True)
def seeded():
    keras.utils.set_random_seed(1234)


def test_every_paper_model_is_registered():
    assert sorted(MODELS.names()) == sorted(NAMES)
    assert MODELS.get("dense-lstm").inputs == ("tokens", "lexicon")
    assert all(MODELS.get(n).inputs == ("tokens",) for n in NAMES if n != "dense-lstm")
    assert MODELS.get("dense-lstm").dropout == 0.3


def test_unknown_model_name_suggests_the_closest():
    with pytest.raises(IsarcasmError, match="did you mean 'miarn'"):
        build_model("miarm", small_config())


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("num_classes", [2, 4])
def test_output_is_a_probability_distribution(name, num_classes):
    model = build_model(name, small_config(num_classes=num_classes))
    tokens = np.random.default_rng(0).integers(1, VOCAB, size=(5, 10)).astype("int32")
    probabilities = model.predict(model_inputs(name, tokens), verbose=0)
    assert probabilities.shape == (5, num_classes)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-6)


# Lengths 1 and 2 are shorter than every convolution width and leave intra-attention
# with at most one pair; the last text fills the short padding exactly.
MASKING_TEXTS = [[7], [5, 3], [2, 9, 4, 4, 8, 6, 3], list(range(3, 15))]
#: Three texts that fit the default max_len of 10.
SAMPLE = pad(MASKING_TEXTS[:3], 10)


@pytest.mark.parametrize("name", NAMES)
def test_padding_does_not_change_the_prediction(name):
    """The same texts padded to 12 and to 30, at the end or the start, give the same probabilities."""
    short = build_model(name, small_config(max_len=12))
    long = build_model(name, small_config(max_len=30))
    long.set_weights(short.get_weights())
    lexicon = np.random.default_rng(1).normal(size=(len(MASKING_TEXTS), LEXICON_DIM)).astype("float32")
    reference = short.predict(model_inputs(name, pad(MASKING_TEXTS, 12), lexicon), verbose=0)
    for tokens in (pad(MASKING_TEXTS, 30), pad(MASKING_TEXTS, 30, pre=True)):
        np.testing.assert_allclose(long.predict(model_inputs(name, tokens, lexicon), verbose=0), reference, atol=1e-5)


@pytest.mark.parametrize("name", NAMES)
def test_batches_cut_to_their_longest_text_give_the_same_probabilities(name):
    """Per-batch padding: length-sorted batches cut to their own longest text give every text the
    probabilities of full-length batches, in the original row order (an all-padding row included)."""
    model = build_model(name, small_config(max_len=30, aux_heads={"kind": 3} if name == "dense-lstm" else {}))
    rng = np.random.default_rng(2)
    texts = [list(rng.integers(3, VOCAB, size=n)) for n in rng.integers(1, 31, size=23)] + [[]]
    inputs = model_inputs(name, pad(texts, 30), rng.normal(size=(len(texts), LEXICON_DIM)).astype("float32"))
    full = model.predict(inputs, batch_size=5, verbose=0)
    cut = predict_by_length(model, inputs, batch_size=5)
    assert keras.tree.flatten(cut)[0].shape == keras.tree.flatten(full)[0].shape
    for expected, got in zip(keras.tree.flatten(full), keras.tree.flatten(cut)):
        np.testing.assert_allclose(got, expected, atol=1e-6)


def test_used_length_is_the_position_after_the_last_word():
    ids = np.array([[3, 4, 0, 0], [0, 0, 0, 0], [5, 0, 6, 0], [1, 1, 1, 1]])
    assert used_length(ids).tolist() == [2, 0, 3, 4]


def test_a_model_with_a_fixed_input_length_gets_full_length_batches():
    """Runs saved before inputs took any length still predict (their batches are not cut)."""
    tokens = keras.Input(shape=(10,), dtype="int32", name="tokens")
    pooled = keras.layers.GlobalAveragePooling1D()(keras.layers.Embedding(VOCAB, 4, mask_zero=True)(tokens))
    model = keras.Model({"tokens": tokens}, keras.layers.Dense(2, activation="softmax")(pooled))
    inputs = {"tokens": SAMPLE}
    np.testing.assert_array_equal(predict_by_length(model, inputs), model.predict(inputs, verbose=0))


@pytest.mark.parametrize("name", ["lstm", "att-lstm", "siarn", "miarn", "dense-lstm"])
def test_recurrent_layers_never_take_the_cudnn_kernel(name):
    """cuDNN rejects texts padded before their words and all-padding rows (on a GPU, at run time);
    the CPU suite cannot see that failure, so check the setting itself."""
    model = build_model(name, small_config())
    recurrent = [layer for layer in model.layers if isinstance(layer, keras.layers.LSTM)]
    assert recurrent and all(layer.use_cudnn is False for layer in recurrent)


def toy_task(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Random tweets of 3-10 words; sarcastic (1) exactly when the marker word occurs."""
    labels = rng.integers(0, 2, size=n)
    texts = []
    for label in labels:
        words = list(rng.integers(MARKER + 1, VOCAB, size=rng.integers(3, 11)))
        if label:
            words[rng.integers(len(words))] = MARKER
        texts.append(words)
    return pad(texts, 10), labels


@pytest.mark.parametrize("name", NAMES)
def test_learns_a_separable_toy_task(name):
    rng = np.random.default_rng(7)
    (x_train, y_train), (x_test, y_test) = toy_task(384, rng), toy_task(200, rng)
    model = build_model(name, small_config())
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01), loss="sparse_categorical_crossentropy")
    model.fit(model_inputs(name, x_train), y_train, batch_size=32, epochs=6, verbose=0)
    predicted = model.predict(model_inputs(name, x_test), verbose=0).argmax(axis=1)
    assert (predicted == y_test).mean() >= 0.9


@pytest.mark.parametrize("name", NAMES)
def test_keras_file_round_trip_gives_identical_predictions(name, tmp_path, monkeypatch):
    model = build_model(name, small_config(num_classes=3))
    expected = model.predict(model_inputs(name, SAMPLE), verbose=0)
    model.save(tmp_path / "model.keras")
    monkeypatch.setattr(model_file, "LAYER_SLACK", 0)  # its config declares no more weights than the file holds
    model_file.check_model_file(tmp_path / "model.keras")
    loaded = keras.saving.load_model(tmp_path / "model.keras", safe_mode=True)
    np.testing.assert_array_equal(loaded.predict(model_inputs(name, SAMPLE), verbose=0), expected)
    assert [w.name for w in loaded.trainable_weights] == [w.name for w in model.trainable_weights]


def test_load_model_of_a_missing_file_says_so(tmp_path):
    with pytest.raises(IsarcasmError, match="no such model file"):
        load_model(tmp_path / "absent.keras")


def test_embedding_matrix_initialises_the_embedding_and_dense_lstm_keeps_a_frozen_copy():
    matrix = np.random.default_rng(3).normal(size=(VOCAB, 16)).astype("float32")
    model = build_model("dense-lstm", small_config(), embedding_matrix=matrix)
    np.testing.assert_array_equal(model.get_layer("embedding").get_weights()[0], matrix)
    frozen = model.get_layer("pretrained_embedding")
    assert not frozen.trainable
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.1), loss="sparse_categorical_crossentropy")
    x, y = toy_task(64, np.random.default_rng(0))
    model.fit(model_inputs("dense-lstm", x), y, epochs=1, verbose=0)
    assert not np.allclose(model.get_layer("embedding").get_weights()[0], matrix)  # fine-tuned
    np.testing.assert_array_equal(frozen.get_weights()[0], matrix)  # still the pre-trained vectors


def test_dense_lstm_reads_the_lexicon_features():
    model = build_model("dense-lstm", small_config(dropout=0.0))
    zeros = model.predict(model_inputs("dense-lstm", SAMPLE, np.zeros((3, LEXICON_DIM), "float32")), verbose=0)
    ones = model.predict(model_inputs("dense-lstm", SAMPLE, np.full((3, LEXICON_DIM), 5.0, "float32")), verbose=0)
    assert np.abs(zeros - ones).max() > 1e-4


def test_dense_lstm_needs_a_lexicon_width():
    with pytest.raises(IsarcasmError, match="lexicon_dim"):
        build_model("dense-lstm", small_config(lexicon_dim=0))


def test_auxiliary_heads_add_named_softmax_outputs():
    model = build_model("dense-lstm", small_config(aux_heads={"type": 4, "hashtag": 3}))
    outputs = model.predict(model_inputs("dense-lstm", SAMPLE), verbose=0)
    assert {name: out.shape for name, out in outputs.items()} == {"label": (3, 2), "type": (3, 4), "hashtag": (3, 3)}


def test_paper_dropout_is_the_default_and_can_be_overridden():
    assert build_model("cnn", small_config()).get_layer("dropout").rate == 0.5
    assert build_model("cnn", small_config(dropout=0.2)).get_layer("dropout").rate == 0.2
    assert "dropout" not in [layer.name for layer in build_model("lstm", small_config()).layers]


def test_wrong_embedding_matrix_shape_is_a_one_line_error():
    with pytest.raises(IsarcasmError, match=r"shape \(30, 8\).*expects \(30, 16\)"):
        build_model("lstm", small_config(), embedding_matrix=np.zeros((VOCAB, 8)))


def test_model_config_round_trips_through_json_and_rejects_bad_values():
    config = small_config(aux_heads={"type": 4})
    assert ModelConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config
    with pytest.raises(IsarcasmError, match="unknown field"):
        ModelConfig.from_dict({**config.to_dict(), "hidden_size": 3})
    with pytest.raises(IsarcasmError, match="missing required field"):
        ModelConfig.from_dict({"vocab_size": 10})
    with pytest.raises(IsarcasmError, match="dropout"):
        small_config(dropout=1.5)
    with pytest.raises(IsarcasmError, match="auxiliary head name 'label'"):
        small_config(aux_heads={"label": 3})


def test_a_plugin_can_register_a_model():
    name = "test-bag-of-words"

    @register_model(name, paper="mean of word vectors")
    def bag_of_words(encoded, config):
        return MaskedGlobalAveragePooling1D()(encoded.embedded)

    try:
        model = build_model(name, small_config())
        assert model.predict({"tokens": SAMPLE}, verbose=0).shape == (3, 2)
        with pytest.raises(ValueError, match="registered twice"):
            register_model(name, paper="again")(bag_of_words)
    finally:
        MODELS._items.pop(name)


def test_register_model_rejects_unknown_inputs():
    with pytest.raises(ValueError, match="inputs"):
        register_model("test-bad", paper="x", inputs=("tokens", "images"))


# --- CLI ---------------------------------------------------------------------------------------

def invoke(*args):
    from experiments.cli import main

    return CliRunner().invoke(main, ["models", *args])


def test_cli_list_json_gives_every_model_with_its_parameter_count():
    result = invoke("list", "--json", "--lexicon-dim", "43")
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in json.loads(result.output)}
    assert list(rows) == MODELS.names()
    # LSTM: 10k x 100 embedding + 4 * (100 * (100 + 100) + 100) gates + 2 * 101 head.
    assert rows["lstm"]["params"] == 1_000_000 + 80_400 + 202
    # Dense-LSTM's frozen copy of the word vectors is not trainable.
    assert rows["dense-lstm"]["params"] - rows["dense-lstm"]["trainable_params"] == 1_000_000


def test_cli_summary_prints_the_keras_summary():
    result = invoke("summary", "siarn", "--vocab-size", "500")
    assert result.exit_code == 0, result.output
    assert "intra_attention" in result.output and "Total params" in result.output


def test_cli_unknown_model_is_one_line_with_a_suggestion():
    result = invoke("summary", "att_lstm")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [(
        "Error: unknown model 'att_lstm'; did you mean 'att-lstm'? "
        "(known: lstm, att-lstm, dense-lstm, cnn, 3cnn, siarn, miarn)")]
