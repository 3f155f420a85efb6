"""A user's Keras model that reads raw text as an entrant: ``isarcasm benchmark NAME --keras-model FILE.py``.

The classic models share this suite's tokenizer, vocabulary and word vectors; a model that brings its
own preprocessing (a keras_hub classifier with its tokenizer, a ``TextVectorization`` layer, a
pretrained preset) cannot be one of them.  It can be an entrant: the file defines

    build(train_texts: list[str], seed: int) -> keras.Model

returning a model that takes a batch of strings and gives P(sarcastic) (one sigmoid unit, binary
corpora) or one probability per class (a softmax over the corpus' classes).  ``train_texts`` are the
run's training texts (to compute a vocabulary from; never the validation or test ones), ``seed`` the
run's seed, set in Python, NumPy and Keras before ``build`` is called.  An optional ``LEARNING_RATE``
in the file replaces ``--lr`` for it (fine-tuning a pretrained model wants a smaller one), and an
optional ``SETTINGS`` dict (JSON values) names what ``build`` reads from outside the file (a preset
folder given by an environment variable, say): it goes into every run's config, so runs of another
preset are never taken for these.

The suite owns everything else, as for the classic models: the splits and the validation carved from
training with the run's seed, the optimiser (Adam) and the cross-entropy loss, ``--epochs`` and
``--batch-size``, the shuffling (by the run's seed, every epoch), ``--class-weight``, the choice of the
epoch with the best validation score (:attr:`~experiments.runs.entrants.registry.Job.metric`, at the run's
threshold), and the test split, predicted once, by the chosen epoch's weights.  Each epoch's
validation score and loss are saved in the run's entrant.json.  The file's sha256, the settings and
the Keras backend are in every run's config, so an edited file never reuses the old one's runs.

One line, and no run written, for: a missing or broken file, no ``build`` function, ``build`` raising
or returning something that is not a ``keras.Model``, an output that is neither P(sarcastic) nor one
probability per class.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from experiments.runs.entrants.registry import Entrant, Job, Origin, Prepared, Scores, enter
from experiments.runs.entrants.estimators import user_function
from experiments.runs.one.footprint import timed
from experiments.runs.one.inference import calling
from experiments.runs.one.training import class_weights, set_determinism
from preprocessing.errors import IsarcasmError
from preprocessing.fileio import content_sha256

FUNCTION = "build"
LEARNING_RATE = "LEARNING_RATE"
DECLARED = "SETTINGS"
#: A softmax row sums to 1 within this (float32 arithmetic).
SUM_TOLERANCE = 1e-3
#: An epoch's cost per training example, in the units of ``ModelSpec.cost`` (the LSTM's): unknown for a
#: user's model, so the LSTM's.  Only the order of a sweep's runs depends on it.
EPOCH_COST = 1.0


def load_keras_model(name: str, path: str | Path) -> Entrant:
    """Register entrant ``name``: the Keras model that file ``path`` builds (see the module's docstring)."""
    path = Path(path)
    module, build = user_function(path, "Keras model", FUNCTION, "a keras.Model that takes a batch of strings and "
                                  "gives P(sarcastic) or class probabilities; its arguments: train_texts, seed")
    learning_rate = getattr(module, LEARNING_RATE, None)
    if learning_rate is not None and not (isinstance(learning_rate, (int, float)) and 0 < learning_rate < math.inf):
        raise IsarcasmError(f"{path}: {LEARNING_RATE} must be a positive number, got {learning_rate!r}")
    declared = getattr(module, DECLARED, {})
    try:
        if not isinstance(declared, dict):
            raise TypeError(f"a {type(declared).__name__}")
        json.dumps(declared, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise IsarcasmError(f"{path}: {DECLARED} must be a dict of JSON values (strings, numbers, lists), not {exc}") \
            from None
    sha256 = content_sha256(path)

    def prepare(job: Job) -> Prepared:
        import keras  # loads the Keras backend: only when a run is planned

        identity = {"kind": "keras", "file": path.name, "sha256": sha256, "function": FUNCTION,
                    "backend": keras.backend.backend(), "epochs": job.train.epochs,
                    "batch_size": job.train.batch_size,
                    "learning_rate": float(learning_rate or job.train.learning_rate),
                    "class_weight": job.train.class_weight, **({"settings": declared} if declared else {})}
        return Prepared(identity, lambda: train_and_select(job, path, build, identity["learning_rate"]))

    return enter(Entrant(name, "keras", f"Keras model from {path.name}", prepare,
                         source=f"{path.resolve()} sha256 {sha256}", origin=Origin(load_keras_model, str(path)),
                         cost=lambda train: EPOCH_COST * train.epochs))


def train_and_select(job: Job, path: Path, build, learning_rate: float) -> Scores:
    """Build the model, train it epoch by epoch on the training split, keep the weights of the epoch
    with the best validation score (the first on a tie); only then predict the test split."""
    import keras  # loads the Keras backend: only when a run is trained

    keras.backend.clear_session()  # a study builds many models in one process
    set_determinism(job.seed)
    # object arrays of str: what Keras turns into string tensors on every model (a unicode array is refused)
    texts = {part: np.asarray(job.texts(part), dtype=object) for part in ("train", "validation", "test")}
    labels = job.labels("train")
    model = calling(str(path), f"{FUNCTION}()", lambda: build(list(job.texts("train")), job.seed))
    if not isinstance(model, keras.Model):
        raise IsarcasmError(f"{path}: {FUNCTION}() returned a {type(model).__name__}, not a keras.Model")
    width = _output_width(model, texts["validation"][:2], job, path)
    model.compile(optimizer=keras.optimizers.Adam(learning_rate),
                  loss="binary_crossentropy" if width == 1 else "sparse_categorical_crossentropy")
    weights = class_weights(labels.tolist(), job.num_classes) if job.train.class_weight == "balanced" else None
    order = np.random.default_rng(job.seed)
    epochs, best = [], None
    for epoch in range(1, job.train.epochs + 1):
        shuffled = order.permutation(len(labels))  # the suite shuffles: a keras_hub pipeline ignores shuffle=
        history = calling(str(path), "fit", lambda: model.fit(
            texts["train"][shuffled], labels[shuffled], batch_size=job.train.batch_size, epochs=1, shuffle=False,
            class_weight=weights, verbose=0))
        validation = probabilities(model, texts["validation"], job, path)
        value = job.validation_score(validation)
        epochs.append({"epoch": epoch, "loss": float(history.history["loss"][-1]), job.metric: value})
        if best is None or value > best[0]:
            best = (value, epoch, model.get_weights(), validation)
    value, epoch, kept, validation = best
    model.set_weights(kept)
    test, seconds = timed(lambda: probabilities(model, texts["test"], job, path))
    return Scores(test, validation, {"epoch": epoch, "metric": job.metric, job.metric: value, "epochs": epochs,
                                     "learning_rate": learning_rate, "parameters": int(model.count_params())},
                  seconds)


def _output_width(model, sample: np.ndarray, job: Job, path: Path) -> int:
    """The number of outputs per text: 1 (P(sarcastic), binary corpora) or the corpus' classes."""
    out = np.asarray(calling(str(path), "predict", lambda: model.predict(sample, verbose=0)))
    width = out.shape[1] if out.ndim == 2 else 0
    if width == 1 and job.num_classes != 2:
        raise IsarcasmError(f"{path}: the model gives one output (P(sarcastic)), but this corpus has "
                            f"{job.num_classes} classes: give one softmax output per class")
    if width not in (1, job.num_classes):
        raise IsarcasmError(f"{path}: the model's output has the shape {out.shape[1:]} per batch; expected (1,) "
                            f"(P(sarcastic)) or ({job.num_classes},) (a probability per class)")
    return width


def probabilities(model, texts: np.ndarray, job: Job, path: Path) -> np.ndarray:
    """The model's class probabilities of ``texts``, (texts, classes); P(sarcastic) p becomes (1 - p, p)."""
    out = np.asarray(calling(str(path), "predict", lambda: model.predict(texts, batch_size=job.train.batch_size,
                                                                          verbose=0)), dtype=float)
    inside = np.all(np.isfinite(out)) and out.min() >= 0 and out.max() <= 1
    if inside and out.shape[1] > 1:
        inside = np.allclose(out.sum(axis=1), 1, atol=SUM_TOLERANCE)
    if not inside:
        raise IsarcasmError(f"{path}: the model's outputs are not probabilities (end it with a sigmoid unit or a "
                            "softmax; a keras_hub classifier: activation=\"softmax\")")
    return np.column_stack([1 - out[:, 0], out[:, 0]]) if out.shape[1] == 1 else out
