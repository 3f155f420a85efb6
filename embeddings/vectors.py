"""Pre-trained word vectors: locate, load, and cache.

The default is the GloVe 6B 100-d subset in the data directory (see the
``glove`` resource); ``--embeddings NAME`` takes any of :data:`NAMED_VECTORS`,
each a resource of the data catalog.  ``--embeddings PATH`` takes any GloVe or
word2vec *text* file, gzipped or not, with or without the word2vec ``COUNT DIM``
header line; ``--embeddings random`` means no pre-trained vectors.

Parsing a text file of vectors is slow next to reading an array (see
docs/results/speed.md), so the first load
saves the vectors as a ``.npy`` array (read memory-mapped, ``allow_pickle=False``)
and the words as a JSON list, which load in well under a second.  Not gensim's
own format: that is a pickle, and a cache folder may be shared, so loading it
could run code someone else put there.

The cache is keyed by the sha256 of the source file's bytes, computed in full
on every load (a small cost next to parsing).  A cheaper key from
size and modification time would break whenever the data is copied or
touched, and sampling parts of the file could miss an edit in the middle; a
full hash is always right and still keeps a cached load under a second or
two.  A stale cache is therefore never *used*: a changed source has a new
hash, so a new cache is built beside the old one.

Where the cache lives, first match wins for reading, first writable for
building: ``$ISARCASM_CACHE/vectors``; a ``.cache/vectors`` folder next to the
source file; ``~/.cache/isarcasm/vectors`` (``$XDG_CACHE_HOME`` respected) for
read-only data directories such as a shared mirror.

Workers that need the same missing cache at once (``--jobs N``) do not all parse the file: the first
takes an exclusive ``flock`` on ``.<stem>.lock`` in the first writable cache folder and builds the
cache; the others wait on that lock, then read the cache it built.  The kernel frees the lock when a
process ends, even when it is killed, so a crash never leaves the others waiting.
"""
from __future__ import annotations

import codecs
import gzip
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from preprocessing.corpora import get_package
from preprocessing.errors import DataError, IsarcasmError
from preprocessing.fileio import load_json, require_file, usual_mode
from preprocessing.limits import VECTORS, check_memory

from .word2vec import train_word2vec

try:
    import fcntl
except ImportError:  # Windows: no flock; workers may then build the same cache side by side
    fcntl = None

#: The named word vectors ``--embeddings NAME`` takes, each the resource of the data catalog of that name
#: (preprocessing/catalog.py: its file in the data directory, ``isarcasm data fetch NAME`` gets it), and what
#: it is.  Every name but the default is a named variant, as any other setting's value.
NAMED_VECTORS = {
    "glove": "GloVe 6B 100-d, a 341,479-word subset without single letters, numbers or apostrophe words",
    "glove-6b-full": "GloVe 6B 100-d, all 400,000 words (i, a, n't, 's and numbers included)",
    "glove-twitter-100": "GloVe Twitter 27B 100-d, 1,193,514 words learned from tweets",
}
DEFAULT = "glove"
RANDOM = "random"
WORD2VEC = "word2vec"  # trained per run on its training split: no file (see embeddings.word2vec)
CACHE_ENV = "ISARCASM_CACHE"
CACHE_FORMAT = "isarcasm-vectors-cache/2"  # /1 was gensim's pickle format: never loaded again
_VECTORS_FILE = "vectors.npy"
_WORDS_FILE = "words.json"
_META_FILE = "meta.json"


def vectors_help() -> str:
    """What ``--embeddings`` takes, for the help of every command with the option."""
    named = "; ".join(f"{name}: {description}" for name, description in NAMED_VECTORS.items())
    return (f"Word vectors: a name ({named}; fetched with `isarcasm data fetch NAME`), 'random', 'word2vec' "
            "(trained on the training split), or a GloVe/word2vec text file.")


def default_vectors_path(data_dir: Path) -> Path:
    """The default vectors file: the ``glove`` resource of the data catalog."""

    return named_vectors_path(DEFAULT, data_dir)


def named_vectors_path(name: str, data_dir: Path) -> Path:
    """Where the data directory holds the named vectors ``name`` (:data:`NAMED_VECTORS`)."""
    return Path(data_dir) / get_package(name).files[0].path


def _fetch_command(name: str) -> str:
    """The command that gets a named vectors file: ``--mirror DIR`` where a file has no public download."""
    mirror = "" if all(file.url or file.derivation for file in get_package(name).files) else " --mirror DIR"
    return f"isarcasm data fetch {name}{mirror}"


def vectors_path(spec: str | Path | None, data_dir: Path) -> Path | None:
    """The file to load for ``spec``, which must exist; ``None`` for ``random``
    and ``word2vec``, which read no file.

    ``spec`` is ``None`` (the default, ``glove``), a name of :data:`NAMED_VECTORS`,
    ``random``, ``word2vec``, or a path.  A named file that is missing is one line
    with the command that fetches it.
    """
    name = DEFAULT if spec is None else str(spec)
    if name in (RANDOM, WORD2VEC):
        return None
    if name in NAMED_VECTORS:
        path = named_vectors_path(name, data_dir)
        how = (f"run `{_fetch_command(name)}`, pass --embeddings PATH (a GloVe/word2vec text file), "
               "or --embeddings random")
    else:
        path = Path(spec).expanduser()
        how = (f"pass --embeddings PATH (a GloVe/word2vec text file), a name ({', '.join(NAMED_VECTORS)}) "
               "or --embeddings random")
    return require_file(path, f"{path}: word vectors file not found; {how}")


@dataclass(frozen=True)
class LoadReport:
    """Where loaded vectors came from, for ``embeddings info`` and the benchmark."""

    path: Path
    sha256: str
    cache: Path | None  # None: no writable cache folder
    built: bool  # parsed the text file (the cache was missing or damaged)
    seconds: float


def load_vectors(spec: str | Path | None, data_dir: Path, progress: bool = True):
    """gensim ``KeyedVectors`` for ``spec`` (see :func:`vectors_path`), or
    ``None`` for ``random``.  Builds the cache on first use (see module doc)."""
    return load_vectors_report(spec, data_dir, progress)[0]


def initial_vectors(spec: str | Path | None, data_dir: Path, train_tokens: Callable[[], list[list[str]]],
                    seed: int, progress: bool = True):
    """The vectors a run's embedding matrix starts from, or ``None`` (random).

    Like :func:`load_vectors`, and ``word2vec`` trains Word2Vec on
    ``train_tokens()``, the normalised tokens of the training split (a
    callable, so other specs never tokenise for nothing).
    """
    if spec is not None and str(spec) == WORD2VEC:

        return train_word2vec(train_tokens(), seed)
    return load_vectors(spec, data_dir, progress)


def load_vectors_report(spec: str | Path | None, data_dir: Path, progress: bool = True):
    """:func:`load_vectors` and a :class:`LoadReport` (``None`` for ``random``)."""
    if spec is not None and str(spec) == WORD2VEC:
        raise IsarcasmError("word2vec vectors are trained by each run on its training split; "
                            "there is no file to load (use glove, random, or a vectors file here)")
    path = vectors_path(spec, data_dir)
    if path is None:
        return None, None
    started = time.perf_counter()
    digest = file_sha256(path)
    found = _cached(path, digest, progress)
    if found is None:
        with _one_builder(path, progress):
            found = _cached(path, digest, progress)  # built by another process while this one waited
            if found is None:
                kv, cache = _build_cache(path, digest, progress)
                return _finite(kv, path), LoadReport(path, digest, cache, True, time.perf_counter() - started)
    kv, cache = found
    return _finite(kv, path), LoadReport(path, digest, cache, False, time.perf_counter() - started)


def _cached(source: Path, digest: str, progress: bool):
    """The cached vectors of this content and their cache folder; None where there is no readable cache."""
    entry = find_cache(source, digest)
    if entry is None:
        return None
    try:
        return _read_cache(entry), entry
    except Exception as exc:  # noqa: BLE001 - any damage to our own cache means: rebuild it
        _note(progress, f"the vectors cache {entry} is unreadable ({type(exc).__name__}); rebuilding it")
        return None


@contextmanager
def _one_builder(source: Path, progress: bool) -> Iterator[None]:
    """Hold the building of this content's cache: an exclusive ``flock`` in the first writable cache
    folder, so one process parses the file while the others wait for its cache (see the module doc).
    Without a writable folder or ``flock`` every process parses the file itself."""
    root = next((root for root in cache_roots(source) if _may_write(root)), None)
    handle = None
    if root is not None and fcntl is not None:
        try:
            root.mkdir(parents=True, exist_ok=True)
            handle = open(root / f".{_stem(source)}.lock", "a")  # one per source name: none piles up
        except OSError:
            handle = None
    if handle is None:
        yield
        return
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            _note(progress, f"another process is reading {source.name}; waiting for its cache")
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _finite(kv, source: Path):
    """``kv`` when every vector is finite; else a one-line error naming the file and the first bad
    row.  A NaN or infinite vector (gensim parses "nan" and "inf") makes every run that uses the
    word diverge to NaN, which would otherwise show only as a failed run, far from its cause."""
    vectors = kv.vectors
    for start in range(0, len(vectors), 1 << 16):  # in blocks: the file may be memory-mapped and large
        bad = np.flatnonzero(~np.isfinite(vectors[start:start + (1 << 16)]).all(axis=1))
        if len(bad):
            row = start + int(bad[0])
            line = row + 1 + _has_word2vec_header(source)
            raise DataError.at(source, line, f"the vector of {kv.index_to_key[row]!r} is not finite (NaN or "
                                             "infinite); fix or remove that line, or pass another --embeddings file")
    return kv


def file_sha256(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def cache_roots(source: Path) -> list[Path]:
    """Candidate cache folders, in order of preference (see module doc)."""
    roots = []
    if os.environ.get(CACHE_ENV):
        roots.append(Path(os.environ[CACHE_ENV]).expanduser() / "vectors")
    roots.append(source.resolve().parent / ".cache" / "vectors")
    user_cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    roots.append(user_cache / "isarcasm" / "vectors")
    return roots


def _entry_name(source: Path, digest: str) -> str:
    """``<stem>-<digest>-v2``: caches of the pickle format (/1, no suffix) are left alone, for an older
    checkout sharing the folder, and never read."""
    return f"{_stem(source)}-{digest[:16]}-v2"


def _stem(source: Path) -> str:
    name = source.name
    for suffix in (".gz", ".txt", ".vec"):
        name = name.removesuffix(suffix)
    return name


def find_cache(source: Path, digest: str) -> Path | None:
    """The cache folder of this exact source content, if one was built."""
    for root in cache_roots(source):
        entry = root / _entry_name(source, digest)
        meta = _read_meta(entry / _META_FILE)
        if meta.get("format") == CACHE_FORMAT and meta.get("sha256") == digest:
            return entry
    return None


def _read_meta(path: Path) -> dict:
    """A cache entry's meta.json; ``{}`` (no cache: it is rebuilt) when it is missing, damaged,
    or not the JSON object this module writes (a list, a string)."""
    try:
        meta = load_json(path)
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def _build_cache(source: Path, digest: str, progress: bool):
    kv = parse_vectors(source, progress)
    for root in cache_roots(source):
        entry = root / _entry_name(source, digest)
        if _write_cache(kv, entry, source, digest):
            return kv, entry
    _note(progress, f"no writable cache folder for {source.name}; it will be parsed again next time "
                    f"(set ${CACHE_ENV} to a writable folder)")
    return kv, None


def _note(progress: bool, message: str) -> None:
    if progress:
        print(message, file=sys.stderr)


def _write_cache(kv, final: Path, source: Path, digest: str) -> bool:
    """Write atomically (temp folder, then rename) so a concurrent or killed run
    never leaves a half-written cache that looks complete."""
    root = final.parent
    if not _may_write(root):
        return False
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=root))
        tmp.chmod(usual_mode(directory=True))  # not mkdtemp's owner-only mode: a shared data dir's cache
    except OSError:
        return False
    try:
        np.save(tmp / _VECTORS_FILE, np.asarray(kv.vectors), allow_pickle=False)
        (tmp / _WORDS_FILE).write_text(json.dumps(list(kv.index_to_key), ensure_ascii=False), encoding="utf-8")
        meta = {"format": CACHE_FORMAT, "source": str(source.resolve()), "sha256": digest,
                "words": len(kv.index_to_key), "dim": kv.vector_size}
        (tmp / _META_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")
        if final.exists():  # another process won the race, or a damaged entry: replace it
            shutil.rmtree(final, ignore_errors=True)
        tmp.rename(final)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        return False
    _remove_stale(root, final, meta["source"])
    return True


def _read_cache(entry: Path):
    """The cached vectors as gensim ``KeyedVectors``, from data only (no pickle)."""
    from gensim.models import KeyedVectors  # gensim: only when vectors are parsed or trained

    vectors = np.load(entry / _VECTORS_FILE, mmap_mode="r", allow_pickle=False)
    words = load_json(entry / _WORDS_FILE)
    if vectors.ndim != 2 or not isinstance(words, list) or len(words) != vectors.shape[0]:
        raise ValueError(f"{len(words)} words for {vectors.shape} vectors")
    kv = KeyedVectors(vector_size=vectors.shape[1], count=0, dtype=vectors.dtype)
    kv.index_to_key = words
    kv.key_to_index = {word: index for index, word in enumerate(words)}
    kv.vectors = vectors
    return kv


def _may_write(folder: Path) -> bool:
    """Whether ``folder`` may be created or written: its nearest existing
    ancestor is writable *by its permission bits*.  ``os.access`` alone says yes
    to root everywhere, but a folder marked read-only (a shared data mirror)
    must stay untouched."""
    existing = folder
    while not existing.exists():
        existing = existing.parent
    return bool(existing.stat().st_mode & 0o222) and os.access(existing, os.W_OK)


def _remove_stale(root: Path, keep: Path, source: str) -> None:
    """Delete caches of earlier contents of the same source file."""
    for entry in root.glob(f"{_stem(Path(source))}-*/{_META_FILE}"):
        if entry.parent == keep:
            continue
        meta = _read_meta(entry)
        if meta.get("source") == source and meta.get("format") == CACHE_FORMAT:
            shutil.rmtree(entry.parent, ignore_errors=True)


def parse_vectors(source: Path, progress: bool = True):
    """Parse a GloVe/word2vec text file with gensim (the slow, uncached path).  A byte-order mark is
    stripped, as the corpus readers strip it: gensim decodes line by line, so ``utf-8-sig`` drops it from
    the first line, which would otherwise keep the first word's vector under a key no token matches."""
    from gensim.models import KeyedVectors  # gensim: only when vectors are parsed or trained

    header = _has_word2vec_header(source)
    if header:
        _check_header(source)
    _note(progress, f"reading word vectors from {source} (once, then cached) ...")
    started = time.perf_counter()
    _check_rows(source, header)
    try:
        kv = KeyedVectors.load_word2vec_format(str(source), binary=False, no_header=not header, encoding="utf-8-sig")
    except (ValueError, EOFError, OSError, UnicodeDecodeError, IndexError) as exc:
        raise DataError.at(
            source, None,
            f"not a readable GloVe/word2vec text file ({type(exc).__name__}: {exc}); expected one word and "
            "its numbers per line, space separated; re-fetch it or pass another --embeddings file",
        ) from None
    if not kv.vector_size:
        raise DataError.at(source, 1, "no numbers after the first word: not a GloVe/word2vec text file")
    _note(progress, f"  {len(kv.index_to_key):,} words x {kv.vector_size} in {time.perf_counter() - started:.1f} s")
    return kv


def _check_rows(source: Path, header: bool) -> None:
    """Refuse a line whose count of numbers is not the vectors' dimension (the header's, else the first
    line's), naming it: gensim copies a line's one number across the whole vector, so a cut line
    would become a word vector of one repeated number.  Fields are counted as gensim splits them
    (single spaces, trailing whitespace ignored); one pass over the bytes, before the parse.  The lines are
    bounded too (:data:`~preprocessing.limits.VECTORS`): a small gzip of millions of duplicate lines
    would keep the parse going for minutes, and their matrix must fit the memory budget."""
    opener = gzip.open if source.suffix == ".gz" else open
    dim = int(_first_line(source)[1]) if header else None
    limit, number = VECTORS.limit(), 0
    try:
        with opener(source, "rb") as handle:
            for number, line in enumerate(handle, start=1):
                VECTORS.check(source, number, limit)
                if header and number == 1:
                    continue
                found = line.rstrip().count(b" ")
                dim = found if dim is None else dim
                if found != dim:
                    raise DataError.at(source, number, f"{found:,} number(s) after the word where the vectors have "
                                                       f"{dim:,}: a cut or ragged line; fix or remove it, or pass "
                                                       "another --embeddings file")
    except (OSError, EOFError) as exc:
        raise DataError.at(source, None, f"cannot read the vectors file ({type(exc).__name__}: {exc}); "
                                         "re-fetch it") from None
    words = number - header
    check_memory(f"{source}: its {words:,} vectors of {dim or 0:,} numbers", 4 * words * (dim or 0),
                 "pass a smaller --embeddings file")


def _check_header(source: Path) -> None:
    """Refuse a word2vec header whose ``COUNT DIM`` the file cannot hold, or whose matrix would not fit in
    memory, before gensim allocates it (which it would do in full before failing).
    Each line holds a word and DIM numbers, each at least one character and a separator: a plain file of
    S bytes has at most S / (2 DIM + 2) of them (a gzipped file's size says nothing: only the memory counts)."""
    count, dim = map(int, _first_line(source))
    if source.suffix != ".gz" and count * (2 * dim + 2) > source.stat().st_size + 1:
        raise DataError.at(source, 1, f"the header claims {count:,} words of {dim:,} numbers, more than a file of "
                                      f"{source.stat().st_size:,} bytes holds; fix the first line (COUNT DIM) or "
                                      "pass another --embeddings file")
    check_memory(f"{source}: its header's {count:,} x {dim:,} vectors", 4 * count * dim,
                 "fix the first line (COUNT DIM) or pass a smaller --embeddings file")


def _has_word2vec_header(source: Path) -> bool:
    """True when the first line is word2vec's ``COUNT DIM`` header."""
    first = _first_line(source)
    return len(first) == 2 and all(part.isdigit() for part in first)


#: The longest first line read: a word and its numbers take a few kilobytes (300 dimensions: about 3 KB).
_FIRST_LINE_BYTES = 1 << 20


def _first_line(source: Path) -> list[bytes]:
    """The first line's fields, after a byte-order mark (a bounded read: a file may be one endless line)."""
    opener = gzip.open if source.suffix == ".gz" else open
    try:
        with opener(source, "rb") as handle:
            line = handle.readline(_FIRST_LINE_BYTES + 1)
    except (OSError, EOFError) as exc:
        raise DataError.at(source, None, f"cannot read the vectors file ({exc}); re-fetch it") from None
    if len(line) > _FIRST_LINE_BYTES:  # e.g. a gzip of NULs: one endless line, which gensim would read whole
        raise DataError.at(source, 1, f"a first line of more than {_FIRST_LINE_BYTES:,} bytes: not a GloVe/word2vec "
                                      "text file (one word and its numbers per line)")
    first = line.removeprefix(codecs.BOM_UTF8).split()
    if not first:
        raise DataError.at(source, 1, "empty first line: not a GloVe/word2vec text file")
    return first
