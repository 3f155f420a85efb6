"""The custom layers against direct numpy transcriptions of the papers' equations."""
from __future__ import annotations

import keras
import numpy as np
import pytest

from baselines.layers import (
    AdditiveAttentionPooling,
    MaskedConv1D,
    MaskedGlobalAveragePooling1D,
    MaskedGlobalMaxPooling1D,
    MultiIntraAttention,
    SingleIntraAttention,
    masked_softmax,
)

RNG = np.random.default_rng(11)
WORDS = RNG.normal(size=(3, 6, 4)).astype("float32")
#: Real lengths 6, 3 and 1 (a one-word text has no word pair).
MASK = np.array([[1] * 6, [1, 1, 1, 0, 0, 0], [1, 0, 0, 0, 0, 0]], dtype=bool)


def softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def intra_attention_reference(words, mask, score):
    """Tay et al. 2018: a = softmax_i(max_{j != i} s_ij) over real words, v = sum_i a_i w_i."""
    out = []
    for w, m in zip(words, mask):
        real = np.flatnonzero(m)
        row_max = np.array([max((score(w[i], w[j]) for j in real if j != i), default=0.0) for i in real])
        out.append(softmax(row_max) @ w[real])
    return np.stack(out)


def test_single_intra_attention_matches_the_equation():
    layer = SingleIntraAttention()
    layer.build(WORDS.shape)
    w_a = np.concatenate([layer.left.numpy()[:, 0], layer.right.numpy()[:, 0]])
    b_a = float(layer.bias.numpy()) + 0.3
    layer.bias.assign(b_a)

    def score(w_i, w_j):  # s_ij = W_a [w_i; w_j] + b_a
        return w_a @ np.concatenate([w_i, w_j]) + b_a

    expected = intra_attention_reference(WORDS, MASK, score)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(layer(WORDS, mask=MASK)), expected, rtol=1e-5, atol=1e-6)


def test_multi_intra_attention_matches_the_equation():
    layer = MultiIntraAttention(k=5)
    layer.build(WORDS.shape)
    layer.pair_bias.assign(RNG.normal(size=5).astype("float32"))
    w_q = np.concatenate([layer.left.numpy(), layer.right.numpy()])  # (2d, k)
    b_q, w_p, b_p = layer.pair_bias.numpy(), layer.score.numpy()[:, 0], float(layer.score_bias.numpy())

    def score(w_i, w_j):  # s_ij = W_p ReLU(W_q [w_i; w_j] + b_q) + b_p
        return w_p @ np.maximum(np.concatenate([w_i, w_j]) @ w_q + b_q, 0) + b_p

    expected = intra_attention_reference(WORDS, MASK, score)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(layer(WORDS, mask=MASK)), expected, rtol=1e-5, atol=1e-6)


def test_intra_attention_weights_cover_only_real_words():
    layer = SingleIntraAttention()
    layer.build(WORDS.shape)
    weights = keras.ops.convert_to_numpy(layer.attention_weights(WORDS, MASK))
    assert weights[2, 0] == pytest.approx(1.0) and np.all(weights[2, 1:] == 0)  # one word: all attention on it
    assert np.all(weights[1, 3:] == 0)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=1e-6)


def test_additive_attention_matches_yang_et_al():
    layer = AdditiveAttentionPooling(units=3)
    layer.build(WORDS.shape)
    w, b, u_w = layer.kernel.numpy(), layer.bias.numpy(), layer.context.numpy()[:, 0]
    expected = []
    for h, m in zip(WORDS, MASK):
        real = h[m]
        a = softmax(np.tanh(real @ w + b) @ u_w)  # u_t = tanh(W h_t + b), a_t = softmax(u_t . u_w)
        expected.append(a @ real)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(layer(WORDS, mask=MASK)), np.stack(expected), rtol=1e-5,
                               atol=1e-6)


def test_masked_poolings_use_only_real_steps_and_survive_empty_texts():
    words = WORDS.copy()
    words[1, 3:] = 100.0  # padding that would dominate a max or mean
    mask = MASK.copy()
    mask[2] = False  # an empty text
    maxima = keras.ops.convert_to_numpy(MaskedGlobalMaxPooling1D()(words, mask=mask))
    means = keras.ops.convert_to_numpy(MaskedGlobalAveragePooling1D()(words, mask=mask))
    np.testing.assert_allclose(maxima[:2], [words[0].max(0), words[1, :3].max(0)])
    np.testing.assert_allclose(means[:2], [words[0].mean(0), words[1, :3].mean(0)], rtol=1e-6)
    assert np.all(maxima[2] == 0) and np.all(means[2] == 0)


def test_masked_softmax_gives_zero_weight_to_masked_positions():
    weights = keras.ops.convert_to_numpy(masked_softmax(np.array([[1.0, 50.0, 2.0]]), np.array([[1, 0, 1]], bool)))
    np.testing.assert_allclose(weights, [[1 / (1 + np.e), 0.0, np.e / (1 + np.e)]], rtol=1e-6)


def test_masked_conv_zeroes_padding_and_keeps_the_mask():
    layer = MaskedConv1D(2, 3, use_bias=False)
    words = WORDS.copy()
    words[1, 3:] = 100.0
    out = keras.ops.convert_to_numpy(layer(words, mask=MASK))
    clean = words * MASK[..., None]
    np.testing.assert_allclose(out, keras.ops.convert_to_numpy(layer(clean)), rtol=1e-6)
    assert np.array_equal(keras.ops.convert_to_numpy(layer.compute_mask(words, MASK)), MASK)
    with pytest.raises(ValueError, match="same"):
        MaskedConv1D(2, 3, padding="valid")
