"""Building and loading the Keras models of the registry (:mod:`baselines.registry`).

Apart from the registry because this is where Keras, and TensorFlow with it,
is imported: only a process that builds, trains or loads a model needs it.
"""
from __future__ import annotations

import warnings
from dataclasses import replace
from pathlib import Path

import keras
import numpy as np
from keras import layers

from preprocessing.errors import IsarcasmError
from preprocessing.fileio import require_file
from preprocessing.model_file import check_model_file

from .common import INPUTS, Encoded, check_matrix, classifier_heads, context_input, embedding_layer, tokens_input
from .config import ModelConfig
from .registry import MODELS, ModelSpec


def build_model(name: str, config: ModelConfig, embedding_matrix: np.ndarray | None = None) -> keras.Model:
    """The uncompiled Keras model ``name``.

    Called with a dict keyed by the spec's input names (``{"tokens": int32
    (batch, max_len)}``, plus ``"lexicon"``: float32 (batch, lexicon_dim) for
    Dense-LSTM, and ``"context"``: int32 (batch, context_len) when
    ``config.context_len`` is set); returns class probabilities (batch,
    num_classes), or a dict of them when ``config.aux_heads`` is set.
    ``embedding_matrix`` (vocab_size, embedding_dim) initialises the
    embedding; random when omitted.  The caller compiles (the paper: Adam,
    lr 1e-3, cross-entropy).
    """
    spec = MODELS.get(name)
    config = spec.resolve(config)
    check_matrix(embedding_matrix, config)
    embedding = embedding_layer(config, embedding_matrix, trainable=config.trainable_embeddings, name="embedding")
    if config.context_len:
        inputs, features = _context_aware(spec, config, embedding, embedding_matrix)
    else:
        inputs = {input_name: INPUTS[input_name](config) for input_name in spec.inputs}
        features = _features(spec, Encoded(inputs, embedding(inputs["tokens"]), embedding_matrix), config)
    return keras.Model(inputs, classifier_heads(features, config), name=name)


def _features(spec: ModelSpec, encoded: Encoded, config: ModelConfig):
    """``spec.builder``'s features, checked: a plugin's builder that raises, or returns anything but
    the Keras tensor of its features (``None``: a forgotten ``return``), stops in one line naming
    the plugin's file, not in a traceback from inside Keras.  A built-in builder that raises is a
    bug of this package and keeps its traceback."""
    try:
        features = spec.build_function()(encoded, config)
    except IsarcasmError:
        raise
    except Exception as exc:  # noqa: BLE001  (whatever a plugin's builder raises becomes one line naming it)
        if spec.builtin:
            raise
        raise IsarcasmError(f"model '{spec.name}' ({_where(spec)}): its builder raised {type(exc).__name__}: "
                            f"{exc}") from None
    if not isinstance(features, keras.KerasTensor):
        raise IsarcasmError(f"model '{spec.name}' ({_where(spec)}): its builder returned {type(features).__name__}, "
                            "not a Keras tensor; it must return the encoder's features, e.g. "
                            "`return layers.GlobalMaxPooling1D()(encoded.embedded)`")
    return features


def _where(spec: ModelSpec) -> str:
    """Where a model's builder is written: its file and line."""
    builder = spec.build_function()
    code = getattr(builder, "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}" if code else builder.__module__


def _context_aware(spec: ModelSpec, config: ModelConfig, embedding, matrix: np.ndarray | None):
    """The inputs and features of a model that also reads the dialogue context.

    The response and its context are encoded separately, by two copies of the
    model's own encoder (each with its own weights, each a sub-model so their
    layer names do not clash), both reading the one shared embedding; the two
    feature vectors are concatenated before the classifier.  An empty context
    is all padding, which every encoder maps to a defined (zero-attention)
    vector.
    """
    if not spec.reads_context:
        raise IsarcasmError(f"model '{spec.name}' also reads {', '.join(spec.inputs[1:])}; the context-aware "
                            "variant is for models that read tokens only")

    def encoder(part: str, length: int) -> keras.Model:
        vectors = keras.Input(shape=(length, config.embedding_dim), name=f"{part}_vectors")
        features = _features(spec, Encoded({"tokens": None}, vectors, matrix), replace(config, max_len=length))
        model = keras.Model(vectors, features, name=f"{part}_encoder")
        model.supports_masking = True  # it is called with the embedding's padding mask, which its layers honour
        return model

    inputs = {"tokens": tokens_input(config), "context": context_input(config)}
    features = layers.Concatenate(name="response_and_context")(
        [encoder("response", config.max_len)(embedding(inputs["tokens"])),
         encoder("context", config.context_len)(embedding(inputs["context"]))])
    return inputs, features


def load_model(path: str | Path, compile: bool = True) -> keras.Model:
    """A model saved with ``model.save("x.keras")``, loaded with ``safe_mode`` on.

    Importing :mod:`baselines` registers the custom layers, which is all that
    loading needs: ``keras.saving.load_model`` works too once it is imported.
    """
    path = Path(path)
    require_file(path, f"{path}: no such model file (a .keras file written by a training run)")
    check_model_file(path)  # from the zip's directory and the weights' shapes, before Keras reads any weight
    with warnings.catch_warnings():
        # A context-aware model's encoder sub-models honour the padding mask (their layers read it), but
        # the flag saying so is not saved: Keras warns while rebuilding them, and the flag is set again below.
        warnings.filterwarnings("ignore", message=r"Layer '\w+_encoder' \(of type Functional\)")
        try:
            model = keras.saving.load_model(path, compile=compile, safe_mode=True)
        except Exception as exc:  # noqa: BLE001  (a user's file: whatever is wrong with it is one line)
            raise IsarcasmError(_load_problem(path, exc)) from None
    for layer in model.layers:
        if isinstance(layer, keras.Model):
            layer.supports_masking = True
    return model


def _load_problem(path: Path, exc: Exception) -> str:
    """One line saying why a .keras file was not loaded."""
    message = str(exc)
    if "Lambda" in message or "safe_mode" in message:
        return (f"{path}: refused: the model holds a Lambda layer or other Python code, which is never run from a "
                "file (Keras safe_mode); only models built from registered layers are loaded")
    first = next((line.strip() for line in message.splitlines() if line.strip()), type(exc).__name__)
    return f"{path}: not a loadable .keras model ({type(exc).__name__}: {first[:300]})"
