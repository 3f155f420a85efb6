"""What a results file must record so a number can be obtained again."""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import platform
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

from preprocessing.errors import IsarcasmError
from preprocessing.fileio import content_sha256

PACKAGES = ("isarcasm-baselines", "tensorflow", "keras", "jax", "torch", "spacy", "gensim", "numpy", "scikit-learn",
            "click")
ROOT = Path(__file__).resolve().parents[1]


#: The Keras backends a run may compute with, and the package each needs.  TensorFlow is the
#: backend of every committed number; the others are named variants (see :func:`backend_variant`).
BACKENDS = {"tensorflow": "tensorflow", "jax": "jax", "torch": "torch"}


def keras_backend() -> str:
    """The Keras backend numbers are computed with (``KERAS_BACKEND``; TensorFlow unless set)."""
    keras = sys.modules.get("keras")
    return keras.backend.backend() if keras else os.environ.get("KERAS_BACKEND", "tensorflow")


def use_backend(name: str, source: str = "--backend") -> None:
    """Compute with Keras backend ``name`` (``isarcasm --backend``, or ``$KERAS_BACKEND`` as
    ``source``), in this process and in the processes it starts.  Keras reads ``KERAS_BACKEND``
    once, when it is imported, so this must come first; the name and the backend's package are
    checked now, in one line naming ``source``, rather than in a traceback at the first import of Keras."""
    if name not in BACKENDS:
        raise IsarcasmError(f"{source}={name}: not a Keras backend (use one of: {', '.join(BACKENDS)})")
    if importlib.util.find_spec(BACKENDS[name]) is None:
        raise IsarcasmError(f"{source}={name}: the {name} backend needs the {BACKENDS[name]} package, which is not "
                            "installed: pip install -e '.[backends]', or choose another backend")
    if "keras" in sys.modules and keras_backend() != name:
        raise IsarcasmError(f"Keras was already imported with the {keras_backend()} backend; choose the backend "
                            "before Keras is imported")
    os.environ["KERAS_BACKEND"] = name


def other_backend() -> str | None:
    """The Keras backend when it is not TensorFlow (whose runs keep their names and hashes), else None."""
    backend = keras_backend()
    return None if backend == "tensorflow" else backend


def backend_variant() -> list[str]:
    """``['backend-NAME']`` when runs compute with a backend other than TensorFlow, else ``[]``:
    another backend gives other numbers, so its runs and results are a named variant."""
    backend = other_backend()
    return [f"backend-{backend}"] if backend else []


def package_versions() -> dict[str, str]:
    """Versions of the packages numbers depend on, and the Keras backend they were computed with."""
    versions = {"python": platform.python_version(), "keras_backend": keras_backend()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def machine(cpuinfo: Path = Path("/proc/cpuinfo")) -> dict:
    """The CPU a number was computed on.

    Same seed, same code and same packages still give different weights on another CPU:
    TensorFlow's kernels pick their blocking and instructions from the processor, so
    floating-point sums are taken in another order (a CNN's selected epoch can move).
    """
    info = {"platform": platform.machine(), "cpu": platform.processor() or "unknown", "cores": os.cpu_count()}
    try:
        text = cpuinfo.read_text()
    except OSError:
        return info
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    fields = {key.strip(): value.strip() for key, value in fields.items()}
    info["cpu"] = fields.get("model name", info["cpu"])
    info["vector_isa"] = sorted(flag for flag in fields.get("flags", "").split()
                                if flag.startswith(("avx", "amx", "fma")))
    return info


def record() -> dict:
    """What every results and run file records beside its numbers: commit, packages, machine, command."""
    return {"git_commit": git_commit(), "versions": package_versions(), "machine": machine(),
            "command": command_line()}


def run_origins(runs) -> list[dict]:
    """How many of the runs behind a results file were trained at each commit on each CPU.

    A reused run keeps the provenance of the session that trained it, which can differ from
    the commit and machine of the command that collected it into a table.
    """
    counts: dict[tuple[str, str], int] = {}
    for run in dict.fromkeys(str(run) for run in runs):
        try:
            config = json.loads((Path(run) / "config.json").read_text())
        except (OSError, ValueError):
            config = {}
        key = (config.get("git_commit", "unknown"), config.get("machine", {}).get("cpu", "not recorded"))
        counts[key] = counts.get(key, 0) + 1
    return [{"git_commit": commit, "cpu": cpu, "runs": n} for (commit, cpu), n in sorted(counts.items())]


@functools.cache
def git_commit() -> str:
    """The checkout's commit when this process loaded its code, with '+dirty' when tracked files differed.

    Read once, at import: a run that finishes hours later records the code it ran, not a
    commit made in the meantime.
    """
    def git(*args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10)
    try:
        head = git("rev-parse", "HEAD")
        if head.returncode:
            return "unknown"
        dirty = git("status", "--porcelain", "--untracked-files=no").stdout.strip()
        return head.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


git_commit()  # read now, while the code this process runs is the checkout's


def _cache_file() -> Path:
    root = Path(os.environ.get("ISARCASM_CACHE", Path.home() / ".cache" / "isarcasm"))
    return root / "checksums.json"


#: Files up to this size are hashed every time (a corpus file takes milliseconds); only larger ones
#: (word vectors, hundreds of MB) are looked up in the cache.  See :func:`checksums`.
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
        cache = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(cache, dict):
        return {}
    return {key: entry for key, entry in cache.items()
            if isinstance(entry, dict) and isinstance(entry.get("stamp"), list)
            and isinstance(entry.get("sha256"), str)}


def checksums(paths: list[Path]) -> dict[str, str]:
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


def config_hash(config: dict) -> str:
    """Hash of what determines a result (never of versions or commit, which are recorded beside it)."""
    canonical = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def command_line() -> str:
    return " ".join([Path(sys.argv[0]).name, *sys.argv[1:]])
