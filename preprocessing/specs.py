"""What a corpus or resource declaration says: its files, source, labels and reader.

The declarations themselves are in :mod:`preprocessing.catalog`; readers
(:mod:`preprocessing.readers`) return :class:`Loaded`; :mod:`preprocessing.corpora`
loads a declared corpus.  Kept apart from all three so each imports it and none
of them another's declarations.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .records import Fold, Record
from .registry import Registry

BINARY_LABELS = ("not_sarcastic", "sarcastic")


@dataclass(frozen=True)
class Upstream:
    """A file as a public host serves it; ``checksum`` (``"sha256:..."`` or ``"md5:..."``) is the
    published one, ``None`` where nobody publishes one."""

    url: str
    checksum: str | None = None


@dataclass(frozen=True)
class Derivation:
    """How a file no host serves as it is gets made from files that hosts do serve.

    ``make(paths)`` reads the downloaded ``inputs`` (in that order) and yields the catalog file's
    content in chunks; it raises :class:`~preprocessing.errors.DataError` on an input it cannot read.
    ``alternatives`` are other published files ``make`` reads in place of a single input (``fetch
    --from FILE``).  ``room`` is about the bytes the made file takes, for the free-space check.
    """

    inputs: tuple[Upstream, ...]
    make: Callable[[list[Path]], Iterator[bytes]]
    alternatives: tuple[Upstream, ...] = ()
    room: int = 0


@dataclass(frozen=True)
class DataFile:
    """One file of a data package.

    ``path`` is relative to the data directory.  ``sha256`` is of the content,
    decompressed when the name ends in ``.gz`` (so a file fetched raw and
    gzipped locally verifies the same as the mirror's copy); ``None`` where no
    checksum of the content is published (``fetch`` then records the one it got).
    ``url`` is the pinned upstream location of the file as it is; ``derivation``
    says how it is made instead; neither when no public download exists.
    """

    path: str
    sha256: str | None
    url: str | None = None
    derivation: Derivation | None = None


@dataclass(frozen=True)
class DataPackage:
    """Files that are fetched and verified together (a corpus or a resource)."""

    name: str
    files: tuple[DataFile, ...]
    source: str
    licence: str
    notes: str = ""
    #: Fetched and verified only when named: ``all`` leaves it out (large optional downloads).
    optional: bool = False

    @property
    def folders(self) -> list[str]:
        """Top-level folders of the data directory this package lives in."""
        return sorted({f.path.split("/", 1)[0] for f in self.files})


@dataclass(frozen=True)
class Loaded:
    """What a reader returns; :func:`load_corpus` adds the corpus metadata."""

    records: list[Record]
    folds: tuple[Fold, ...] = ()
    warnings: list[str] = field(default_factory=list)


# reader(data_dir, **options) -> Loaded
Reader = Callable[..., Loaded]


@dataclass(frozen=True)
class CorpusSpec(DataPackage):
    language: str = "en"
    label_names: tuple[str, ...] = BINARY_LABELS
    splits: tuple[str, ...] = ("train", "test")
    reader: Reader | None = None
    #: Gold labels are each record's ``types`` (see :class:`records.Dataset`).
    multi_label: bool = False
    #: Auxiliary tasks ``((task, class names), ...)`` whose classes the reader puts in ``Record.aux``.
    aux_labels: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def is_binary(self) -> bool:
        return len(self.label_names) == 2 and not self.multi_label


@dataclass(frozen=True)
class ResourceSpec(DataPackage):
    """Non-corpus data (word vectors, lexicons): fetched and verified like corpora."""

    description: str = ""


CORPORA: Registry[CorpusSpec] = Registry("corpus")
RESOURCES: Registry[ResourceSpec] = Registry("resource")
