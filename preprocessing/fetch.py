"""Getting data packages into the data directory, and checking them.

Two routes, both ending in a sha256 check against the catalog:

* from a local mirror laid out like ``../shared/data`` (one folder per corpus):
  each top-level folder of the package is hard-linked (copied where linking is
  not possible), so a fetch costs no extra disk and is instant;
* from the pinned public upstream of each file: downloaded as it is, or made from
  downloaded upstream files by the file's :class:`~preprocessing.specs.Derivation`
  (:mod:`preprocessing.derive`).  Downloads stream to a ``.part`` file under
  ``DATA/.downloads`` (resumed by a later run), with a progress bar and a free-space
  check first; ``$ISARCASM_UPSTREAM`` moves every upstream host to one base URL
  (:func:`upstream_url`).

Files are written to a temporary name and renamed, so an interrupted fetch
never leaves a half-written file that looks fetched.  Where no checksum of a file's
content is published, the fetch records the one it got beside it (``NAME.sha256``)
and verification checks against that.
"""
from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from functools import cache
from http.client import HTTPException
from pathlib import Path, PurePosixPath
from urllib.error import HTTPError
from urllib.parse import urlsplit
from urllib.request import Request, urlopen

from tqdm import tqdm

from .derive import as_is
from .errors import DataError, IsarcasmError
from .fileio import content_sha256
from .specs import DataFile, DataPackage, Derivation, Upstream

DOWNLOAD_TIMEOUT_S = 60
CHUNK = 1 << 20
#: Set to a base URL, every upstream host is fetched from under it (see :func:`upstream_url`).
UPSTREAM_ENV = "ISARCASM_UPSTREAM"
#: Where downloads arrive in the data directory (``.part`` files of broken downloads wait there to be resumed).
DOWNLOADS = ".downloads"
MIRROR_HINT = "fetch from a local copy with --mirror DIR"
RETRY_HINT = f"check the connection and run the same command again, or {MIRROR_HINT}"


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
    expected = expected_sha256(data_dir, file)
    if expected is None:
        return FileStatus(file.path, "mismatch", "no checksum is published and none was recorded when it was "
                                                 "fetched; fetch it again")
    try:
        actual = file_sha256(path)
    except (OSError, EOFError) as exc:  # unreadable, or a broken .gz
        return FileStatus(file.path, "mismatch", f"cannot read: {exc}")
    if actual != expected:
        return FileStatus(file.path, "mismatch", _mismatch(expected, actual))
    return FileStatus(file.path, "ok", "" if file.sha256 else "against the sha256 recorded when it was fetched")


def expected_sha256(data_dir: Path, file: DataFile) -> str | None:
    """The catalog's sha256 of the file's content, else the one recorded when it was fetched (None: neither)."""
    if file.sha256 is not None:
        return file.sha256
    try:
        return _recorded_path(data_dir / file.path).read_text(encoding="ascii").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def _recorded_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


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

def fetch(package: DataPackage, data_dir: Path, mirror: Path | None = None, given: Path | None = None,
          progress: Progress = _quiet) -> list[FileStatus]:
    """Make ``package`` available in ``data_dir`` and verify it; raise :class:`IsarcasmError` (one line) on failure.

    ``given`` (``--from FILE``) stands in for the one upstream file a derived file is made from.
    Returns one :class:`FileStatus` per file handled, with status ``linked``, ``copied``,
    ``downloaded``, ``made`` or ``present`` (already there and verified).
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    if mirror is not None:
        results = _from_mirror(package, Path(mirror), data_dir, progress)
    else:
        if given is not None and not any(_takes_given(file) for file in package.files):
            raise IsarcasmError(f"--from FILE stands in for the one upstream archive a package is made from; "
                                f"'{package.name}' is not made from one (leave --from out)")
        results = [_obtain(file, data_dir, given, progress) for file in package.files]
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
            if _already_there(source, target, data_dir, declared.get(relative)):
                result = FileStatus(relative, "present")
            else:
                result = FileStatus(relative, _link_or_copy(source, target))
            results.append(result)
            progress(result)
    return results


def _already_there(source: Path, target: Path, data_dir: Path, file: DataFile | None) -> bool:
    if not target.is_file():
        return False
    if os.path.samefile(source, target):
        return True
    if file is not None:
        return file_sha256(target) == expected_sha256(data_dir, file)
    return source.stat().st_size == target.stat().st_size and _digest(source, "sha256") == _digest(target, "sha256")


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


def _takes_given(file: DataFile) -> bool:
    return file.derivation is not None and len(file.derivation.inputs) == 1


def upstream_url(url: str) -> str:
    """Where ``url`` is fetched from: itself, or, when ``$ISARCASM_UPSTREAM`` is set, that base followed by the
    URL's host and path (``https://HOST/PATH`` -> ``$ISARCASM_UPSTREAM/HOST/PATH``), so that one local server
    laid out by host and path stands in for every upstream host (tests, offline demonstrations)."""
    base = os.environ.get(UPSTREAM_ENV, "").rstrip("/")
    return f"{base}/{url.split('://', 1)[1]}" if base else url


def _obtain(file: DataFile, data_dir: Path, given: Path | None, progress: Progress) -> FileStatus:
    """Download (or make from downloaded upstream files) one file, check its content sha256, write it atomically.

    Where the catalog pins the content's sha256, that check alone decides (an archive packed again
    with the same content is as good); where it does not, each upstream file must be the published one.
    """
    target = data_dir / file.path
    if target.is_file() and check_file(data_dir, file).status == "ok":
        result = FileStatus(file.path, "present")
        progress(result)
        return result
    recipe = file.derivation or (Derivation((Upstream(file.url),), as_is) if file.url else None)
    if recipe is None:
        raise IsarcasmError(f"{file.path} has no public download; {MIRROR_HINT}")
    given_here = given is not None and _takes_given(file)
    if given_here and not Path(given).is_file():
        raise IsarcasmError(f"{given}: file not found (--from FILE)")
    again = ("pass the right file with --from, or leave --from out" if given_here
             else "the download is deleted: run the same command again to download it afresh")
    fetched: list[Path] = []
    try:
        if not given_here:
            fetched.extend(_download(upstream, data_dir / DOWNLOADS, recipe.room, file.path)
                           for upstream in recipe.inputs)
        inputs = [Path(given)] if given_here else fetched
        if file.sha256 is None:
            _require_published(inputs, recipe, given_here)
        _make(file, target, recipe, inputs)
    except DataError as exc:
        raise DataError(f"{exc}; {again}") from None
    finally:
        for path in fetched:
            path.unlink(missing_ok=True)
    result = FileStatus(file.path, "made" if file.derivation else "downloaded")
    progress(result)
    return result


def _require_published(inputs: list[Path], recipe: Derivation, given: bool) -> None:
    """Refuse an input that is not the published upstream file (for ``--from``: nor a published alternative)."""
    for path, upstream in zip(inputs, recipe.inputs):
        accepted = [u for u in ((upstream, *recipe.alternatives) if given else (upstream,)) if u.checksum]
        if accepted and not any(_digest(path, u.checksum.split(":")[0]) == u.checksum.split(":")[1] for u in accepted):
            names = " or ".join(f"{PurePosixPath(urlsplit(u.url).path).name} ({u.checksum[:19]}...)" for u in accepted)
            raise DataError.at(path, None, f"is not the published {names}")


def _digest(path: Path, algorithm: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, algorithm).hexdigest()


def _download(upstream: Upstream, downloads: Path, room: int, what: str, resume: bool = True) -> Path:
    """Stream ``upstream`` (for the file ``what``) to ``downloads/HOST/PATH``.

    It arrives in ``PATH.part``, which a later run resumes with an HTTP Range request (and
    restarts when the server ignores it), and is renamed when complete.  Free disk space for the
    rest of the download plus ``room`` is checked before a byte is written.  Its checksum is checked
    by the caller, where needed.
    """
    parts = urlsplit(upstream.url)
    final = downloads / parts.netloc / parts.path.lstrip("/")
    part = final.with_name(final.name + ".part")
    final.parent.mkdir(parents=True, exist_ok=True)
    have = part.stat().st_size if resume and part.is_file() else 0
    url = upstream_url(upstream.url)
    request = Request(url, headers={"Range": f"bytes={have}-"} if have else {})
    try:
        response = urlopen(request, timeout=DOWNLOAD_TIMEOUT_S)
    except HTTPError as exc:
        if exc.code == 416 and have:  # the part is no prefix of the file: start again
            return _download(upstream, downloads, room, what, resume=False)
        raise IsarcasmError(f"cannot download {what} from {url} ({exc}); {MIRROR_HINT}") from None
    except OSError as exc:  # URLError and timeouts are OSErrors
        raise IsarcasmError(f"cannot download {what} from {url} ({getattr(exc, 'reason', exc)}); {RETRY_HINT}") \
            from None
    with response:
        if have and not (response.status == 206
                         and response.headers.get("Content-Range", "").startswith(f"bytes {have}-")):
            have = 0  # the server sent the whole file
        length = _content_length(response)
        total = have + length if length is not None else None
        _require_room(downloads, (length or 0) + room)
        got = _stream(response, part, have, total)
    if total is not None and got < total:
        raise IsarcasmError(f"the download of {what} from {url} stopped after {got:,} of {total:,} bytes; run the "
                            "same command again to resume it")
    os.replace(part, final)
    return final


def _content_length(response) -> int | None:
    """The response's Content-Length; None where it is absent or no count of bytes (the download is then
    neither sized beforehand nor checked for completeness by it)."""
    value = response.headers.get("Content-Length", "").strip()
    return int(value) if value.isdigit() else None


def _stream(response, part: Path, have: int, total: int | None) -> int:
    """Append the response body to ``part`` (after its first ``have`` bytes) with a progress bar; bytes held."""
    got = have
    with open(part, "r+b" if have else "wb") as out, tqdm(
            total=total, initial=have, unit="B", unit_scale=True, unit_divisor=1024, desc=part.name[:-5],
            disable=None, leave=False, dynamic_ncols=True) as bar:
        out.seek(have)
        out.truncate()
        while True:
            try:
                block = response.read(CHUNK)
            except (OSError, HTTPException):  # a reset connection, a timeout
                break
            if not block:
                break
            try:
                out.write(block)
            except OSError as exc:
                raise IsarcasmError(f"cannot write {part} ({exc.strerror or exc}); free some disk space and run "
                                    "the same command again to resume") from None
            got += len(block)
            bar.update(len(block))
    return got


def _require_room(folder: Path, need: int) -> None:
    free = shutil.disk_usage(folder).free
    if need > free:
        raise IsarcasmError(f"not enough free disk space in {folder}: {_mb(need)} needed, {_mb(free)} free; free "
                            "some space, or fetch into a data directory on a larger disk (--data-dir)")


def _mb(size: int) -> str:
    return f"{size / 1e6:,.1f} MB"


def _make(file: DataFile, target: Path, recipe: Derivation, inputs: list[Path]) -> None:
    """Write ``recipe.make(inputs)`` to ``target`` (gzip -9 -n when it ends in .gz), checking the content's sha256
    against the catalog's, or recording it beside the file where none is published; atomic."""
    target.parent.mkdir(parents=True, exist_ok=True)
    _require_room(target.parent, recipe.room)
    temp = _temp_name(target)
    digest = hashlib.sha256()
    try:
        with open(temp, "wb") as raw, (gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=0)
                                       if target.suffix == ".gz" else nullcontext(raw)) as out, \
                tqdm(unit="B", unit_scale=True, unit_divisor=1024, desc=target.name, disable=None, leave=False,
                     dynamic_ncols=True) as bar:
            for chunk in recipe.make(inputs):
                digest.update(chunk)
                out.write(chunk)
                bar.update(len(chunk))
        actual = digest.hexdigest()
        if file.sha256 is not None and actual != file.sha256:
            raise DataError.at(target, None, _mismatch(file.sha256, actual))
        os.replace(temp, target)
    except OSError as exc:
        raise IsarcasmError(f"cannot write {target} ({exc.strerror or exc}); free some disk space and run the "
                            "same command again") from None
    finally:
        temp.unlink(missing_ok=True)
    if file.sha256 is None:
        _write_atomically(_recorded_path(target), f"{actual}\n".encode())


def _write_atomically(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = _temp_name(target)
    try:
        temp.write_bytes(data)
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)
