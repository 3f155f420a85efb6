"""SIARN and MIARN (Tay et al. 2018): intra-attention over word pairs joined with an LSTM.

v_a (intra-attentive tweet vector) and v_l (last LSTM state) are combined as
v = ReLU(W_z [v_a; v_l] + b_z), then classified.  The two models differ only
in how a word pair is scored (:mod:`baselines.layers`).  Their names and traits are
declared in :mod:`baselines.catalogue`.
"""
from __future__ import annotations

from keras import layers

from .common import Encoded, masked_lstm
from .config import ModelConfig
from .layers import IntraAttention, MultiIntraAttention, SingleIntraAttention

def intra_attention_features(encoded: Encoded, config: ModelConfig, attention: IntraAttention):
    intra = attention(encoded.embedded)
    last_state = masked_lstm(config, name="lstm")(encoded.embedded)
    joined = layers.Concatenate(name="joined")([intra, last_state])
    return layers.Dense(config.hidden, activation="relu", name="projection")(joined)


def siarn(encoded: Encoded, config: ModelConfig):
    return intra_attention_features(encoded, config, SingleIntraAttention(name="intra_attention"))


def miarn(encoded: Encoded, config: ModelConfig):
    return intra_attention_features(encoded, config, MultiIntraAttention(config.k, name="intra_attention"))
