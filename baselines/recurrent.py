"""Recurrent baselines: LSTM, Att-LSTM and Dense-LSTM.

Keras' LSTM honours the padding mask: padded steps leave the state unchanged,
so the returned state is that of the tweet's last real word.
"""
from __future__ import annotations

from keras import layers

from .common import Encoded, embedding_layer, masked_lstm
from .config import ModelConfig
from .layers import AdditiveAttentionPooling, MaskedGlobalAveragePooling1D
from .registry import register_model


@register_model("lstm", paper="LSTM (one layer, 100 units; as configured by Oprea & Magdy 2020)")
def lstm(encoded: Encoded, config: ModelConfig):
    """The last LSTM state is the tweet's representation."""
    return masked_lstm(config, name="lstm")(encoded.embedded)


@register_model("att-lstm", paper="LSTM + additive attention (Yang et al. 2016)", cost=1.15)
def attention_lstm(encoded: Encoded, config: ModelConfig):
    """The attention-weighted sum of all LSTM states replaces the last state."""
    states = masked_lstm(config, name="lstm", return_sequences=True)(encoded.embedded)
    return AdditiveAttentionPooling(config.attention_size, name="attention")(states)


@register_model("dense-lstm", paper="Densely connected LSTM + lexicon features (Wu et al. 2018, THU_NGN)",
                inputs=("tokens", "lexicon"), dropout=0.3, multitask=True, cost=6.4)
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
