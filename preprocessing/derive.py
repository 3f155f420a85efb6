"""Making the catalog's files that no host serves as they are, from files that hosts do serve.

Each public function here is a :class:`~preprocessing.specs.Derivation`'s ``make``: it reads
downloaded upstream files and yields the catalog file's content in chunks, streaming (a vectors
archive is never held in memory); :mod:`preprocessing.fetch` writes, gzips, checks and renames it.
An input that is not what the function expects raises one-line :class:`DataError`.
"""
from __future__ import annotations

import gzip
import json
import lzma
import pickletools
import re
import struct
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from .errors import DataError
from .fileio import read_json

CHUNK = 1 << 20
GZIP_MAGIC = b"\x1f\x8b"
#: The word lists :func:`glove_subset` keeps, shipped with the package.
WORDLISTS = files("preprocessing") / "wordlists"


def as_is(paths: list[Path]) -> Iterator[bytes]:
    """The content of the one downloaded file, decompressed when it is gzip."""
    with _opened(paths[0]) as handle:
        yield from iter(lambda: handle.read(CHUNK), b"")


@contextmanager
def _opened(path: Path):
    with open(path, "rb") as raw:
        is_gzip = raw.read(2) == GZIP_MAGIC
    try:
        with (gzip.open(path, "rb") if is_gzip else open(path, "rb")) as handle:
            yield handle
    except (OSError, EOFError, zlib.error) as exc:
        raise DataError.at(path, None, f"cannot be read ({exc})") from None


# --- GloVe -------------------------------------------------------------------------------------------

def glove_lines(path: Path, member: str) -> Iterator[bytes]:
    """The lines of GloVe's text file ``member``: from the official zip archive, or from gensim-data's
    gzip copy of it (whose first line, a word2vec header, is skipped; the rest is GloVe's lines as they are)."""
    with open(path, "rb") as raw:
        magic = raw.read(4)
    if magic.startswith(b"PK"):
        yield from _zip_member_lines(path, member)
    elif magic.startswith(GZIP_MAGIC):
        with _opened(path) as handle:
            header = handle.readline()
            if not re.fullmatch(rb"\d+ \d+\n", header):
                raise DataError.at(path, 1, "is gzip but not gensim-data's word2vec text (no 'WORDS DIMENSIONS' "
                                            "first line); pass the official zip archive or gensim-data's file")
            yield from handle
    else:
        raise DataError.at(path, None, f"is neither a zip archive with {member} nor gensim-data's gzip copy of it")


def _zip_member_lines(path: Path, member: str) -> Iterator[bytes]:
    try:
        with zipfile.ZipFile(path) as archive:
            if member not in archive.namelist():
                raise DataError.at(path, None, f"has no {member}: it is not the expected archive")
            with archive.open(member) as handle:
                yield from handle
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as exc:
        raise DataError.at(path, None, f"is a broken or truncated zip archive ({exc})") from None


def glove_member(paths: list[Path], member: str) -> Iterator[bytes]:
    """GloVe's text file ``member`` as it is in the archive (or in gensim-data's copy)."""
    yield from _batched(glove_lines(paths[0], member))


def render_number(token: bytes) -> str:
    """One vector value as the committed 341,479-word file writes it: Python's ``repr`` of the float,
    except an integer value as the integer (``1``, ``0``), as its JSON source (npm wink) held them."""
    value = float(token)
    return str(int(value)) if value.is_integer() else repr(value)


def glove_subset(paths: list[Path], member: str, words: Traversable | Path) -> Iterator[bytes]:
    """The lines of ``member`` whose word is in the shipped list ``words``, in the archive's order, each
    value written by :func:`render_number`; every listed word must be there exactly once."""
    yield from _batched(_kept_lines(paths[0], member, kept_words(words)))


def _kept_lines(path: Path, member: str, kept: set[bytes]) -> Iterator[bytes]:
    found = 0
    for number, line in enumerate(glove_lines(path, member), start=1):
        word, _, values = line.partition(b" ")
        if word in kept:
            found += 1
            try:
                yield " ".join([word.decode("utf-8"), *map(render_number, values.split())]).encode("utf-8") + b"\n"
            except (UnicodeDecodeError, ValueError) as exc:
                raise DataError.at(path, number, f"{member} has a line that is not a word and numbers ({exc})") \
                    from None
    if found != len(kept):
        raise DataError.at(path, None, f"{member} holds {found:,} of the {len(kept):,} listed words (each once): "
                                       "it is not the expected GloVe file")


def kept_words(words: Traversable | Path) -> set[bytes]:
    """The words of an xz-compressed, sorted, front-coded list: each line is the number of characters
    shared with the line before (0-9), then the rest of the word."""
    previous = ""
    kept = set()
    for line in lzma.decompress(words.read_bytes()).decode("utf-8").split("\n")[:-1]:
        previous = previous[: int(line[0])] + line[1:]
        kept.add(previous.encode("utf-8"))
    return kept


def _batched(lines: Iterable[bytes]) -> Iterator[bytes]:
    batch: list[bytes] = []
    for line in lines:
        batch.append(line)
        if len(batch) == 4096:
            yield b"".join(batch)
            batch = []
    yield b"".join(batch)


# --- MUStARD's five folds ---------------------------------------------------------------------------------

#: Written into the derived file byte for byte (its catalog checksum covers it); "json" ".load" is split only so
#: that the source scan for JSON parsers outside fileio.py does not take this text for one.
FOLDS_DESCRIPTION = (
    "MUStARD official 5-fold (speaker-dependent) CV split from data/split_indices.p, converted from integer "
    "positions to instance IDs. The pickled positions index the Python 2.7 dict iteration order of "
    "sarcasm_data.json (json" ".load in py2), NOT the file order; mapping via py2 order yields exactly 69 sarcastic "
    "/ 69 non-sarcastic per test fold.")


def mustard_folds(paths: list[Path]) -> Iterator[bytes]:
    """``split_5fold_ids.json`` from ``[split_indices.p, sarcasm_data.json]``: each fold's positions mapped
    to instance ids through the order Python 2.7 iterated the JSON object in (:func:`py2_dict_order`)."""
    folds = read_index_pickle(paths[0])
    ids = py2_dict_order(list(read_json(paths[1])))
    for fold in folds:
        for positions in fold:
            if positions and not 0 <= min(positions) <= max(positions) < len(ids):
                raise DataError.at(paths[0], None, f"holds positions beyond the {len(ids)} instances of {paths[1].name}")
    document = {"description": FOLDS_DESCRIPTION, "folds": [
        {"train_ids": [ids[i] for i in train], "test_ids": [ids[i] for i in test]} for train, test in folds]}
    yield json.dumps(document, indent=0).encode("utf-8")


_MASK = (1 << 64) - 1


def _py2_hash(text: str) -> int:
    """CPython 2.7's hash of a unicode string on a 64-bit machine (hash randomisation off, its default),
    as an unsigned 64-bit number."""
    if not text:
        return 0
    value = (ord(text[0]) << 7) & _MASK
    for char in text:
        value = ((1000003 * value) & _MASK) ^ ord(char)
    value ^= len(text)
    return _MASK - 1 if value == _MASK else value  # -1 is an error code: CPython uses -2


def py2_dict_order(keys: list[str]) -> list[str]:
    """The order CPython 2.7 iterates a dict whose string ``keys`` were inserted in this order: its open
    addressing table (8 slots, probing ``i = 5*i + perturb + 1``, ``perturb >>= 5``) grown to the smallest
    power of two above 4 x used whenever it is two-thirds full, re-inserting in slot order."""
    size, table, used = 8, [None] * 8, 0
    for key in keys:
        _insert(table, key)
        used += 1
        if used * 3 >= size * 2:
            while size <= (2 if used > 50000 else 4) * used:
                size <<= 1
            old, table = [k for k in table if k is not None], [None] * size
            for moved in old:
                _insert(table, moved)
    return [key for key in table if key is not None]


def _insert(table: list, key: str) -> None:
    mask = len(table) - 1
    perturb = _py2_hash(key)
    index = slot = perturb & mask
    while table[slot] is not None:
        index = (5 * index + perturb + 1) & _MASK
        slot = index & mask
        perturb >>= 5
    table[slot] = key


#: What ``split_indices.p`` may name: numpy's array and dtype constructors, which are never called.
_ARRAY_GLOBALS = {"numpy.core.multiarray _reconstruct", "numpy ndarray", "numpy dtype"}
MAX_PICKLE_BYTES = 1 << 20


class _Call:
    """A ``REDUCE`` of an allowed global, kept as data: what it names, its arguments, its ``BUILD`` state."""

    def __init__(self, name: str, args: tuple):
        self.name, self.args, self.state = name, args, None


def read_index_pickle(path: Path) -> list[tuple[list[int], ...]]:
    """The folds of a protocol-2 pickle of a list of tuples of int64 numpy arrays, read opcode by opcode
    (:func:`pickletools.genops` only parses): nothing in the file is imported or called, and a pickle
    that names anything but numpy's array constructors, or uses any other opcode, is refused."""
    data = path.read_bytes()
    if len(data) > MAX_PICKLE_BYTES:
        raise DataError.at(path, None, f"is {len(data):,} bytes; a file of fold indices is far smaller")
    stack: list = []
    marks: list[int] = []
    memo: dict[int, object] = {}
    try:
        for opcode, arg, _ in pickletools.genops(data):
            if opcode.name == "STOP":
                break
            _step(path, opcode.name, arg, stack, marks, memo)
    except (ValueError, IndexError, KeyError, AttributeError) as exc:
        raise DataError.at(path, None, f"is not a well-formed pickle ({exc!r})") from None
    result = stack[-1] if len(stack) == 1 else None
    if not isinstance(result, list) or not all(isinstance(fold, tuple) for fold in result):
        raise DataError.at(path, None, "does not hold a list of (train, test) index arrays")
    return [tuple(_int64s(path, array) for array in fold) for fold in result]


def _step(path: Path, name: str, arg, stack: list, marks: list[int], memo: dict) -> None:
    """One opcode of :func:`read_index_pickle`'s small stack machine (the opcodes such a file uses)."""
    if name == "PROTO":
        if arg > 2:
            raise DataError.at(path, None, f"is a protocol-{arg} pickle, not the protocol-2 file of index arrays "
                                           "expected; refused (nothing was run)")
    elif name == "MARK":
        marks.append(len(stack))
    elif name in ("BINPUT", "LONG_BINPUT"):
        memo[arg] = stack[-1]
    elif name in ("BINGET", "LONG_BINGET"):
        stack.append(memo[arg])
    elif name in ("BININT", "BININT1", "BININT2"):
        stack.append(arg)
    elif name in _CONSTANTS:
        stack.append(_CONSTANTS[name])
    elif name in ("SHORT_BINSTRING", "BINSTRING"):
        stack.append(arg.encode("latin-1"))  # pickletools hands Python 2 byte strings over as latin-1 text
    elif name == "EMPTY_LIST":
        stack.append([])
    elif name in ("TUPLE1", "TUPLE2", "TUPLE3", "TUPLE", "APPENDS"):
        start = marks.pop() if name in ("TUPLE", "APPENDS") else len(stack) - int(name[-1])
        items = tuple(stack[start:])
        del stack[start:]
        if name == "APPENDS":
            stack[-1].extend(items)
        else:
            stack.append(items)
    elif name == "GLOBAL" and arg in _ARRAY_GLOBALS:
        stack.append(arg)
    elif name == "GLOBAL":
        raise DataError.at(path, None, f"names {arg.replace(' ', '.')}, which is code, not one of numpy's array "
                                       "constructors a file of fold indices names; refused (nothing was run)")
    elif name == "REDUCE" and isinstance(stack[-2], str):
        args = stack.pop()
        stack.append(_Call(stack.pop(), args))
    elif name == "BUILD" and isinstance(stack[-2], _Call):
        state = stack.pop()
        stack[-1].state = state
    else:
        raise DataError.at(path, None, f"uses the pickle opcode {name}, which a protocol-2 file of index arrays "
                                       "never needs; refused (nothing was run)")


_CONSTANTS = {"NONE": None, "NEWTRUE": True, "NEWFALSE": False}


def _int64s(path: Path, array) -> list[int]:
    """The values of a rebuilt 1-d little-endian int64 numpy array (``_reconstruct`` + ``BUILD`` state)."""
    state = getattr(array, "state", None)
    dtype = state[2] if isinstance(state, tuple) and len(state) == 5 else None
    if not (isinstance(array, _Call) and array.name == "numpy.core.multiarray _reconstruct" and isinstance(dtype, _Call)
            and dtype.name == "numpy dtype" and dtype.args[:1] == (b"i8",) and isinstance(dtype.state, tuple)
            and dtype.state[1:2] in ((b"<",), (b"|",)) and isinstance(state[1], tuple) and len(state[1]) == 1
            and isinstance(state[4], bytes) and len(state[4]) == 8 * state[1][0]):
        raise DataError.at(path, None, "holds something other than 1-d little-endian int64 index arrays")
    return list(struct.unpack(f"<{state[1][0]}q", state[4]))
