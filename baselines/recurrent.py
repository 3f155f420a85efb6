"""Recurrent baselines: LSTM, Att-LSTM and Dense-LSTM.

Keras' LSTM honours the padding mask: padded steps leave the state unchanged,
so the returned state is that of the tweet's last real word.  The models' names and
traits are declared in :mod:`baselines.catalogue`.
"""
from __future__ import annotations

from keras import layers

from .common import Encoded, embedding_layer, masked_lstm
from .config import ModelConfig
from .layers import AdditiveAttentionPooling, MaskedGlobalAveragePooling1D


def lstm(encoded: Encoded, config: ModelConfig):
    """The last LSTM state is the tweet's representation."""
    return masked_lstm(config, name="lstm")(encoded.embedded)


def attention_lstm(encoded: Encoded, config: ModelConfig):
    """The attention-weighted sum of all LSTM states replaces the last state."""
    states = masked_lstm(config, name="lstm", return_sequences=True)(encoded.embedded)
    return AdditiveAttentionPooling(config.attention_size, name="attention")(states)


def dense_lstm(encoded: Encoded, config: ModelConfig):
    """Each LSTM layer reads the embeddings and the outputs of all earlier layers.

    The last layer's final state is joined with the mean of the tweet's
    pre-trained word vectors (a frozen copy of the initial embedding matrix, so
    it stays the pre-trained average while the main embedding is fine-tuned)
    and with the lexicon feature vector.
    """
    sequence = encoded.embedded
    for index in range(1, config.dense_layers):
        output = masked_lstm(config, name=f"lstm_{index}", return_sequences=True)(sequence)
        sequence = layers.Concatenate(name=f"dense_{index}")([sequence, output])
    final = masked_lstm(config, name=f"lstm_{config.dense_layers}")(sequence)
    frozen = embedding_layer(config, encoded.embedding_matrix, trainable=False, name="pretrained_embedding")
    tweet_vector = MaskedGlobalAveragePooling1D(name="mean_word_vector")(frozen(encoded.inputs["tokens"]))
    return layers.Concatenate(name="features")([final, tweet_vector, encoded.inputs["lexicon"]])
