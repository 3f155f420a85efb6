"""Custom Keras layers of the baselines, written with ``keras.ops`` only.

Every layer here honours the padding mask that the embedding layer
(``mask_zero=True``) attaches to its output, so that a tweet gives the same
prediction however much padding surrounds it.  They are registered for
serialization, so ``.keras`` files load with ``safe_mode`` on and no
``custom_objects``.
"""
from __future__ import annotations

import keras
from keras import layers, ops

#: Score given to excluded positions before a softmax or max: exp() of it is 0
#: in float32, and unlike -inf it never produces NaN in an all-excluded row.
EXCLUDED = -1e9

serializable = keras.saving.register_keras_serializable(package="isarcasm")


def positions(inputs, mask):
    """The (batch, time) boolean mask of real tokens; all true when there is no mask."""
    if mask is None:
        return ops.ones_like(inputs[..., 0], dtype="bool")
    return ops.cast(mask, "bool")


def masked_softmax(scores, mask, axis: int = -1):
    """Softmax over the positions where ``mask`` is true; a row with none gives all zeros."""
    weights = ops.softmax(ops.where(mask, scores, EXCLUDED), axis=axis)
    return weights * ops.cast(mask, weights.dtype)


def weighted_sum(inputs, weights):
    """sum_t weights[b, t] * inputs[b, t, :]"""
    return ops.sum(inputs * ops.expand_dims(weights, -1), axis=1)


class _Pooling(layers.Layer):
    """Base of layers that reduce the time axis: they consume the mask."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def compute_mask(self, inputs, mask=None):
        return None


@serializable
class MaskedConv1D(layers.Conv1D):
    """A 'same'-padded Conv1D that zeroes padded positions first and keeps the mask.

    Keras' Conv1D drops the mask and would read the padding token's (trainable)
    vector.  With padded positions zeroed and 'same' padding, a window that
    runs past the end of the tweet sees zero vectors whether they come from
    padding tokens or from the convolution's own border, so the output at every
    real position is independent of how much padding follows or precedes.
    Max-over-time pooling then uses only real positions
    (:class:`MaskedGlobalMaxPooling1D`).  Each real token thus starts one
    window (Kim's wide convolution restricted to the tweet), and a tweet
    shorter than the filter still gets a feature.
    """

    def __init__(self, filters, kernel_size, **kwargs):
        if kwargs.setdefault("padding", "same") != "same":
            raise ValueError("MaskedConv1D only supports padding='same'")
        super().__init__(filters, kernel_size, **kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        if mask is not None:
            inputs = inputs * ops.expand_dims(ops.cast(mask, inputs.dtype), -1)
        return super().call(inputs)

    def compute_mask(self, inputs, mask=None):
        return mask


@serializable
class MaskedGlobalMaxPooling1D(_Pooling):
    """Max over real time steps (Keras' GlobalMaxPooling1D ignores the mask); 0 for an empty text."""

    def call(self, inputs, mask=None):
        real = positions(inputs, mask)
        pooled = ops.max(ops.where(ops.expand_dims(real, -1), inputs, EXCLUDED), axis=1)
        return ops.where(ops.any(real, axis=1, keepdims=True), pooled, ops.zeros_like(pooled))


@serializable
class MaskedGlobalAveragePooling1D(_Pooling):
    """Mean over real time steps; a zero vector (not NaN) for an empty text."""

    def call(self, inputs, mask=None):
        real = ops.cast(positions(inputs, mask), inputs.dtype)
        total = ops.sum(inputs * ops.expand_dims(real, -1), axis=1)
        count = ops.maximum(ops.sum(real, axis=1, keepdims=True), 1.0)
        return total / count


@serializable
class AdditiveAttentionPooling(_Pooling):
    """Yang et al. (2016) word attention: u_t = tanh(W h_t + b), a = softmax_t(u_t . u_w), v = sum_t a_t h_t.

    Padded steps get zero weight.  ``units`` is the attention size (100 in the paper).
    """

    def __init__(self, units: int = 100, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        dim = input_shape[-1]
        self.kernel = self.add_weight(name="kernel", shape=(dim, self.units), initializer="glorot_uniform")
        self.bias = self.add_weight(name="bias", shape=(self.units,), initializer="zeros")
        self.context = self.add_weight(name="context", shape=(self.units, 1), initializer="glorot_uniform")

    def attention_weights(self, inputs, mask=None):
        hidden = ops.tanh(ops.matmul(inputs, self.kernel) + self.bias)
        scores = ops.squeeze(ops.matmul(hidden, self.context), -1)
        return masked_softmax(scores, positions(inputs, mask))

    def call(self, inputs, mask=None):
        return weighted_sum(inputs, self.attention_weights(inputs, mask))

    def get_config(self):
        return {**super().get_config(), "units": self.units}


class IntraAttention(_Pooling):
    """Tay et al. (2018) intra-attention over word pairs; subclasses score the pairs.

    a = softmax_i(max_{j != i} s_ij) over real words i, v_a = sum_i a_i w_i.
    Pairs with i = j or with a padded word are excluded from the max; a word
    with no partner (a one-word tweet) gets a row score of 0.
    """

    def pair_scores(self, inputs):
        """(batch, T, T) scores s_ij of every ordered word pair."""
        raise NotImplementedError

    def attention_weights(self, inputs, mask=None):
        real = positions(inputs, mask)
        length = ops.shape(inputs)[1]
        other = ops.logical_not(ops.cast(ops.eye(length), "bool"))
        pairs = ops.logical_and(ops.logical_and(ops.expand_dims(real, 2), ops.expand_dims(real, 1)),
                                ops.expand_dims(other, 0))
        row_max = ops.max(ops.where(pairs, self.pair_scores(inputs), EXCLUDED), axis=2)
        row_max = ops.where(ops.any(pairs, axis=2), row_max, ops.zeros_like(row_max))
        return masked_softmax(row_max, real)

    def call(self, inputs, mask=None):
        return weighted_sum(inputs, self.attention_weights(inputs, mask))


@serializable
class SingleIntraAttention(IntraAttention):
    """SIARN: one score per pair, s_ij = W_a [w_i; w_j] + b_a.

    W_a [w_i; w_j] = W_left w_i + W_right w_j, so the (batch, T, T) scores are
    an outer sum of two (batch, T) projections: O(batch * T^2) memory.
    """

    def build(self, input_shape):
        dim = input_shape[-1]
        self.left = self.add_weight(name="left", shape=(dim, 1), initializer="glorot_uniform")
        self.right = self.add_weight(name="right", shape=(dim, 1), initializer="glorot_uniform")
        self.bias = self.add_weight(name="bias", shape=(), initializer="zeros")

    def pair_scores(self, inputs):
        left = ops.matmul(inputs, self.left)                       # (B, T, 1): term of w_i
        right = ops.transpose(ops.matmul(inputs, self.right), (0, 2, 1))  # (B, 1, T): term of w_j
        return left + right + self.bias


@serializable
class MultiIntraAttention(IntraAttention):
    """MIARN: a k-dimensional pair vector reduced to a score, s_ij = W_p ReLU(W_q [w_i; w_j] + b_q) + b_p.

    As in SIARN, W_q [w_i; w_j] is split into two (batch, T, k) projections;
    the ReLU needs the (batch, T, T, k) sum, the O(batch * T^2 * k) cost of MIARN.
    """

    def __init__(self, k: int = 10, **kwargs):
        super().__init__(**kwargs)
        self.k = k

    def build(self, input_shape):
        dim = input_shape[-1]
        self.left = self.add_weight(name="left", shape=(dim, self.k), initializer="glorot_uniform")
        self.right = self.add_weight(name="right", shape=(dim, self.k), initializer="glorot_uniform")
        self.pair_bias = self.add_weight(name="pair_bias", shape=(self.k,), initializer="zeros")
        self.score = self.add_weight(name="score", shape=(self.k, 1), initializer="glorot_uniform")
        self.score_bias = self.add_weight(name="score_bias", shape=(), initializer="zeros")

    def pair_scores(self, inputs):
        left = ops.expand_dims(ops.matmul(inputs, self.left), 2)    # (B, T, 1, k): term of w_i
        right = ops.expand_dims(ops.matmul(inputs, self.right), 1)  # (B, 1, T, k): term of w_j
        hidden = ops.relu(left + right + self.pair_bias)             # (B, T, T, k)
        return ops.squeeze(ops.matmul(hidden, self.score), -1) + self.score_bias

    def get_config(self):
        return {**super().get_config(), "k": self.k}


#: Half-width of the random initial LSTM state: the iSarcasm authors' ±0.01 (their code: docs/protocol.md's sources).
INITIAL_STATE_SCALE = 0.01


@serializable
class RandomStateLSTM(layers.LSTM):
    """An LSTM whose initial state (h and c) is drawn uniformly in ±0.01 for every batch it reads, in
    training and in prediction alike: the iSarcasm authors' code (``get_feed_dict`` draws both for every
    training and evaluation batch, and the LSTM starts from them; the places are in docs/protocol.md's
    sources).  Keras' LSTM starts from zeros.

    The draws come from the cell's own seed generator (it serves LSTM dropout, which the baselines
    leave at 0), so the layer takes no other random number than Keras' LSTM: the same run seed gives
    the same initial weights as with zeros, then the same draws, batch after batch.  The generator's
    seed (its state's first entry) is kept as the layer's ``seed`` and saved with it, so a loaded model
    draws the same states each time it is loaded.  (The generator's state is not a weight: setting
    weights leaves it where it is.)
    """

    def __init__(self, units, **kwargs):
        super().__init__(units, **kwargs)
        self.cell.seed = int(ops.convert_to_numpy(self.cell.seed_generator.state)[0])

    def call(self, sequences, initial_state=None, mask=None, training=False):
        if initial_state is None:
            shape = (ops.shape(sequences)[0], self.units)
            initial_state = [keras.random.uniform(shape, -INITIAL_STATE_SCALE, INITIAL_STATE_SCALE,
                                                  seed=self.cell.seed_generator) for _ in ("h", "c")]
        return super().call(sequences, initial_state=initial_state, mask=mask, training=training)
