"""A local HTTP server that stands in for the upstream hosts, and the files it serves.

The server lays files out by host and path (``ROOT/HOST/PATH``), as ``$ISARCASM_UPSTREAM`` expects
(see :func:`preprocessing.fetch.upstream_url`); it answers HTTP Range requests and can drop a
transfer part-way (``cuts``), so resuming and interrupted downloads can be tested.
"""
from __future__ import annotations

import gzip
import io
import re
import struct
import threading
import zipfile
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from preprocessing.corpora import packages


class UpstreamHandler(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (the http.server name)
        path = self.server.root / unquote(urlsplit(self.path).path).lstrip("/")
        self.server.requests.append((self.path, self.headers.get("Range")))
        if not path.is_file():
            self.send_error(404)
            return
        data = path.read_bytes()
        start = int(match.group(1)) if (match := re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or "")) \
            else None
        if start is not None and start >= len(data):
            self.send_error(416)
            return
        if start is None:
            self.send_response(200)
            start = 0
        else:
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        body = data[start:]
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        cut = self.server.cuts.pop(path.name, None)
        self.wfile.write(body if cut is None else body[:cut])
        self.close_connection = cut is not None

    def log_message(self, *args):
        pass


@contextmanager
def serving(root: Path):
    """A server for ``root`` on 127.0.0.1; yields it (``.base`` is its URL, ``.requests`` what it was asked)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), UpstreamHandler)
    server.root, server.requests, server.cuts = root, [], {}
    server.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def place(root: Path, url: str, data: bytes) -> Path:
    """Put ``data`` where the server answers ``url`` (an upstream URL)."""
    parts = urlsplit(url)
    path = root / parts.netloc / unquote(parts.path).lstrip("/")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def glove_zip(lines: list[bytes], member: str, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip archive like glove.6B.zip holding ``lines`` as ``member`` (and a smaller sibling member)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression, compresslevel=1) as archive:
        archive.writestr("glove.6B.50d.txt", b"the 0.1 0.2\n")
        with archive.open(member, "w", force_zip64=True) as handle:
            for line in lines:
                handle.write(line)
    return buffer.getvalue()


def py2_index_pickle(folds: list[tuple[list[int], list[int]]]) -> bytes:
    """A protocol-2 pickle of ``[(train array, test array), ...]`` of int64 numpy arrays, opcode for opcode
    as Python 2 with numpy 1 wrote MUStARD's split_indices.p (Python 3 would write other opcodes)."""
    out = [b"\x80\x02]q\x00("]
    for fold in folds:
        for number, positions in enumerate(fold):
            out.append(b"cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\nK\x00\x85U\x01b\x87R(K\x01")
            out.append(b"M" + struct.pack("<H", len(positions)) + b"\x85cnumpy\ndtype\nU\x02i8K\x00K\x01\x87R"
                       b"(K\x03U\x01<NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb\x89")
            raw = struct.pack(f"<{len(positions)}q", *positions)
            out.append(b"T" + struct.pack("<i", len(raw)) + raw + b"tb")
        out.append(b"\x86")
    out.append(b"e.")
    return b"".join(out)


#: One line of each kind of word the 341,479-word GloVe file leaves out, in GloVe's number style.
REMOVED_KINDS = ["a", "i", "e", "1", "2008", "n't", "'s", "u.s.", "p.m.", "café", "über", "日本"]


def removed_kind_line(word: str, seed: int) -> bytes:
    values = " ".join(f"{((seed * 37 + k * 11) % 2000 - 1000) / 1713:.5f}" for k in range(100))
    return f"{word} {values}\n".encode("utf-8")


def real_glove_lines(vectors_gz: Path):
    """The lines of the full GloVe 6B 100-d file as far as the mirror's 341,479-word file shows them: its
    lines, with a line of every removed kind of word put back at several places."""
    with gzip.open(vectors_gz, "rb") as handle:
        for number, line in enumerate(handle):
            if number % 40000 == 0:
                yield from (removed_kind_line(word, number + k) for k, word in enumerate(REMOVED_KINDS))
            yield line
    yield from (removed_kind_line(word, k) for k, word in enumerate(REMOVED_KINDS))


def stand_in_for_every_upstream(mirror: Path, root: Path) -> None:
    """Lay out under ``root`` every upstream file of the catalog's non-optional packages, made from ``mirror``
    (a folder laid out like ../shared/data): each file as its host serves it, and glove.6B.zip rebuilt."""
    for package in packages():
        if package.optional:
            continue
        for file in package.files:
            if file.url:
                content = (mirror / file.path).read_bytes()
                if file.path.endswith(".gz") and not urlsplit(file.url).path.endswith(".gz"):
                    content = gzip.decompress(content)
                place(root, file.url, content)
    place(root, "https://raw.githubusercontent.com/soujanyaporia/MUStARD/b34b5134beeec42a36cdac79330637de9cc9894e/"
                "data/split_indices.p", (mirror / "mustard/split_indices.p").read_bytes())
    archive = root / "nlp.stanford.edu/data/glove.6B.zip"
    archive.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as target, \
            target.open("glove.6B.100d.txt", "w", force_zip64=True) as handle:
        for line in real_glove_lines(mirror / "glove/glove.6B.100d.wink341k.txt.gz"):
            handle.write(line)
