"""benchmarks/recurrent_loop.py's live-rows LSTM computes what Keras' LSTM computes: the same state at every
real position and the same last state, with the rows that end before a chunk of time left out of it."""
import keras
import numpy as np
import pytest
from keras import layers
from locations import benchmark_script

recurrent_loop = benchmark_script("recurrent_loop")

#: Rows of 0 to 7 real steps in no order (an all-padding row and a full one among them), post-padded as the
#: suite pads its texts.
LENGTHS = np.array([3, 7, 0, 1, 5, 7, 2, 6, 4])


def pair(return_sequences: bool, chunks: int):
    """Keras' LSTM and a live-rows one with the same weights, and a masked batch of the lengths above."""
    keras.utils.set_random_seed(0)
    plain = layers.LSTM(3, return_sequences=return_sequences, use_cudnn=False)
    live = recurrent_loop.LiveRowsLSTM(3, chunks=chunks, return_sequences=return_sequences, use_cudnn=False)
    for layer in (plain, live):
        layer.build((None, 7, 4))
    live.set_weights(plain.get_weights())
    mask = np.arange(7)[None, :] < LENGTHS[:, None]
    inputs = np.random.default_rng(1).normal(size=(len(LENGTHS), 7, 4)).astype("float32") * mask[..., None]
    return plain, live, inputs, mask


@pytest.mark.parametrize("chunks", [2, 4, 9])
def test_the_last_state_is_keras_state_after_each_rows_last_real_step(chunks):
    plain, live, inputs, mask = pair(False, chunks)
    expected, got = (np.asarray(layer(inputs, mask=mask)) for layer in (plain, live))
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)
    assert np.all(got[LENGTHS == 0] == 0)  # no real step: the zero initial state


@pytest.mark.parametrize("chunks", [2, 4])
def test_every_real_position_has_keras_state_and_padding_stays_padding(chunks):
    plain, live, inputs, mask = pair(True, chunks)
    expected, got = (np.asarray(layer(inputs, mask=mask)) for layer in (plain, live))
    assert got.shape == expected.shape == (len(LENGTHS), 7, 3)
    np.testing.assert_allclose(got[mask], expected[mask], rtol=0, atol=1e-6)


def test_without_a_mask_or_with_one_chunk_it_is_keras_loop_to_the_last_bit():
    plain, live, inputs, mask = pair(True, 1)
    np.testing.assert_array_equal(np.asarray(live(inputs, mask=mask)), np.asarray(plain(inputs, mask=mask)))
    plain, live, inputs, _ = pair(True, 4)
    np.testing.assert_array_equal(np.asarray(live(inputs)), np.asarray(plain(inputs)))
