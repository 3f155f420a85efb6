"""Convolutional baselines: CNN (Kim 2014, one width) and 3CNN (widths 3, 4, 5).

Their names, papers and traits (dropout 0.5, Kim's) are declared in :mod:`baselines.catalogue`.
"""
from __future__ import annotations

from keras import layers

from .common import Encoded
from .config import ModelConfig
from .layers import MaskedConv1D, MaskedGlobalMaxPooling1D


def convolution_features(encoded: Encoded, config: ModelConfig, widths: tuple[int, ...]):
    """ReLU convolutions of each width, max-pooled over the tweet's real positions, concatenated."""
    pooled = [
        MaskedGlobalMaxPooling1D(name=f"max_pool_{width}")(
            MaskedConv1D(config.filters, width, activation="relu", name=f"conv_{width}")(encoded.embedded))
        for width in widths
    ]
    return pooled[0] if len(pooled) == 1 else layers.Concatenate(name="features")(pooled)


def cnn(encoded: Encoded, config: ModelConfig):
    features = convolution_features(encoded, config, (3,))
    return layers.Dense(config.hidden, activation="relu", name="dense")(features)


def three_cnn(encoded: Encoded, config: ModelConfig):
    return convolution_features(encoded, config, (3, 4, 5))
