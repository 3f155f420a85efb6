"""Bounds on what a value may make this process allocate or wait for, checked before anything is allocated.

A 33-byte vectors file can claim two billion words, a 4 MB ``.keras`` file three gigabytes of weights,
``--max-len`` a length no tensor of it fits in memory.  Left alone, each takes gigabytes and minutes
before an allocation fails deep inside NumPy or TensorFlow.  Every value that sizes memory or time is
checked here first, against what the machine can afford, and refused in one line that says what to
lower (and how to raise the limit, for a machine that can afford more).

Every limit is declared once in this module; ``docs/reliability.md`` lists them.
"""
from __future__ import annotations

import os
import resource
from dataclasses import dataclass
from pathlib import Path

from .errors import IsarcasmError

#: Bytes this process may plan to allocate: ``$ISARCASM_MEMORY_LIMIT`` (``8G``, ``512M``, bytes), else
#: :data:`MEMORY_FRACTION` of the memory the machine (or its container, or ``ulimit -v``) gives it.
MEMORY_ENV = "ISARCASM_MEMORY_LIMIT"
MEMORY_FRACTION = 0.75
#: ``--seeds``: more runs per cell than any study needs (the paper's tables use 5), and each is a training run.
MAX_SEEDS = 1000
#: ``benchmark --resamples``: the bootstrap's p-values settle long before this (the default is 10,000).
MAX_RESAMPLES = 100_000
#: Seconds ``--executor ray --address`` waits for the cluster before giving up: ``$ISARCASM_RAY_TIMEOUT``.
RAY_TIMEOUT_ENV = "ISARCASM_RAY_TIMEOUT"
RAY_TIMEOUT_S = 30.0
#: A day: longer than any cluster takes to answer; above it, Ray's own timers overflow (``1e308``).
MAX_RAY_TIMEOUT_S = 86_400.0
#: The most a ``.gz`` file may decompress to: ``$ISARCASM_MAX_GZIP_BYTES`` (a size, as :data:`MEMORY_ENV`).
GZIP_ENV = "ISARCASM_MAX_GZIP_BYTES"
#: A ``.keras`` file written by Keras stores its members uncompressed; a member that expands more than
#: this many times (and past :data:`ZIP_EXPANSION_FLOOR` bytes) is a zip bomb, not a model.
ZIP_MAX_EXPANSION = 100
ZIP_EXPANSION_FLOOR = 64 << 20
#: Keras holds a model file's weights twice while it loads them (the file's bytes and the arrays), and
#: the arrays stay: a model may declare at most this share of the memory budget.
MODEL_SHARE = 3
#: Bytes of weights a model file's config may declare beyond what its weights file holds (Keras saves every
#: weight it builds, so none is needed; a margin for a weight the file keeps in another form).
LAYER_SLACK = 1 << 20
#: The deepest a JSON or TOML document the suite reads may nest (arrays in arrays, tables in tables).  The
#: suite's own files nest about 10 deep (a model's Keras config, a results file); thousands of levels end
#: Python's parsers, and every reader that walks a document, in a ``RecursionError``.
MAX_DEPTH = 100

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def size(nbytes: float) -> str:
    """``nbytes`` for a person: ``7.0 PiB``, ``3.0 GiB``, ``512 B``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(nbytes) < 1024:
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    return f"{nbytes:.1f} PiB"


def parse_size(text: str, variable: str = MEMORY_ENV) -> int:
    """``8G``, ``512M``, ``1.5T`` or a number of bytes; a one-line error naming the environment
    ``variable`` it came from for anything else."""
    value = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = value[-1:] if value[-1:] in _UNITS else ""
    try:
        number = float(value[: len(value) - len(unit)])
    except ValueError:
        number = -1.0
    if not 0 < number < float("inf"):
        raise IsarcasmError(f"${variable}={text!r} is not a size; use e.g. 8G, 512M or a number of bytes")
    return int(number * _UNITS[unit])


def machine_memory() -> int:
    """The memory this process can have: the physical memory, the container's limit (cgroup v2) and
    ``ulimit -v``, whichever is least."""
    limits = [os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")]
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        limits.append(soft)
    try:
        cgroup = Path("/sys/fs/cgroup/memory.max").read_text().strip()
    except OSError:
        cgroup = "max"
    if cgroup.isdigit():
        limits.append(int(cgroup))
    return min(limits)


def memory_budget() -> int:
    """Bytes one planned allocation may take (see :data:`MEMORY_ENV`)."""
    declared = os.environ.get(MEMORY_ENV)
    return parse_size(declared) if declared else int(machine_memory() * MEMORY_FRACTION)


def check_memory(what: str, nbytes: int, lower: str) -> None:
    """Refuse ``what`` when its ``nbytes`` exceed the budget; ``lower`` says which value to lower."""
    budget = memory_budget()
    if nbytes > budget:
        raise IsarcasmError(f"{what} would take {size(nbytes)}, more than the {size(budget)} this process may use; "
                            f"{lower} (or raise ${MEMORY_ENV} on a machine with more memory)")


@dataclass(frozen=True)
class LineBound:
    """The most lines a kind of text file may have, counted as it streams and refused at the first line past
    it, before its records fill the memory; ``$variable`` sets another (a whole number above 0; anything
    else is refused in one line, never ignored for the default)."""

    variable: str
    default: int
    holds: str  # what the largest real file of the kind holds, for the message

    def limit(self) -> int:
        declared = os.environ.get(self.variable, "").strip()
        if not declared:
            return self.default
        try:
            lines = int(declared.replace("_", "").replace(",", ""))
        except ValueError:
            lines = 0
        if lines <= 0:
            raise IsarcasmError(f"${self.variable}={declared!r} is not a number of lines; use a whole number above "
                                f"0, e.g. {self.default:_}")
        return lines

    def check(self, path: Path, number: int, limit: int) -> None:
        """Refuse ``path`` at its line ``number`` once it passes ``limit`` (:meth:`limit`)."""
        if number > limit:
            raise IsarcasmError(f"{path}: more than {limit:,} lines, far more than {self.holds}; pass a smaller "
                                f"file (a sample of it), or raise ${self.variable} if it really is that large")


#: A corpus or user file (CSV, TSV, JSON Lines, gzipped or not): the largest corpus in the data directory
#: (SARC's balanced training file) has 154,702 lines, SARC's whole balanced set about a million.  A small
#: gzip of millions of one-character rows filled gigabytes in ``data stats`` before this bound
#: (docs/reliability.md).
ROWS = LineBound("ISARCASM_MAX_ROWS", 2_000_000, "any corpus holds (the largest in the data directory: 154,702)")
#: A vectors file (``--embeddings FILE``): GloVe 840B holds 2.2 million words, word2vec GoogleNews 3 million.
#: A small gzip of millions of duplicate lines kept gensim parsing for minutes before this bound (docs/reliability.md).
VECTORS = LineBound("ISARCASM_MAX_VECTORS", 5_000_000,
                    "any vectors file holds (word2vec GoogleNews: 3 million words)")


def ray_timeout() -> float:
    """Seconds to wait for a Ray cluster (see :data:`RAY_TIMEOUT_ENV`)."""
    declared = os.environ.get(RAY_TIMEOUT_ENV)
    if declared is None:
        return RAY_TIMEOUT_S
    try:
        seconds = float(declared)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds <= MAX_RAY_TIMEOUT_S:
        raise IsarcasmError(f"${RAY_TIMEOUT_ENV}={declared!r} is not a number of seconds greater than 0 and at "
                            f"most {MAX_RAY_TIMEOUT_S:,.0f} (a day); use e.g. 60")
    return seconds
