"""The seven built-in models: names, papers and traits, declared without importing Keras.

A sweep's parent process plans, orders and looks up runs by these traits alone;
each builder is named by import path (``module:function``) and imported, with
Keras, only where a model is built (:meth:`baselines.registry.ModelSpec.build_function`).
Listed in this order by ``isarcasm models list`` and in every table.
"""
from __future__ import annotations

from .registry import MODELS, ModelSpec

#: Kim (2014) uses dropout 0.5 on the penultimate layer; the iSarcasm paper gives no other value.
KIM_DROPOUT = 0.5
#: Tay et al. (2018), the paper of SIARN and MIARN.
TAY = "Tay et al. 2018"

BUILT_IN = (
    ModelSpec("lstm", "LSTM (one layer, 100 units; as configured by Oprea & Magdy 2020)",
              "baselines.recurrent:lstm"),
    ModelSpec("att-lstm", "LSTM + additive attention (Yang et al. 2016)", "baselines.recurrent:attention_lstm",
              cost=1.15),
    ModelSpec("dense-lstm", "Densely connected LSTM + lexicon features (Wu et al. 2018, THU_NGN)",
              "baselines.recurrent:dense_lstm", inputs=("tokens", "lexicon"), dropout=0.3, multitask=True, cost=6.4),
    ModelSpec("cnn", "CNN, 100 filters of width 3 + dense layer (Kim 2014)", "baselines.convolutional:cnn",
              dropout=KIM_DROPOUT, cost=0.4),
    ModelSpec("3cnn", "CNN, widths 3/4/5 x 100 filters (Kim 2014; used by Hazarika et al. 2018)",
              "baselines.convolutional:three_cnn", dropout=KIM_DROPOUT, cost=0.9),
    ModelSpec("siarn", f"SIARN, single-dimensional intra-attention ({TAY})", "baselines.intra_attention:siarn",
              cost=1.7, pairwise=True),
    ModelSpec("miarn", f"MIARN, multi-dimensional intra-attention ({TAY})", "baselines.intra_attention:miarn",
              cost=2.3, pairwise=True),
)

for _spec in BUILT_IN:
    MODELS.add(_spec.name, _spec)
