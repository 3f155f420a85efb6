"""What a ``.keras`` file declares, checked before Keras builds or reads anything of it.

A ``.keras`` file is a zip of ``config.json`` (the layers, which Keras builds first, allocating every
weight they declare) and ``model.weights.h5`` (the values, read into those weights after).  A file of
a few kilobytes can declare gigabytes in either: a zip member that expands like a zip bomb, weights
of unwritten chunks, or a config whose embedding is 6,000,000 x 100 (Keras builds it before its
weights fail to fit; docs/reliability.md).  Each is sized here from the zip's directory, the weights' HDF5
metadata and the config's layers, against the limits of :mod:`preprocessing.limits`, and refused
in one line.
"""
from __future__ import annotations

import json
import math
import zipfile
from collections.abc import Callable
from pathlib import Path

from .errors import IsarcasmError
from .fileio import json_value
from .limits import LAYER_SLACK, MODEL_SHARE, ZIP_EXPANSION_FLOOR, ZIP_MAX_EXPANSION, check_memory, size

#: The file in a ``.keras`` zip that declares the model's layers.
CONFIG_MEMBER = "config.json"


def check_model_file(path: Path) -> None:
    """Refuse a ``.keras`` file whose members declare more bytes than loading it may take, or expand like a
    zip bomb (from the zip's directory, before anything is decompressed), whose weights declare more than
    they hold (from the weights file's metadata), or whose config's layers declare more weights than the
    weights file holds.  A file that is no zip is left to Keras, whose error says so."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError):
        return
    for member in members:
        if member.file_size > max(ZIP_EXPANSION_FLOOR, ZIP_MAX_EXPANSION * member.compress_size):
            raise IsarcasmError(f"{path}: refused: its member {member.filename} declares {size(member.file_size)} "
                                f"packed into {size(member.compress_size)}, which no model file written by Keras "
                                "does (a zip bomb?); use the model.keras a training run wrote")
    held = sum(_declared_weights(path, member) for member in members if member.filename.endswith(".h5"))
    layers = _layer_weights(path) if any(m.filename == CONFIG_MEMBER for m in members) else []
    declared = sum(nbytes for nbytes, _ in layers)
    if declared > held + LAYER_SLACK:
        nbytes, largest = max(layers)
        raise IsarcasmError(f"{path}: refused: its {CONFIG_MEMBER} declares {size(declared)} of weights (the largest: "
                            f"{largest}, {size(nbytes)}) but its weights hold {size(held)}, which no model file "
                            "written by Keras does; use the model.keras a training run wrote")
    check_memory(f"{path}: loading this model", MODEL_SHARE * max(held, declared, sum(m.file_size for m in members)),
                 "use a smaller model")


def _declared_weights(path: Path, member: zipfile.ZipInfo) -> int:
    """The bytes the datasets of the weights file ``member`` declare (their shapes times their item sizes),
    read from its metadata alone.  Keras writes every weight whole, uncompressed, so they fit in the
    member; a dataset declaring more is padded or sparse (unwritten chunks read as zeros), and Keras would
    allocate all of it.  A member h5py cannot read counts
    its own size (it holds no more; what is wrong with it is Keras' to report)."""
    import h5py  # only where a model file is loaded

    sizes: list[int] = []
    try:
        with zipfile.ZipFile(path) as archive, archive.open(member) as handle, h5py.File(handle, "r") as weights:
            weights.visititems(lambda _, item: sizes.append(item.size * item.dtype.itemsize)
                               if isinstance(item, h5py.Dataset) else None)
    except (OSError, ValueError, RuntimeError, zipfile.BadZipFile):
        return member.file_size
    if sum(sizes) > member.file_size:
        raise IsarcasmError(f"{path}: refused: its {member.filename} declares {size(sum(sizes))} of weights in "
                            f"{size(member.file_size)}, which no model file written by Keras does (padded or sparse "
                            "weights?); use the model.keras a training run wrote")
    return sum(sizes)


def _recurrent(gates: int) -> Callable:
    return lambda n, width: [(width, gates * n("units")), (n("units"), gates * n("units"))]


#: The weight shapes a layer class builds, from its config (``n(key)``: a whole number, else 0) and the width
#: of its input (0 where the config does not record it): its kernels, biases left out, so the sum is a lower
#: bound.  A class not listed counts nothing; the suite's own subclasses count as their Keras classes, and its
#: attention layers by their ``units`` and ``k``.
LAYER_SHAPES: dict[str, Callable] = {
    "Embedding": lambda n, width: [(n("input_dim"), n("output_dim"))],
    "Dense": lambda n, width: [(width, n("units"))],
    "Conv1D": lambda n, width: [(n("kernel_size"), width, n("filters"))],
    "LSTM": _recurrent(4),
    "GRU": _recurrent(3),
    "SimpleRNN": _recurrent(1),
    "AdditiveAttentionPooling": lambda n, width: [(width, n("units")), (n("units"), 1)],
    "MultiIntraAttention": lambda n, width: [(width, n("k")), (width, n("k")), (n("k"), 1)],
}
LAYER_SHAPES |= {"RandomStateLSTM": LAYER_SHAPES["LSTM"], "MaskedConv1D": LAYER_SHAPES["Conv1D"]}
#: Bits a weight takes under a layer's dtype policy (Keras' default, float32, where the config names none);
#: a policy not listed (a quantised one: int8, int4, float8) counts 4, the fewest any takes.
WEIGHT_BITS = {None: 32, "float32": 32, "mixed_float16": 32, "mixed_bfloat16": 32, "float16": 16, "bfloat16": 16,
               "float64": 64}
#: A dimension counts at most this much (more than any allocation can hold), so a size stays a number.
MAX_DIMENSION = 1 << 53


def _layer_weights(path: Path) -> list[tuple[int, str]]:
    """``(bytes, description)`` of every layer of the model file's config that :data:`LAYER_SHAPES` sizes,
    nested models and wrappers (Bidirectional) included; a layer shared by name between models (Keras
    writes it again under the same ``shared_object_id``) counts once.  A config that is not JSON is Keras'
    to report; one nested too deep is refused (:func:`~preprocessing.fileio.json_value`)."""
    where = f"{path}'s {CONFIG_MEMBER}"
    try:
        with zipfile.ZipFile(path) as archive:
            config = json_value(archive.read(CONFIG_MEMBER).decode("utf-8"), where)
    except (zipfile.BadZipFile, OSError, UnicodeDecodeError, json.JSONDecodeError):
        return []
    layers, seen, stack = [], set(), [config]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
            continue
        shared = item.get("shared_object_id") if isinstance(item, dict) else None
        if not isinstance(item, dict) or shared in seen:
            continue
        if isinstance(shared, int):
            seen.add(shared)
        shapes = LAYER_SHAPES.get(item.get("class_name")) if isinstance(item.get("class_name"), str) else None
        if shapes and isinstance(item.get("config"), dict):
            layers.append(_sized(item, shapes))
        stack.extend(item.values())
    return layers


def _sized(layer: dict, shapes: Callable) -> tuple[int, str]:
    """A layer's weight bytes by :data:`LAYER_SHAPES` and :data:`WEIGHT_BITS`, and how to name it."""
    config = layer["config"]
    built = layer.get("build_config")
    shape = built.get("input_shape") if isinstance(built, dict) else None
    declared = [tuple(dims) for dims in shapes(lambda key: _whole(config.get(key)),
                                                _whole(shape[-1] if isinstance(shape, list) and shape else None))]
    policy = config.get("dtype")
    policy = policy.get("config") if isinstance(policy, dict) else {"name": policy}
    name = policy.get("name") if isinstance(policy, dict) else None
    bits = WEIGHT_BITS.get(name if isinstance(name, str) else None, 4)
    largest = max(declared, key=math.prod)
    return (sum(math.prod(dims) for dims in declared) * bits // 8,
            f"{layer['class_name']} {json.dumps(config.get('name'))} of {' x '.join(f'{d:,}' for d in largest)}")


def _whole(value) -> int:
    """``value`` when it is a whole number above 0 (or a list starting with one: a kernel size), at most
    :data:`MAX_DIMENSION`; else 0."""
    value = value[0] if isinstance(value, list) and value else value
    return min(value, MAX_DIMENSION) if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
