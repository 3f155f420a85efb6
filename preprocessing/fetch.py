"""Getting data packages into the data directory, and checking them.

Two routes, both ending in a sha256 check against the catalog:

* from a local mirror laid out like ``../shared/data`` (one folder per corpus):
  each top-level folder of the package is hard-linked (copied where linking is
  not possible), so a fetch costs no extra disk and is instant;
* from the pinned upstream URLs in the catalog, with :mod:`urllib`.  Machines
  without network get one line saying to use ``--mirror`` instead.

Files are written to a temporary name and renamed, so an interrupted fetch
never leaves a half-written file that looks fetched.
"""
from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from urllib.error import URLError
from urllib.request import urlopen

from .specs import DataFile, DataPackage
from .errors import DataError, IsarcasmError
from .fileio import content_sha256

DOWNLOAD_TIMEOUT_S = 60
MIRROR_HINT = "fetch from a local copy with --mirror DIR"


@dataclass(frozen=True)
class FileStatus:
    """Outcome for one file: ``ok``, ``mismatch`` or ``missing`` (verify); how it got there (fetch)."""

    path: str
    status: str
    detail: str = ""


Progress = Callable[[FileStatus], None]


def _quiet(_: FileStatus) -> None:
    pass


# --- checksums -------------------------------------------------------------------------------------

@cache
def _cached_sha256(path: str, size: int, mtime_ns: int, inode: int, ctime_ns: int) -> str:
    return content_sha256(Path(path))


def file_sha256(path: Path) -> str:
    """Content sha256, memoised per process on (path, size, mtime, inode, ctime).

    Packages share files (sarc-pol and its imbalanced variant, MUStARD's folds
    and Sarc7), and ``verify all`` then hashes each once.  Nothing is cached on
    disk: a verification always reads the bytes once per run.  ctime is in the key
    because a file rewritten in place can be given its old size and mtime back,
    never its old ctime, which the kernel sets on every write and every change of mtime.
    """
    stat = path.stat()
    return _cached_sha256(str(path.resolve()), stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_ctime_ns)


def check_file(data_dir: Path, file: DataFile) -> FileStatus:
    path = data_dir / file.path
    if not path.is_file():
        return FileStatus(file.path, "missing")
    try:
        actual = file_sha256(path)
    except (OSError, EOFError) as exc:  # unreadable, or a broken .gz
        return FileStatus(file.path, "mismatch", f"cannot read: {exc}")
    if actual != file.sha256:
        return FileStatus(file.path, "mismatch", _mismatch(file.sha256, actual))
    return FileStatus(file.path, "ok")


def _mismatch(expected: str, actual: str) -> str:
    return f"checksum mismatch: expected sha256 {expected[:12]}..., got {actual[:12]}..."


def verify(package: DataPackage, data_dir: Path, progress: Progress = _quiet) -> list[FileStatus]:
    """Check every file of ``package`` against the catalog's sha256 (of the decompressed content)."""
    results = []
    for file in package.files:
        results.append(check_file(data_dir, file))
        progress(results[-1])
    return results


def _require_ok(package: DataPackage, data_dir: Path) -> None:
    for result in verify(package, data_dir):
        if result.status != "ok":
            detail = result.detail or "file is missing"
            raise DataError.at(data_dir / result.path, None, f"{detail} (package '{package.name}')")


# --- fetching ----------------------------------------------------------------------------------

def fetch(package: DataPackage, data_dir: Path, mirror: Path | None = None,
          progress: Progress = _quiet) -> list[FileStatus]:
    """Make ``package`` available in ``data_dir`` and verify it; raise :class:`DataError` on a bad checksum.

    Returns one :class:`FileStatus` per file handled, with status ``linked``,
    ``copied``, ``downloaded`` or ``present`` (already there and verified).
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    if mirror is not None:
        results = _from_mirror(package, Path(mirror), data_dir, progress)
    else:
        results = [_download(file, data_dir, progress) for file in package.files]
    _require_ok(package, data_dir)
    return results


def _from_mirror(package: DataPackage, mirror: Path, data_dir: Path, progress: Progress) -> list[FileStatus]:
    """Link or copy every file under the package's top-level folders (SOURCE.md and extra files too)."""
    if not mirror.is_dir():
        raise IsarcasmError(f"mirror directory {mirror} does not exist; point --mirror at a folder laid out "
                            "like ../shared/data (one folder per corpus)")
    declared = {f.path: f for f in package.files}
    results = []
    for folder in package.folders:
        source_root = mirror / folder
        if not source_root.is_dir():
            raise DataError.at(source_root, None, f"the mirror has no folder '{folder}' for '{package.name}'; "
                                                  "a mirror is laid out like ../shared/data")
        for source in sorted(p for p in source_root.rglob("*") if p.is_file()):
            relative = source.relative_to(mirror).as_posix()
            target = data_dir / relative
            if _already_there(source, target, declared.get(relative)):
                result = FileStatus(relative, "present")
            else:
                result = FileStatus(relative, _link_or_copy(source, target))
            results.append(result)
            progress(result)
    return results


def _already_there(source: Path, target: Path, file: DataFile | None) -> bool:
    if not target.is_file():
        return False
    if os.path.samefile(source, target):
        return True
    if file is not None:
        return file_sha256(target) == file.sha256
    return source.stat().st_size == target.stat().st_size and _raw_sha256(source) == _raw_sha256(target)


def _raw_sha256(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _link_or_copy(source: Path, target: Path) -> str:
    """Hard-link ``source`` to ``target`` (atomically replacing it); copy when linking fails."""
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = _temp_name(target)
    try:
        try:
            os.link(source, temp)
            how = "linked"
        except OSError:  # another file system, or links not allowed
            shutil.copyfile(source, temp)
            how = "copied"
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)
    return how


def _temp_name(target: Path) -> Path:
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    os.close(handle)
    os.unlink(name)
    return Path(name)


def _download(file: DataFile, data_dir: Path, progress: Progress) -> FileStatus:
    """Download one file, check its content sha256, and write it (gzipped when its name ends in .gz)."""
    target = data_dir / file.path
    if target.is_file() and check_file(data_dir, file).status == "ok":
        result = FileStatus(file.path, "present")
        progress(result)
        return result
    if file.url is None:
        raise IsarcasmError(f"{file.path} has no public download; {MIRROR_HINT}")
    try:
        with urlopen(file.url, timeout=DOWNLOAD_TIMEOUT_S) as response:
            raw = response.read()
    except OSError as exc:  # URLError, HTTPError and timeouts are all OSErrors
        reason = exc.reason if type(exc) is URLError else exc
        raise IsarcasmError(f"cannot download {file.path} from {file.url} ({reason}); {MIRROR_HINT}") from None
    is_gzip = raw[:2] == b"\x1f\x8b"
    try:
        content = gzip.decompress(raw) if is_gzip else raw
    except (OSError, EOFError) as exc:
        raise DataError.at(target, None, f"downloaded file from {file.url} is a broken gzip ({exc})") from None
    actual = hashlib.sha256(content).hexdigest()
    if actual != file.sha256:
        raise DataError.at(target, None, f"{_mismatch(file.sha256, actual)} (downloaded from {file.url})")
    if target.suffix == ".gz":
        data = raw if is_gzip else gzip.compress(content, mtime=0)
    else:
        data = content
    _write_atomically(target, data)
    result = FileStatus(file.path, "downloaded")
    progress(result)
    return result


def _write_atomically(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = _temp_name(target)
    try:
        temp.write_bytes(data)
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)
