"""Content checksums of data files (a run's ``data_sha256``, part of its configuration hash), with an
on-disk cache for large files that can never return a stale checksum.

They live beside the readers because they are facts about the data files; the run layer records them.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from preprocessing.fileio import content_sha256, load_json


def _cache_file() -> Path:
    root = Path(os.environ.get("ISARCASM_CACHE", Path.home() / ".cache" / "isarcasm"))
    return root / "checksums.json"


#: Files up to this size are hashed every time (a corpus file takes milliseconds); only larger ones
#: (word vectors, hundreds of MB) are looked up in the cache.  See :func:`file_checksums`.
ALWAYS_HASHED = 16 << 20
#: A checksum is cached only for a file whose ctime is at least this old when it has been hashed.
RACY_NS = 2_000_000_000


def _stamp(stat: os.stat_result) -> list[int]:
    """What the cache keys a file's checksum on: size, mtime, device, inode and ctime."""
    return [stat.st_size, stat.st_mtime_ns, stat.st_dev, stat.st_ino, stat.st_ctime_ns]


def _read_cache(path: Path) -> dict:
    """The checksum cache: ``{resolved path: {"stamp": [...], "sha256": "..."}}``; anything else
    (no file, not JSON, a list, a string, an entry of an older layout) is left out, never trusted."""
    try:
        cache = load_json(path)
    except (OSError, ValueError):
        return {}
    if not isinstance(cache, dict):
        return {}
    return {key: entry for key, entry in cache.items()
            if isinstance(entry, dict) and isinstance(entry.get("stamp"), list)
            and isinstance(entry.get("sha256"), str)}


def file_checksums(paths: list[Path]) -> dict[str, str]:
    """Content sha256 of each file (the run's ``data_sha256``, part of its configuration hash).

    A stale checksum would let a run of edited data pass for the run of the old data ("already
    finished, reused"), so the cache must never return one:

    * files up to :data:`ALWAYS_HASHED` bytes (every corpus file) are hashed every time;
    * a larger file's checksum is cached on disk (``$ISARCASM_CACHE/checksums.json``) under its
      path with its size, mtime, device, inode and **ctime**.  Size and mtime alone are not enough:
      a file edited in place with the same size can get its old mtime back (``touch -d``,
      ``os.utime``, ``cp -p``, an archive extracted), but not its ctime: the kernel sets ctime to
      the current time on every write and on every change of mtime, and no user call can set it.
      A file replaced by another (``mv``, an editor's save) has another inode.
    * ctime's clock ticks every few milliseconds, so a file written twice within one tick keeps
      its ctime: a checksum is cached only when the file's stamp is the same after hashing as
      before, and its ctime is :data:`RACY_NS` old by then (as git does with "racy" index entries).
    """
    cache_path = _cache_file()
    cache = _read_cache(cache_path)
    result, changed = {}, False
    for path in paths:
        before = path.stat()
        if before.st_size <= ALWAYS_HASHED:
            result[path.name] = content_sha256(path)
            continue
        key = str(path.resolve())
        entry = cache.get(key)
        if entry is not None and entry["stamp"] == _stamp(before):
            result[path.name] = entry["sha256"]
            continue
        result[path.name] = content_sha256(path)
        if _stamp(path.stat()) == _stamp(before) and time.time_ns() - before.st_ctime_ns >= RACY_NS:
            cache[key] = {"stamp": _stamp(before), "sha256": result[path.name]}
            changed = True
    if changed:
        try:
            cache_path.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache_path.with_suffix(f".tmp{os.getpid()}")
            tmp.write_text(json.dumps(cache, indent=0), encoding="utf-8")
            os.replace(tmp, cache_path)
        except OSError:
            pass  # a read-only home only costs re-hashing next time
    return result
