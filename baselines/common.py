"""The pieces every baseline shares: its inputs, the word embedding, the classifier head.

A model's builder (see :mod:`baselines.registry`) only writes its encoder: it
receives the embedded, masked tokens (:class:`Encoded`) and returns one
feature vector per tweet; :func:`classifier_heads` turns that into class
probabilities the same way for every model.
"""
from __future__ import annotations

from dataclasses import dataclass

import keras
import numpy as np
from keras import layers

from preprocessing.errors import IsarcasmError

from .config import MAIN_OUTPUT, ModelConfig
from .layers import RandomStateLSTM


def tokens_input(config: ModelConfig):
    """Padded token ids, (batch, length) int32: ``max_len`` for training, shorter for a batch
    cut to its longest text (see :mod:`baselines.batching`)."""
    return keras.Input(shape=(None,), dtype="int32", name="tokens")


def lexicon_input(config: ModelConfig):
    """The lexicon feature vector of each tweet, (batch, lexicon_dim) float32."""
    if config.lexicon_dim < 1:
        raise IsarcasmError("this model takes lexicon features: set lexicon_dim to the lexicon featuriser's width")
    return keras.Input(shape=(config.lexicon_dim,), dtype="float32", name="lexicon")


def context_input(config: ModelConfig):
    """Padded token ids of the dialogue context before the text, (batch, length) int32, like the tokens."""
    return keras.Input(shape=(None,), dtype="int32", name="context")


#: Every input a model may name in its spec, with the factory that declares it.
INPUTS = {"tokens": tokens_input, "lexicon": lexicon_input}


@dataclass(frozen=True)
class Encoded:
    """What a model builder starts from."""

    inputs: dict
    #: The embedded tokens (batch, max_len, embedding_dim), carrying the padding mask.
    embedded: object
    #: The initial word vectors, when given (Dense-LSTM keeps a frozen copy of them).
    embedding_matrix: np.ndarray | None


def embedding_layer(config: ModelConfig, matrix: np.ndarray | None, trainable: bool, name: str) -> layers.Embedding:
    """An Embedding masking the padding id, initialised from ``matrix`` when given.

    The matrix is assigned to the built layer rather than passed as a Constant
    initializer, which would write the whole matrix into the saved model's JSON config.
    """
    layer = layers.Embedding(config.vocab_size, config.embedding_dim, mask_zero=True, trainable=trainable, name=name)
    layer.build((None, config.max_len))
    if matrix is not None:
        layer.embeddings.assign(np.asarray(matrix, dtype=layer.embeddings.dtype))
    return layer


def masked_lstm(config: ModelConfig, name: str, return_sequences: bool = False) -> layers.LSTM:
    """An LSTM of ``config.hidden`` units that honours any padding mask, on any device, starting from
    ``config.initial_state`` (zeros, or :class:`RandomStateLSTM`'s random state).

    Keras' cuDNN kernel only accepts masks of right-padded rows with at least
    one real step, and fails inside the compiled graph otherwise.  Our texts are
    padded after their words, but a text whose tokens are all filtered out (an
    emoticon-only tweet) or an empty dialogue context is all padding, so the
    generic kernel is always used.  On the CPU this is the kernel Keras uses
    anyway, so results do not change.
    """
    lstm = RandomStateLSTM if config.initial_state == "random" else layers.LSTM
    return lstm(config.hidden, return_sequences=return_sequences, use_cudnn=False, name=name)


def check_matrix(matrix: np.ndarray | None, config: ModelConfig) -> None:
    expected = (config.vocab_size, config.embedding_dim)
    if matrix is not None and tuple(np.shape(matrix)) != expected:
        raise IsarcasmError(f"embedding matrix has shape {tuple(np.shape(matrix))}, the model config expects "
                            f"{expected} (vocab_size, embedding_dim): build both from the same vocabulary")


def classifier_heads(features, config: ModelConfig):
    """Dropout, then a softmax over ``num_classes`` (P(sarcastic) = [:, 1] for binary),
    or one sigmoid per label for a multi-label task.

    With auxiliary heads (multi-task training) the model returns a dict: the
    main output under ``"label"`` and one softmax per auxiliary task, all on the
    same features.
    """
    if config.dropout:
        features = layers.Dropout(config.dropout, name="dropout")(features)
    heads = {MAIN_OUTPUT: config.num_classes, **config.aux_heads}
    outputs = {name: layers.Dense(classes, name=name,
                                  activation="sigmoid" if config.multi_label and name == MAIN_OUTPUT else "softmax")
               (features) for name, classes in heads.items()}
    return outputs[MAIN_OUTPUT] if len(outputs) == 1 else outputs
