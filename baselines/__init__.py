"""The seven iSarcasm baseline models (Keras 3), behind one registry.

``build_model(name, config, embedding_matrix)`` returns an uncompiled model;
``MODELS`` lists them.  Importing the package registers the built-in models.
"""
from .common import main_output
from .config import ModelConfig
from .registry import MODELS, ModelSpec, build_model, load_model, register_model

# Registers the built-in models, listed in this order.
from . import recurrent, convolutional, intra_attention  # noqa: F401  # isort: skip

# Then the models of installed plugin packages (entry point group "isarcasm.models").
from .plugins import load_entry_points  # isort: skip

load_entry_points()

__all__ = ["MODELS", "ModelConfig", "ModelSpec", "build_model", "load_model", "main_output", "register_model"]
