"""Settings declared once: each field of a settings dataclass names its type, choices and range.

:class:`~experiments.runs.one.protocol.TrainConfig` and :class:`~preprocessing.config.PreprocessConfig`
declare every setting as a dataclass field whose metadata holds its ``choices`` and its
:class:`Range`.  The same declaration then checks a value wherever it comes from: a command-line
option (the CLI turns the range into a click range type), an experiment file's ``[train]``
table, a run's ``config.json`` or ``preprocess.json`` (:func:`from_mapping`), or code building
the dataclass (:func:`problems`, called by ``__post_init__``).  A value that cannot be honoured
(of another type, outside its range, not finite, not a choice) is refused in one line naming the
key; nothing is silently rounded, clipped or dropped.
"""
from __future__ import annotations

import difflib
import functools
import math
import types
import typing
from dataclasses import dataclass, fields
from pathlib import Path

from .errors import DataError

#: The words a message uses for a type.
_KIND_WORDS = {bool: "true or false", int: "a whole number", float: "a number", str: "a string"}


@dataclass(frozen=True)
class Range:
    """The values a number setting may take; an open end excludes the bound itself."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def __contains__(self, value: float) -> bool:
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            return False
        return self.high is None or (value < self.high if self.high_open else value <= self.high)

    def describe(self) -> str:
        """``at least 1``, ``greater than 0 and less than 1``, ``at least 1 and at most 1,048,576``."""
        parts = []
        if self.low is not None:
            parts.append(f"{'greater than' if self.low_open else 'at least'} {_number(self.low)}")
        if self.high is not None:
            parts.append(f"{'less than' if self.high_open else 'at most'} {_number(self.high)}")
        return " and ".join(parts)


def _number(value: float) -> str:
    return f"{value:,}" if float(value).is_integer() else f"{value:g}"


def kinds(cls, name: str) -> frozenset[type]:
    """The types field ``name`` of dataclass ``cls`` accepts (``int | None`` -> ``{int}``); None is
    accepted where the annotation says so (see :func:`optional`)."""
    hint = _hints(cls)[name]
    return frozenset(kind for kind in (typing.get_args(hint) if _is_union(hint) else (hint,))
                     if kind is not type(None))


def optional(cls, name: str) -> bool:
    hint = _hints(cls)[name]
    return _is_union(hint) and type(None) in typing.get_args(hint)


@functools.cache
def _hints(cls) -> dict:
    """The resolved annotations of ``cls`` (read once: every check asks for them)."""
    return typing.get_type_hints(cls)


def _is_union(hint) -> bool:
    return isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union


def problem(cls, field, value) -> str | None:
    """What is wrong with ``value`` for ``field`` of ``cls`` (``must be ..., not ...``), or None."""
    if value is None:
        return None if optional(cls, field.name) else f"must be {_wanted(cls, field)}, not none"
    accepted = kinds(cls, field.name)
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(value, bool):  # a bool is an int to Python, never a number to a user
        fits = bool in accepted
    elif number:
        fits = float in accepted or (int in accepted and isinstance(value, int))
    else:
        fits = any(isinstance(value, kind) for kind in accepted if isinstance(kind, type))
    if not fits:
        return f"must be {_wanted(cls, field)}, not {value!r}"
    choices = field.metadata.get("choices") or ()
    if choices and value not in choices:
        return f"must be one of {', '.join(choices)}, not {value!r}"
    limits = field.metadata.get("range")
    if number and (not _finite(value) or (limits is not None and value not in limits)):
        return f"must be {_wanted(cls, field)}, not {value!r}"
    return None


def _finite(value: int | float) -> bool:
    """Whether ``value`` is finite as the float a float setting makes of it (an int beyond 1.8e308 is not)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _wanted(cls, field) -> str:
    words = " or ".join(sorted(_KIND_WORDS.get(kind, getattr(kind, "__name__", str(kind)))
                               for kind in kinds(cls, field.name)))
    limits = field.metadata.get("range")
    return f"{words} {limits.describe()}" if limits is not None else words


def problems(instance, label=lambda field: field.name) -> str | None:
    """The first problem of a built settings object as ``LABEL must be ...``; ``label`` names a
    field as its source does (a command-line flag)."""
    for field in fields(instance):
        wrong = problem(type(instance), field, getattr(instance, field.name))
        if wrong:
            return f"{label(field)} {wrong}"
    return None


def from_mapping(cls, data, source: str | Path, ignore_unknown: bool = False):
    """``cls`` built from a mapping read from a file (TOML, JSON), checked key by key against the
    fields' declarations: an unknown key (unless ``ignore_unknown``), a value of another type, out
    of its range, not finite or not a choice is a one-line :class:`DataError` naming ``source`` and
    the key.  A whole number where a float is wanted becomes that float (``1`` and ``1.0`` are one
    setting, and one configuration hash)."""
    if not isinstance(data, dict):
        raise DataError.at(source, None, f"expected a table of settings, not {type(data).__name__}")
    declared = {field.name: field for field in fields(cls)}
    unknown = sorted(str(key) for key in data if key not in declared)
    if unknown and not ignore_unknown:
        raise DataError.at(source, None, f"unknown setting(s) {', '.join(unknown)} ({nearest(unknown[0], declared)})")
    values = {}
    for name, value in data.items():
        if name not in declared:
            continue
        wrong = problem(cls, declared[name], value)
        if wrong:
            raise DataError.at(source, None, f"{name} {wrong}")
        float_only = kinds(cls, name) == {float}
        values[name] = float(value) if float_only and isinstance(value, int) else value
    return cls(**values)


def nearest(name: str, known) -> str:
    """``did you mean 'epochs'?`` for the known name closest to a misspelled ``name`` (case ignored:
    ``Train`` is ``train`` misspelled, never a second table), else ``known: ...`` listing them all."""
    by_lower = {str(key).lower(): str(key) for key in known}
    close = difflib.get_close_matches(str(name).lower(), list(by_lower), n=1, cutoff=0.6)
    return f"did you mean '{by_lower[close[0]]}'?" if close else f"known: {', '.join(sorted(by_lower.values()))}"


def checked(cls, name: str, value, source: str | Path, key: str | None = None):
    """``value`` when field ``name`` of ``cls`` may hold it (None never: a file's value is given);
    else a one-line :class:`DataError` naming ``source`` and ``key`` (the file's own key, ``name``
    unless said).  For a file's value that follows a setting's declaration without being that setting
    (a run's fitted ``max_len``)."""
    field = next(f for f in fields(cls) if f.name == name)
    wrong = problem(cls, field, value) if value is not None else f"must be {_wanted(cls, field)}, not none"
    if wrong:
        raise DataError.at(source, None, f"{key or name} {wrong}")
    return value
