"""Loading corpora by name (or path) into validated :class:`Dataset` s.

A corpus is declared once (:class:`~preprocessing.specs.CorpusSpec`, in
:mod:`preprocessing.catalog`) with everything needed to fetch, verify and read
it; :func:`load_corpus` resolves a name, or a path to a plain CSV/TSV/JSONL
file, to a validated :class:`Dataset`.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from pathlib import Path

from . import catalog  # noqa: F401  (the declarations register themselves in CORPORA and RESOURCES)
from .anyfile import FORMATS, file_format, file_stem, read_any_file
from .errors import DataError, IsarcasmError
from .records import Dataset
from .specs import CORPORA, RESOURCES, CorpusSpec, DataPackage

def packages() -> list[DataPackage]:
    """Every fetchable package: corpora first, then resources."""
    return [*CORPORA, *RESOURCES]


def get_package(name: str) -> DataPackage:
    if name in RESOURCES:
        return RESOURCES.get(name)
    return CORPORA.get(name)


def get_corpus(name: str) -> CorpusSpec:
    return CORPORA.get(name)


def is_file_corpus(name: str) -> bool:
    """A corpus argument that names a file rather than a registered corpus."""
    return file_format(name) in FORMATS or "/" in name


def corpus_label(name: str) -> str:
    """A short display name: the corpus name, or a file corpus' file stem."""
    return file_stem(name) if name not in CORPORA and is_file_corpus(name) else name


def corpus_labels(names: list[str]) -> dict[str, str]:
    """Each of ``names`` (corpus names or files of one command) -> a label no other of them has.

    A registered corpus keeps its name.  A file is named by its stem (:func:`corpus_label`) unless
    that is a registered corpus' name (``riloff.csv`` is not Riloff) or another file's label: then
    by the shortest end of its path that tells it apart (``a/sub``, ``b/sub``), and, for files that
    differ only in their format, by the path with the file name (``a/sub.csv``); a file's last
    label is its whole path, which no other file has, so the search ends.  Reports key every
    column by these labels, so two files never share one, nor a file a corpus'.  The same corpus or
    file given twice is refused: it would be two columns of one data set.
    """
    seen: dict[str, str] = {}
    for name in names:
        same = str(Path(name).resolve()) if is_file_corpus(name) and name not in CORPORA else name
        if same in seen:
            raise IsarcasmError(f"corpus {name!r} is given twice ({seen[same]!r} is the same); give each corpus once")
        seen[same] = name
    files = [name for name in names if name not in CORPORA and is_file_corpus(name)]
    candidates = {name: _file_labels(name) for name in files}
    level = dict.fromkeys(files, 0)
    while True:
        labels = {name: candidates[name][level[name]] for name in files}
        taken = [*labels.values(), *(name for name in names if name not in files)]
        clashing = [name for name in files if labels[name] in CORPORA or taken.count(labels[name]) > 1]
        if not clashing:
            return {name: labels.get(name, name) for name in names}
        for name in clashing:
            level[name] = min(level[name] + 1, len(candidates[name]) - 1)


def _file_labels(name: str) -> list[str]:
    """A file's possible labels, shortest first: its stem, then with more and more of its folders
    (``sub``, ``a/sub``, ``tmp/a/sub``), then the same with the file's whole name (``a/sub.csv``),
    the last one its whole path (unique to the file)."""
    path = Path(name).absolute()
    folders = [part for part in path.parent.parts if part != path.anchor]
    ends = [folders[len(folders) - k:] for k in range(len(folders) + 1)]
    return ([("/".join([*end, file_stem(name)])) for end in ends]
            + [("/".join([*end, path.name])) for end in ends[1:]] + [str(path)])


def missing_files(spec: DataPackage, data_dir: Path) -> list[str]:
    return [f.path for f in spec.files if not (data_dir / f.path).is_file()]


def load_corpus(name: str, data_dir: Path, **options) -> Dataset:
    """Load a registered corpus by name, or a CSV/TSV/JSONL file by path.

    ``options`` go to the reader: ``text_file`` for ``isarcasm-ids``; for a file
    corpus ``text_col``, ``label_col``, ``split_col``.
    """
    if name not in CORPORA and is_file_corpus(name):
        return _validated(read_any_file(Path(name), **options))
    spec = CORPORA.get(name)
    require_data_dir(data_dir, name)
    missing = missing_files(spec, data_dir)
    if missing:
        raise DataError(
            f"corpus '{name}' is not available in {data_dir}: missing {missing[0]}"
            + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
            + f"; run `isarcasm data fetch {name} --mirror DIR`"
        )
    options = {k: v for k, v in options.items() if v is not None}
    unsupported = [k for k in options if k not in reader_options(spec)]
    if unsupported:
        flag = "--" + unsupported[0].replace("_", "-")
        raise IsarcasmError(f"corpus '{name}' does not take {flag} (it is for other corpora or file corpora)")
    loaded = spec.reader(data_dir, **options)
    dataset = Dataset(
        name=spec.name,
        language=spec.language,
        label_names=spec.label_names,
        records=loaded.records,
        folds=loaded.folds,
        warnings=list(loaded.warnings),
        multi_label=spec.multi_label,
        aux_labels=dict(spec.aux_labels),
    )
    return _validated(dataset)


def reader_options(spec: CorpusSpec) -> set[str]:
    """The options a registered corpus' reader takes after the data directory (``text_file`` for
    ``isarcasm-ids``, whose text the user supplies)."""
    return set(list(inspect.signature(spec.reader).parameters)[1:])


def corpus_options(name: str, text_col: str = "text", label_col: str = "label", split_col: str | None = None,
                   text_file: str | Path | None = None) -> dict:
    """The subset of the command-line corpus options that applies to ``name``.

    Column options only mean something for a file corpus, ``text_file`` only
    for a registered corpus that takes one (``isarcasm-ids``).
    """
    if name not in CORPORA and is_file_corpus(name):
        return {"text_col": text_col, "label_col": label_col, "split_col": split_col}
    return {"text_file": Path(text_file) if text_file else None}


def refuse_file_options(name: str, text_col: str = "text", label_col: str = "label", split_col: str | None = None,
                        text_file: str | Path | None = None) -> None:
    """One line when a file's column options are given for a built-in corpus, which reads its own
    columns and splits, or ``--text-file`` for a file corpus, which holds its own texts: for a command
    about one corpus they would do nothing (a study of several corpora passes them to the files among
    them, :func:`corpus_options`)."""
    if name not in CORPORA and is_file_corpus(name):
        if text_file is not None:
            raise IsarcasmError(f"{name} is a file corpus and holds its own texts: --text-file supplies the texts "
                                "of 'isarcasm-ids' and would be ignored; leave it out")
        return
    given = [flag for flag, value, default in (("--text-col", text_col, "text"), ("--label-col", label_col, "label"),
                                                ("--split-col", split_col, None)) if value != default]
    if given:
        raise IsarcasmError(f"corpus '{name}' is built in and has its own columns and splits: {', '.join(given)} "
                            "is for a .csv/.tsv/.jsonl file and would be ignored; leave it out")


def require_data_dir(data_dir: Path, name: str = "NAME") -> None:
    """Fail with the ways to get data when the data directory itself is missing."""
    if not data_dir.is_dir():
        raise IsarcasmError(
            f"data directory {data_dir} does not exist; run `make demo`, or "
            f"`isarcasm data fetch {name} --mirror DIR`, or point --data-dir / $ISARCASM_DATA at your data"
        )


def _validated(dataset: Dataset) -> Dataset:
    """Checks every reader relies on: unique ids, labels in range, at least one record."""
    if not dataset.records:
        raise DataError(f"corpus '{dataset.name}' has no records")
    seen: set[str] = set()
    for r in dataset.records:
        if r.id in seen:
            raise DataError(f"corpus '{dataset.name}': duplicate id {r.id!r}")
        seen.add(r.id)
        if dataset.multi_label:
            if not r.types or not set(r.types) <= set(dataset.label_names):
                raise DataError(f"corpus '{dataset.name}': record {r.id!r} has labels {r.types}; expected one or "
                                f"more of {dataset.label_names}")
        elif not 0 <= r.label < len(dataset.label_names):
            raise DataError(
                f"corpus '{dataset.name}': record {r.id!r} has label {r.label} outside {dataset.label_names}"
            )
        for task, index in r.aux:
            if task not in dataset.aux_labels or not 0 <= index < len(dataset.aux_labels[task]):
                raise DataError(f"corpus '{dataset.name}': record {r.id!r} has auxiliary label {task}={index}, "
                                f"not one of its declared tasks {dataset.aux_labels}")
    return dataset


@dataclass
class Corpora:
    """The corpora of one command: read from ``data_dir`` with the command line's file-corpus
    options (columns of file corpora, ``text_file`` of isarcasm-ids), each loaded once."""

    data_dir: Path
    file_options: dict = field(default_factory=dict)
    _loaded: dict = field(default_factory=dict, repr=False)

    def options(self, name: str) -> dict:
        """The file-corpus options that apply to corpus ``name``."""
        return corpus_options(name, **self.file_options)

    def load(self, name: str) -> Dataset:
        """Corpus ``name``, loaded once per command."""
        if name not in self._loaded:
            self._loaded[name] = load_corpus(name, self.data_dir, **self.options(name))
        return self._loaded[name]
