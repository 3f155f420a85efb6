"""--initial-state random: every LSTM starts from a state drawn uniformly in ±0.01 for every batch,
as the iSarcasm authors' code does (sarcasm-cronos src/main.py:134-138); zeros (Keras') is unchanged."""
from __future__ import annotations

from pathlib import Path

import keras
import numpy as np
import pytest
from keras import layers
from test_models import model_inputs, pad, small_config

from baselines import build_model, load_model, main_output
from baselines.config import INITIAL_STATES
from baselines.layers import INITIAL_STATE_SCALE, RandomStateLSTM
from experiments.runs.one.protocol import INITIAL_STATES as SETTING_VALUES
from experiments.runs.one.protocol import TrainConfig

RECURRENT = ["lstm", "att-lstm", "dense-lstm", "siarn", "miarn"]
TEXTS = [[7], [5, 3], [2, 9, 4, 4, 8, 6, 3], []]


def built(name: str, initial_state: str, seed: int = 0) -> keras.Model:
    keras.utils.set_random_seed(seed)
    return build_model(name, small_config(initial_state=initial_state))


def lstm_layers(model: keras.Model) -> list:
    return [layer for layer in model.layers if isinstance(layer, layers.LSTM)]


def predict(model: keras.Model, name: str = "lstm") -> np.ndarray:
    return main_output(model.predict(model_inputs(name, pad(TEXTS, 10)), verbose=0))


def initial_states(layer: RandomStateLSTM, rows: int = 64, training: bool = False) -> np.ndarray:
    """The layer's h and c after reading only padding: the state it started from."""
    _, h, c = layer(np.ones((rows, 3, 2), "float32"), mask=np.zeros((rows, 3), bool), training=training)
    return np.stack([keras.ops.convert_to_numpy(h), keras.ops.convert_to_numpy(c)])


def test_the_setting_and_the_model_config_take_the_same_values_and_zeros_keeps_old_hashes():
    assert SETTING_VALUES == INITIAL_STATES and small_config().initial_state == "zeros"
    assert "initial_state" not in TrainConfig().identity()
    assert TrainConfig(initial_state="random").identity()["initial_state"] == "random"
    assert TrainConfig(initial_state="random").variant() == "initial-state-random"


@pytest.mark.parametrize("name", RECURRENT)
def test_zeros_is_keras_own_lstm_and_random_changes_only_the_initial_state(name):
    zeros, random = built(name, "zeros"), built(name, "random")
    assert lstm_layers(zeros) and all(type(layer) is layers.LSTM for layer in lstm_layers(zeros))
    assert len(lstm_layers(random)) == len(lstm_layers(zeros))
    assert all(type(layer) is RandomStateLSTM for layer in lstm_layers(random))
    # the random state takes no other random number: the same seed gives the same initial weights
    for a, b in zip(zeros.get_weights(), random.get_weights()):
        np.testing.assert_array_equal(a, b)
    moved = np.abs(predict(zeros, name) - predict(random, name)).max()
    assert 0 < moved < 0.05


def test_cnn_models_have_no_lstm_to_start():
    for name in ("cnn", "3cnn"):
        assert not lstm_layers(built(name, "random"))


def test_the_state_is_uniform_in_the_authors_range_and_new_for_every_batch():
    keras.utils.set_random_seed(0)
    layer = RandomStateLSTM(4, return_state=True)
    first, second = initial_states(layer), initial_states(layer, training=True)
    for states in (first, second):
        assert np.abs(states).max() <= INITIAL_STATE_SCALE
        assert np.abs(states).max() > 0.9 * INITIAL_STATE_SCALE and abs(states.mean()) < 0.2 * INITIAL_STATE_SCALE
        assert len(np.unique(states)) == states.size  # every row, unit, h and c its own draw
    assert not np.array_equal(first, second)  # in prediction and in training alike, a new draw per batch
    keras.utils.set_random_seed(0)
    np.testing.assert_array_equal(initial_states(RandomStateLSTM(4, return_state=True)), first)  # seeded


def test_given_a_zero_state_it_computes_as_keras_lstm():
    keras.utils.set_random_seed(0)
    plain, random = layers.LSTM(4), RandomStateLSTM(4)
    words = np.random.default_rng(0).normal(size=(3, 5, 2)).astype("float32")
    zero = [np.zeros((3, 4), "float32")] * 2
    plain(words), random(words)
    random.set_weights(plain.get_weights())
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(plain(words, initial_state=zero)),
                                  keras.ops.convert_to_numpy(random(words, initial_state=zero)))


def test_the_same_seed_gives_the_same_draws_and_a_saved_model_reloads_drawing_them_again(tmp_path: Path):
    model = built("siarn", "random")
    first = predict(model, "siarn")
    assert not np.array_equal(predict(model, "siarn"), first)  # the next batch starts from other states
    np.testing.assert_array_equal(predict(built("siarn", "random"), "siarn"), first)
    model.save(tmp_path / "model.keras")
    for _ in range(2):  # every load starts the generator from the saved seed
        loaded = load_model(tmp_path / "model.keras")
        assert all(type(layer) is RandomStateLSTM for layer in lstm_layers(loaded))
        np.testing.assert_array_equal(predict(loaded, "siarn"), first)
