"""Prediction with each batch padded only to its own longest text.

Texts are padded to the corpus' ``max_len`` (the 99th percentile of training
lengths), but most are much shorter: on iSarcasm the mean text has 21 of 57
positions.  Every model masks its padding, so a text's probabilities do not
depend on how much padding follows it (tests/test_models.py checks this for
every model, to the last bit on the CPU).  :func:`predict_by_length` therefore
sorts the texts by length, cuts each batch's trailing all-padding columns and
returns the rows in their original order: the same numbers from far fewer
time steps.  A model saved with a fixed input length (before this module
existed) gets full-length batches.  Training keeps Keras' shuffled batches (cutting them would save
little: a random batch of 128 tweets nearly always holds one of full length).
"""
from __future__ import annotations

import keras
import numpy as np

from preprocessing.vocab import PAD_ID

#: The inputs that are padded id sequences; the others (``lexicon``) are fixed-width features.
SEQUENCE_INPUTS = ("tokens", "context")


def used_length(ids: np.ndarray) -> np.ndarray:
    """Per row, the position after its last non-padding id (0 for an all-padding row)."""
    real = ids != PAD_ID
    return np.where(real.any(axis=1), ids.shape[1] - np.argmax(real[:, ::-1], axis=1), 0)


def predict_by_length(model: keras.Model, inputs: dict[str, np.ndarray], batch_size: int = 256):
    """``model.predict(inputs)``, computed on length-sorted batches cut to their longest text.

    Returns what the model returns (an array, or a dict of arrays for a model
    with auxiliary heads), rows in the order of ``inputs``.
    """
    rows = len(next(iter(inputs.values())))
    variable = {tensor.name for tensor in model.inputs if len(tensor.shape) == 2 and tensor.shape[1] is None}
    lengths = {name: used_length(inputs[name]) for name in SEQUENCE_INPUTS if name in inputs and name in variable}
    order = np.argsort(lengths.get("tokens", np.zeros(rows, dtype=int)), kind="stable")
    outputs = []
    for start in range(0, rows, batch_size):
        chosen = order[start:start + batch_size]
        batch = {}
        for name, values in inputs.items():
            if name in lengths:
                values = values[:, :max(1, int(lengths[name][chosen].max()))]
            batch[name] = values[chosen]
        outputs.append(model.predict_on_batch(batch))
    if not outputs:
        return model.predict(inputs, verbose=0)
    joined = keras.tree.map_structure(lambda *parts: np.concatenate(parts), *outputs)
    restore = np.argsort(order, kind="stable")
    return keras.tree.map_structure(lambda values: np.asarray(values)[restore], joined)
