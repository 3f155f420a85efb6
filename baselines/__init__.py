"""The seven iSarcasm baseline models (Keras 3), behind one registry.

``build_model(name, config, embedding_matrix)`` returns an uncompiled model;
``MODELS`` lists them.  Importing the package registers the built-in models
without importing Keras (:mod:`baselines.catalogue`): ``build_model`` and
``load_model`` import it, and TensorFlow with it, when first used.
"""
from .config import ModelConfig, main_output
from .registry import MODELS, ModelSpec, register_model

# Registers the built-in models, listed in this order.
from . import catalogue  # noqa: F401  # isort: skip

# Then the models of installed plugin packages (entry point group "isarcasm.models").
from .plugins import load_entry_points  # isort: skip

load_entry_points()

__all__ = ["MODELS", "ModelConfig", "ModelSpec", "build_model", "load_model", "main_output", "register_model"]


def __getattr__(name: str):
    """``build_model`` and ``load_model``, from :mod:`baselines.building`: imported (with Keras) on first use."""
    if name in ("build_model", "load_model"):
        from . import building  # Keras and TensorFlow: only once a model is built or loaded

        return getattr(building, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
