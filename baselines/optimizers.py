"""Adam that makes one update of a batch computed in pieces, as TensorFlow's Adam makes it of the whole batch.

The fast engine (:class:`baselines.batching.SplitBatches`) computes each batch as length-sorted
pieces, one Keras step each.  Keras' own ``gradient_accumulation_steps`` sums the pieces into dense
accumulators, so the word vectors' gradient reaches Adam as a dense tensor.  On TensorFlow the exact
engine's word-vector gradient is a ``tf.IndexedSlices`` with one slice per token position, and
Keras' Adam applies it slice by slice: a word's moments move once per occurrence in the batch, so a
word seen 8 times takes another step than under dense Adam, and a word absent from the batch keeps
its moments.  That is another optimiser for the word vectors, and it moved the fast engine's
distribution over seeds (its share predicted sarcastic was lower for all seven models;
docs/results/archive/fast-engine/README.md).

:class:`PieceAdam` keeps each piece's slices and gives Adam, once per batch, the slices of all its
pieces together: the same slices as the padded batch's, less the padding positions', whose values
are zero and fall on the padding row (masked everywhere, so that row's moments and vector never move
either way).  Dense gradients are summed as Keras sums them.  Adam's step count is the batch count.
On JAX and torch, gradients are dense in both engines and Keras' accumulation is the same update.
"""
from __future__ import annotations

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="isarcasm")
class PieceAdam(keras.optimizers.Adam):
    """Adam over batches that arrive as ``pieces`` steps (TensorFlow backend).

    ``capacity``: the most slices one batch's pieces other than its last can give a word-vector
    table (rows x padded length, summed over those pieces); a piece that gives more is an error.
    """

    def __init__(self, pieces: int, capacity: int, **kwargs):
        super().__init__(**kwargs)
        if pieces < 2:
            raise ValueError(f"PieceAdam needs at least 2 pieces per batch, got {pieces}")
        self.pieces, self.capacity = pieces, capacity

    def build(self, variables):
        super().build(variables)
        self._piece = self.add_variable((), initializer="zeros", dtype="int32", name="piece")
        self._sums = [self.add_variable_from_reference(v, "piece_sum") for v in variables]
        self._slices = {}  # variable index -> (values, row ids, count) of the pieces kept so far
        for index, variable in enumerate(variables):
            if len(variable.shape) == 2 and variable.path.endswith("embeddings"):
                self._slices[index] = (
                    self.add_variable((self.capacity, variable.shape[1]), dtype=variable.dtype, name="slice_values"),
                    self.add_variable((self.capacity,), dtype="int64", name="slice_rows"),
                    self.add_variable((), dtype="int32", name="slice_count"))

    @property
    def iterations(self):
        """Adam's step: batches, not pieces (its bias correction counts updates)."""
        return ops.floor_divide(self._iterations, self.pieces)

    def _backend_apply_gradients(self, grads, trainable_variables):
        import tensorflow as tf  # the backend this optimiser is for

        indices = [self._get_variable_index(v) for v in trainable_variables]

        def keep():
            for index, grad in zip(indices, grads):
                if isinstance(grad, tf.IndexedSlices) and index in self._slices:
                    values, rows, count = self._slices[index]
                    at = tf.range(count.value, count.value + tf.shape(grad.indices)[0])[:, None]
                    values.assign(tf.tensor_scatter_nd_update(values.value, at, grad.values))
                    rows.assign(tf.tensor_scatter_nd_update(rows.value, at, tf.cast(grad.indices, "int64")))
                    count.assign_add(tf.shape(grad.indices)[0])
                else:
                    self._sums[index].assign_add(tf.convert_to_tensor(grad))
            self._piece.assign_add(1)

        def update():
            whole = []
            for index, grad in zip(indices, grads):
                if isinstance(grad, tf.IndexedSlices) and index in self._slices:
                    values, rows, count = self._slices[index]
                    whole.append(tf.IndexedSlices(
                        tf.concat([values.value[:count.value], grad.values], 0) / self.pieces,
                        tf.concat([rows.value[:count.value], tf.cast(grad.indices, "int64")], 0),
                        grad.dense_shape))
                    count.assign(0)
                else:
                    whole.append((self._sums[index].value + tf.convert_to_tensor(grad)) / self.pieces)
                    self._sums[index].assign(tf.zeros_like(self._sums[index].value))
            super(PieceAdam, self)._backend_apply_gradients(whole, trainable_variables)
            self._piece.assign(0)

        tf.cond(self._piece + 1 >= self.pieces, update, keep)

    def get_config(self):
        return {**super().get_config(), "pieces": self.pieces, "capacity": self.capacity}
