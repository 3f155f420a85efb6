"""Batches padded only to their own longest text: for prediction, and the ``--batching bucket`` variant.

Texts are padded to the corpus' ``max_len`` (the 99th percentile of training
lengths), but most are much shorter: on iSarcasm the mean text has 21 of 57
positions.  Every model masks its padding, so a text's probabilities do not
depend on how much padding follows it (tests/baselines/test_models.py checks this for
every model, to the last bit on the CPU).  :func:`predict_by_length` therefore
sorts the texts by length, cuts each batch's trailing all-padding columns and
returns the rows in their original order: the same numbers from far fewer
time steps.  A model saved with a fixed input length (before this module
existed) gets full-length batches.  Faithful training keeps Keras' shuffled batches (cutting them
would save little: a random batch of 128 tweets nearly always holds one of full length);
:class:`LengthBuckets` is the variant that groups texts of similar length.
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


def take_rows(inputs: dict[str, np.ndarray], rows: np.ndarray, cut=SEQUENCE_INPUTS) -> dict[str, np.ndarray]:
    """The given rows of every input; the sequence inputs named in ``cut`` lose the columns that are
    padding in all of those rows (at least one column is kept, for a batch of empty texts)."""
    batch = {}
    for name, values in inputs.items():
        values = values[rows]
        if name in cut:
            values = values[:, :max(1, int(used_length(values).max()))]
        batch[name] = values
    return batch


def cut_inputs(model: keras.Model) -> tuple[str, ...]:
    """The sequence inputs of ``model`` that a batch may be cut to its longest text in: those of variable
    length, and none where a sub-model expects a fixed length (the context-aware variant's encoders are
    built for ``max_len`` and ``context_len``: their batches keep every column)."""
    def sub_models(layer):
        for inner in getattr(layer, "layers", ()):
            if isinstance(inner, keras.Model):
                yield inner
                yield from sub_models(inner)

    fixed = any(len(tensor.shape) >= 2 and tensor.shape[1] is not None
                for inner in sub_models(model) for tensor in inner.inputs)
    variable = {tensor.name for tensor in model.inputs if len(tensor.shape) == 2 and tensor.shape[1] is None}
    return () if fixed else tuple(name for name in SEQUENCE_INPUTS if name in variable)


def predict_by_length(model: keras.Model, inputs: dict[str, np.ndarray], batch_size: int = 256):
    """``model.predict(inputs)``, computed on length-sorted batches cut to their longest text.

    Returns what the model returns (an array, or a dict of arrays for a model
    with auxiliary heads), rows in the order of ``inputs``.
    """
    rows = len(next(iter(inputs.values())))
    cut = [name for name in cut_inputs(model) if name in inputs]
    order = np.argsort(used_length(inputs["tokens"]) if "tokens" in cut else np.zeros(rows, dtype=int), kind="stable")
    outputs = [model.predict_on_batch(take_rows(inputs, order[start:start + batch_size], cut))
               for start in range(0, rows, batch_size)]
    if not outputs:
        return model.predict(inputs, verbose=0)
    joined = keras.tree.map_structure(lambda *parts: np.concatenate(parts), *outputs)
    restore = np.argsort(order, kind="stable")
    return keras.tree.map_structure(lambda values: np.asarray(values)[restore], joined)


def predict_rows(model: keras.Model, inputs: dict[str, np.ndarray], by_length: bool):
    """What ``model`` predicts for ``inputs``: on length-sorted batches cut to their longest text
    (:func:`predict_by_length`, the fast engine's way), or on Keras' padded batches of 256."""
    return predict_by_length(model, inputs) if by_length else model.predict(inputs, batch_size=256, verbose=0)


def batches_per_epoch(size: int, batch_size: int) -> int:
    """How many batches Keras' shuffled batching makes of ``size`` texts (the last one may be short)."""
    return -(-size // batch_size)


def largest_batch(batching: str, batch_size: int, classes: int) -> int:
    """The most texts one training batch of ``batching`` can hold.  Shuffled batches and the authors' batches
    formed once hold at most ``batch_size``; a ``class-ratio`` batch deals each class's texts over the epoch's
    batches in equal parts, each part rounded up (:func:`class_ratio_rows`), so it can hold up to one text more
    per class beyond the first (on SemEval-2018 some hold 129 of 128)."""
    return batch_size + classes - 1 if batching == "class-ratio" else batch_size


class LengthBuckets(keras.utils.PyDataset):
    """Training batches of texts of similar length, each cut to its longest text: the
    ``--batching bucket`` variant.

    Every epoch the texts are shuffled with the run's seed, sorted by length
    (ties stay in shuffled order), cut into batches, and the batches are
    shuffled.  A recurrent model then runs about as many time steps as the
    texts have words, not ``max_len`` for every text, at the price of batches
    whose texts are alike in length: a different training procedure, so its
    runs are a named variant, never the paper's numbers.
    """

    def __init__(self, x: dict[str, np.ndarray], y, batch_size: int, seed: int):
        super().__init__()
        self.x, self.y, self.batch_size = x, y, batch_size
        self.lengths = used_length(x["tokens"])
        self.rng = np.random.default_rng(seed)
        self.batches: list[np.ndarray] = []
        self.on_epoch_end()
        self._vary_the_first_two()

    def __len__(self) -> int:
        return len(self.batches)

    def __getitem__(self, index: int):
        rows = self.batches[index]
        return take_rows(self.x, rows), keras.tree.map_structure(lambda targets: targets[rows], self.y)

    def on_epoch_end(self) -> None:
        shuffled = self.rng.permutation(len(self.lengths))
        ordered = shuffled[np.argsort(self.lengths[shuffled], kind="stable")]
        self.batches = [ordered[start:start + self.batch_size] for start in range(0, len(ordered), self.batch_size)]
        self.rng.shuffle(self.batches)

    def _vary_the_first_two(self) -> None:
        """Keras (on TensorFlow) reads the input shapes off the first two batches and fixes the
        length if they agree; make them differ, so every later batch may have its own length."""
        length = [int(used_length(self.x["tokens"][rows]).max()) for rows in self.batches]
        other = next((i for i in range(2, len(length)) if length[i] != length[0]), None)
        if len(length) > 2 and length[1] == length[0] and other is not None:
            self.batches[1], self.batches[other] = self.batches[other], self.batches[1]


def class_ratio_rows(rng: np.random.Generator, labels: np.ndarray, count: int) -> list[np.ndarray]:
    """One epoch of the ``--batching class-ratio`` variant's batches, after the iSarcasm authors' code
    (docs/protocol.md's sources), which fills every batch with
    a fixed number of sarcastic and non-sarcastic tweets: each class's texts shuffled and dealt over
    ``count`` batches in equal parts, so a batch holds its class's share to within one text, the rows
    of each batch shuffled.  Redrawn every epoch (Keras' shuffled batches are not: see
    :func:`shuffled_rows`); the authors' own batches, formed once in corpus order, are
    :func:`class_ratio_once_rows`."""
    parts = [np.array_split(rng.permutation(np.flatnonzero(labels == label)), count) for label in np.unique(labels)]
    return [rng.permutation(np.concatenate([part[i] for part in parts])) for i in range(count)]


def class_quotas(counts: np.ndarray, batch_size: int) -> np.ndarray:
    """Texts of each class in a batch of the authors' (docs/protocol.md's sources): each class's share of
    ``batch_size`` rounded down, and what
    rounding leaves to the first class (label 0, the non-sarcastic one).  Computed in integers."""
    quotas = batch_size * counts // counts.sum()
    quotas[0] += batch_size - quotas.sum()
    return quotas


def corpus_order_stream(labels: np.ndarray, order: np.ndarray, batch_size: int) -> np.ndarray:
    """The training rows in the order the authors' generator reads them (docs/protocol.md's sources):
    cycles of each class's quota (:func:`class_quotas`), the sarcastic class first, each class's texts
    in corpus order (``order``: a row's position in the corpus); once a class cannot fill its quota,
    a last cycle takes what each class has up to its quota, then every text left, class by class."""
    classes, counts = np.unique(labels, return_counts=True)
    queues = [np.flatnonzero(labels == label) for label in classes[::-1]]
    queues = [rows[np.argsort(order[rows], kind="stable")] for rows in queues]
    quotas = class_quotas(counts, batch_size)[::-1]
    cycles = min(len(rows) // quota for rows, quota in zip(queues, quotas) if quota)
    full = [rows[cycle * quota:(cycle + 1) * quota] for cycle in range(cycles) for rows, quota in zip(queues, quotas)]
    last = [rows[cycles * quota:(cycles + 1) * quota] for rows, quota in zip(queues, quotas)]
    left = [rows[(cycles + 1) * quota:] for rows, quota in zip(queues, quotas)]
    return np.concatenate([*full, *last, *left])


def class_ratio_once_rows(rng: np.random.Generator, labels: np.ndarray, order: np.ndarray,
                          batch_size: int) -> list[np.ndarray]:
    """The authors' class-ratio batches (``--batching class-ratio-once``), formed once for the whole run
    and trained on, the same list every epoch (docs/protocol.md's sources): the rows of
    :func:`corpus_order_stream`, the last batch topped up with texts drawn at random from the whole
    training split (without replacement while it has enough), cut into batches of ``batch_size`` in
    that order, and the rows of each batch shuffled.  Every text
    is in a batch.  (When the texts fill a whole number of batches the authors' top-up expression
    adds a whole batch of duplicates; here none is added.)"""
    stream = corpus_order_stream(labels, order, batch_size)
    short = -len(stream) % batch_size
    stream = np.concatenate([stream, rng.choice(len(stream), short, replace=short > len(stream))])
    return [rng.permutation(rows) for rows in np.split(stream, len(stream) // batch_size)]


def formed_once(draw):
    """A draw of batches (``draw(rng)``) that gives its first batches every epoch after."""
    batches: list[np.ndarray] = []

    def the_same(rng: np.random.Generator) -> list[np.ndarray]:
        if not batches:
            batches.extend(draw(rng))
        return batches
    return the_same


def in_new_order(draw):
    """A draw of batches (``draw(rng)``) whose batches come in a new random order every epoch: what
    fit() makes of a :class:`PaddedBatches`' batches, for batches fit() must take in order."""

    def reordered(rng: np.random.Generator) -> list[np.ndarray]:
        batches = draw(rng)
        return [batches[index] for index in rng.permutation(len(batches))]
    return reordered


class PaddedBatches(keras.utils.PyDataset):
    """Training batches of the rows ``draw(rng)`` gives every epoch (``rng`` seeded with the run's seed),
    padded to ``max_len`` like Keras' shuffled batches: the exact engine's class-ratio batches
    (:func:`class_ratio_rows`, :func:`class_ratio_once_rows`)."""

    def __init__(self, x: dict[str, np.ndarray], y, draw, seed: int):
        super().__init__()
        self.x, self.y, self.draw = x, y, draw
        self.rng = np.random.default_rng(seed)
        self.batches: list[np.ndarray] = []
        self.on_epoch_end()

    def __len__(self) -> int:
        return len(self.batches)

    def __getitem__(self, index: int):
        rows = self.batches[index]
        return take_rows(self.x, rows, cut=()), keras.tree.map_structure(lambda targets: targets[rows], self.y)

    def on_epoch_end(self) -> None:
        self.batches = self.draw(self.rng)


def shuffled_rows(rng: np.random.Generator, size: int, batch_size: int) -> list[np.ndarray]:
    """Shuffled batches: a permutation of the texts cut into ``batch_size`` pieces, as Keras'
    ``fit(shuffle=True)`` makes them (with another random generator).  On TensorFlow, after the run's
    seeding, Keras makes them once and trains every epoch on them in the same order (see
    :func:`experiments.runs.one.training.fit_data`)."""
    order = rng.permutation(size)
    return [order[start:start + batch_size] for start in range(0, size, batch_size)]


class SplitBatches(keras.utils.PyDataset):
    """The fast engine's training batches: the same batches, each computed as ``parts`` length-sorted
    pieces cut to their own longest text, whose gradients the optimizer sums into one update.

    Every epoch ``draw(rng)`` gives the batches (the rows of each: :func:`shuffled_rows`,
    :func:`class_ratio_rows`), in the order they are trained: fit() must not shuffle the pieces
    (``shuffle=False``), whose optimizer sums consecutive ones.  A batch's rows are sorted by length and split into ``parts`` pieces;
    each piece is one Keras step, and the optimizer (``gradient_accumulation_steps=parts``) averages
    the ``parts`` gradients before its one update.  Each row's loss is weighted by
    ``parts * len(piece) / len(batch)`` (times its class weight), so that average is the gradient of
    the whole batch's mean loss: the batch's update, up to floating-point order and the dropout
    masks.  Padding is masked in every model, so cutting it changes no text's output; what it saves
    is the recurrent steps and convolution positions of the padding (two thirds of them on tweets).
    A piece that would be empty (a batch of fewer rows than ``parts``) is one text with weight 0.
    """

    #: The inputs a piece is cut in: every sequence input, unless the model's are not all of variable length
    #: (set it to :func:`cut_inputs` of the model).
    cut: tuple[str, ...] = SEQUENCE_INPUTS

    def __init__(self, x: dict[str, np.ndarray], y, draw, parts: int, seed: int, row_weights: np.ndarray | None = None):
        super().__init__()
        self.x, self.y, self.draw, self.parts = x, y, draw, parts
        self.lengths = used_length(x["tokens"])
        self.row_weights = np.ones(len(self.lengths), "float32") if row_weights is None else row_weights
        self.rng = np.random.default_rng(seed)
        self.pieces: list[tuple[np.ndarray, float]] = []
        self.on_epoch_end()

    def __len__(self) -> int:
        return len(self.pieces)

    def __getitem__(self, index: int):
        rows, scale = self.pieces[index]
        x = take_rows(self.x, rows, self.cut)
        if index == 0:  # Keras fixes a time axis its first two steps agree on: make the first the longest
            x = {name: _padded(values, self.x[name].shape[1] + 1) if name in self.cut else values
                 for name, values in x.items()}
        weights = (self.row_weights[rows] * scale).astype("float32")
        return x, keras.tree.map_structure(lambda targets: targets[rows], self.y), weights

    def on_epoch_end(self) -> None:
        self.pieces = [piece for rows in self.draw(self.rng) for piece in self._split(rows)]

    def _split(self, rows: np.ndarray) -> list[tuple[np.ndarray, float]]:
        ordered = rows[np.argsort(self.lengths[rows], kind="stable")]
        return [(piece, self.parts * len(piece) / len(rows)) if len(piece) else (rows[:1], 0.0)
                for piece in np.array_split(ordered, self.parts)]


def _padded(ids: np.ndarray, width: int) -> np.ndarray:
    """``ids`` padded to ``width`` columns (padding is masked: no output changes)."""
    return np.pad(ids, ((0, 0), (0, width - ids.shape[1])), constant_values=PAD_ID)
