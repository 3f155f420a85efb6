"""Convolutional baselines: CNN (Kim 2014, one width) and 3CNN (widths 3, 4, 5)."""
from __future__ import annotations

from keras import layers

from .common import Encoded
from .config import ModelConfig
from .layers import MaskedConv1D, MaskedGlobalMaxPooling1D
from .registry import register_model

#: Kim (2014) uses dropout 0.5 on the penultimate layer; the iSarcasm paper gives no other value.
KIM_DROPOUT = 0.5


def convolution_features(encoded: Encoded, config: ModelConfig, widths: tuple[int, ...]):
    """ReLU convolutions of each width, max-pooled over the tweet's real positions, concatenated."""
    pooled = [
        MaskedGlobalMaxPooling1D(name=f"max_pool_{width}")(
            MaskedConv1D(config.filters, width, activation="relu", name=f"conv_{width}")(encoded.embedded))
        for width in widths
    ]
    return pooled[0] if len(pooled) == 1 else layers.Concatenate(name="features")(pooled)


@register_model("cnn", paper="CNN, 100 filters of width 3 + dense layer (Kim 2014)", dropout=KIM_DROPOUT,
                cost=0.4)
def cnn(encoded: Encoded, config: ModelConfig):
    features = convolution_features(encoded, config, (3,))
    return layers.Dense(config.hidden, activation="relu", name="dense")(features)


@register_model("3cnn", paper="CNN, widths 3/4/5 x 100 filters (Kim 2014; used by Hazarika et al. 2018)",
                dropout=KIM_DROPOUT, cost=0.9)
def three_cnn(encoded: Encoded, config: ModelConfig):
    return convolution_features(encoded, config, (3, 4, 5))
