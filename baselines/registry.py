"""The model registry: every model is one :class:`ModelSpec`, found by name.

The registry itself imports no Keras (nor TensorFlow), so a command that only
plans, names or looks up runs (a ``--jobs N`` sweep's parent process) never
loads it.  The built-in models are declared in
:mod:`baselines.catalogue`, their builders named by import path and imported
when a model is built (:mod:`baselines.building`).  A builder is
``builder(encoded: Encoded, config: ModelConfig) -> features``: it writes only
the model's encoder; :func:`baselines.building.build_model` adds the inputs, the
embedding and the classifier head, identical for all models.  A plugin adds a
model with the decorator::

    from baselines.layers import MaskedGlobalAveragePooling1D
    from baselines.registry import register_model

    @register_model("bow", paper="bag of word vectors")
    def bag_of_words(encoded, config):
        return MaskedGlobalAveragePooling1D()(encoded.embedded)
"""
from __future__ import annotations

import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, replace

from preprocessing.registry import Registry

from .config import ModelConfig

#: The inputs a model may name; their Keras declarations are :data:`baselines.common.INPUTS`.
INPUT_NAMES = ("tokens", "lexicon")


@dataclass(frozen=True)
class ModelSpec:
    name: str
    paper: str
    #: The encoder builder: a function (a plugin's), or its import path ``"module:function"`` (a built-in
    #: model's, imported with Keras only when the model is built: :meth:`build_function`).
    builder: Callable | str
    #: The model's input names, keys of the input dict it is called with.
    inputs: tuple[str, ...] = ("tokens",)
    #: Dropout before the classifier when the config leaves it unset (the paper's value).
    dropout: float = 0.0
    #: Trained with one extra softmax head per auxiliary task of the corpus, when it has
    #: any (``Dataset.aux_labels``), as Wu et al.'s (2018) multi-task Dense-LSTM.
    multitask: bool = False
    #: Training time per example relative to the LSTM's (1.0): for the built-in models, the
    #: median ``train_seconds`` of their Table 7 runs (docs/results/archive/engine-exact/table7-engine-exact.json).  It only orders a sweep's runs, most expensive first,
    #: so that ``--jobs`` workers finish together instead of one waiting on a long last run.
    cost: float = 1.0
    #: The model compares every pair of positions (SIARN, MIARN: a (batch, T, T, k) tensor), so its
    #: memory grows with the square of ``max_len`` (see :meth:`ModelConfig.training_bytes`).
    pairwise: bool = False

    def __post_init__(self):
        unknown = [i for i in self.inputs if i not in INPUT_NAMES]
        if "tokens" not in self.inputs or unknown:
            raise ValueError(f"model {self.name!r}: inputs must include 'tokens' and be among {sorted(INPUT_NAMES)}, "
                             f"got {self.inputs}")

    @property
    def reads_context(self) -> bool:
        """Whether the model has a ``--context`` variant.  Its context encoder is a copy of the
        model's token encoder, so a model with other inputs (Dense-LSTM's lexicon features,
        which describe the text alone) has none."""
        return self.inputs == ("tokens",)

    @property
    def builtin(self) -> bool:
        """Whether the model is one of this package's (declared in :mod:`baselines.catalogue`)."""
        return isinstance(self.builder, str)

    def build_function(self) -> Callable:
        """The builder itself; a built-in model's module (and so Keras) is imported here."""
        return pkgutil.resolve_name(self.builder) if self.builtin else self.builder

    def resolve(self, config: ModelConfig) -> ModelConfig:
        """``config`` with the model's defaults filled in."""
        return config if config.dropout is not None else replace(config, dropout=self.dropout)


MODELS: Registry[ModelSpec] = Registry("model")


def register_model(name: str, paper: str, **traits):
    """Decorator registering an encoder builder as model ``name``; returns the builder unchanged.
    ``traits`` are :class:`ModelSpec`'s other fields (``inputs``, ``dropout``, ``multitask``, ``cost``,
    ``pairwise``), each with its default when left out."""
    # Checked here, before any builder is given: the builder stands in as an empty path until then.
    spec = ModelSpec(name, paper, "", **{**traits, "inputs": tuple(traits.get("inputs", ("tokens",)))})

    def decorate(builder: Callable) -> Callable:
        MODELS.add(name, replace(spec, builder=builder))
        return builder

    return decorate
