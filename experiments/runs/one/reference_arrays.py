"""How the reference set's ``.npz`` holds a run's arrays, per format version (see :mod:`experiments.runs.one.reference`).

Version 1 holds each array as it is: float32 probabilities, epochs x texts x classes, deflated.

Version 2 holds the very same values, bit for bit, in fewer bytes:

* a binary run's probabilities (two classes, one label per text) keep P(sarcastic), column 1, as it is;
  P(not sarcastic), column 0, is held as ``<part>_p0_ulps``: its difference from float32(1 - P(sarcastic))
  in float32 bit patterns (units in the last place).  The model's softmax makes the two sum to 1 up to
  rounding, so the difference is mostly 0 or 1 and takes a few bits, yet column 0 comes back exactly:
  every metric and selection rule reads column 1 only, but ``runs verify`` compares every digit of a
  retrained run, and a materialised ``predictions.tsv`` prints both columns.  Multi-class and
  multi-label runs keep every column.
* each float32 array is stored as its 4 little-endian byte planes (uint8, 4 x the array's shape: byte k
  of every value together), which the compressor packs far better than interleaved floats;
* the ``.npz`` (a zip file that ``np.load`` reads as any other) is LZMA-compressed instead of deflated.
"""
from __future__ import annotations

import io
import zipfile

import numpy as np

#: The parts of a run in the ``.npz``, each under ``<run>_<part>``.
PARTS = ("validation", "test", "validation_gold", "test_gold", "predictions", "test_ids")
#: The parts that hold probabilities (texts x classes, or epochs x texts x classes), packed in version 2.
PROBABILITIES = ("validation", "test", "predictions")
#: The versions :func:`unpacked` reads.
VERSIONS = (1, 2)
_P0 = "_p0_ulps"
_FLOAT = np.dtype("<f4")


def packed(run: str, arrays: dict[str, np.ndarray], binary: bool) -> dict[str, np.ndarray]:
    """The version-2 members of run ``run`` (e.g. ``r0``) from its ``arrays`` (every part of :data:`PARTS`,
    probabilities in float32); ``binary``: a two-class, single-label run, whose column 0 is held as a difference."""
    members = {}
    for part, value in arrays.items():
        name = f"{run}_{part}"
        if part not in PROBABILITIES:
            members[name] = value
            continue
        value = np.asarray(value, dtype=_FLOAT)
        if binary:
            positive = np.ascontiguousarray(value[..., 1])
            members[name + _P0] = _smallest(_bits(value[..., 0]) - _bits(_complement(positive)))
            value = positive
        members[name] = np.ascontiguousarray(np.moveaxis(value.view(np.uint8).reshape(*value.shape, 4), -1, 0))
    return members


def unpacked(members: dict[str, np.ndarray], run: str, version: int) -> dict[str, np.ndarray]:
    """Every part of run ``run`` as version 1 holds it (float32 probabilities with all their columns),
    from the ``.npz`` members of a set of format ``version``."""
    arrays = {part: members[f"{run}_{part}"] for part in PARTS}
    if version == 1:
        return arrays
    for part in PROBABILITIES:
        planes = arrays[part]
        value = np.ascontiguousarray(np.moveaxis(planes, 0, -1)).view(_FLOAT)[..., 0].astype("float32")
        if f"{run}_{part}{_P0}" in members:
            restored = _bits(_complement(value)) + members[f"{run}_{part}{_P0}"].astype(np.int64)
            value = np.stack([restored.astype(np.uint32).view(np.float32), value], axis=-1)
        arrays[part] = value
    return arrays


def npz_bytes(members: dict[str, np.ndarray]) -> bytes:
    """A version-2 ``.npz``: ``np.savez``'s layout, LZMA-compressed, with fixed member dates so that the
    same runs always give the same bytes (and the same sha256)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_LZMA, allowZip64=True) as archive:
        for name, value in members.items():
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_LZMA
            with archive.open(info, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(value), allow_pickle=False)
    return buffer.getvalue()


def _complement(positive: np.ndarray) -> np.ndarray:
    """float32(1 - P(sarcastic)): what column 0 is, up to the softmax's rounding."""
    return (np.float32(1) - positive).astype(np.float32)


def _bits(value: np.ndarray) -> np.ndarray:
    """The float32 bit patterns of ``value`` as integers (wide enough that any difference of two fits)."""
    return np.ascontiguousarray(value, dtype=np.float32).view(np.uint32).astype(np.int64)


def _smallest(values: np.ndarray) -> np.ndarray:
    """``values`` (integers) in the narrowest signed type that holds them all."""
    for kind in (np.int8, np.int16, np.int32):
        if values.size == 0 or (values.min() >= np.iinfo(kind).min and values.max() <= np.iinfo(kind).max):
            return values.astype(kind)
    return values
