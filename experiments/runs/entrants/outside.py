"""Predictions made outside the suite, as an entrant: ``isarcasm benchmark NAME --predictions DIR``.

``DIR`` holds one tab-separated file per corpus, named after it (``isarcasm.tsv``; a file corpus'
file stem), or one per seed (``isarcasm.seed-0.tsv``, which wins over ``isarcasm.tsv`` for seed 0).
Columns: ``id`` and ``p_sarcastic`` (a probability in [0, 1]) or ``label`` (0 or 1); other columns
are ignored.  The ids must be exactly those of the suite's test split of the corpus: a missing id, an
id that is not in it or one given twice, a value that is not a number or lies outside [0, 1], or a
missing file stops with one line naming the file (and row) before any run is written.  Each file
becomes a run in the store like a trained one (P(sarcastic) = ``p_sarcastic``, or the label), whose
config records the file's sha256; there is no validation split to choose anything on.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from experiments.runs.entrants.registry import Entrant, Job, Origin, Prepared, Scores, enter
from preprocessing.corpora import corpus_label
from preprocessing.errors import DataError, IsarcasmError
from preprocessing.fileio import content_sha256, parse_label, read_csv, require_file

#: The value columns, the first present is read.
COLUMNS = ("p_sarcastic", "label")


def load_predictions(name: str, folder: str | Path) -> Entrant:
    """Register entrant ``name``: the prediction files in ``folder`` (see the module's docstring)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise IsarcasmError(f"predictions folder {folder} not found (one <corpus>.tsv per corpus, columns id and "
                            "p_sarcastic or label)")

    def prepare(job: Job) -> Prepared:
        if job.fold is not None:
            raise IsarcasmError(f"{name}: corpus '{corpus_label(job.dataset.name)}' is tested on folds; outside "
                                "predictions cover one test split")
        path = predictions_file(folder, job.dataset.name, job.seed)
        positive = read_predictions_file(path, [r.id for r in job.splits.test], corpus_label(job.dataset.name))
        return Prepared({"kind": "predictions", "file": path.name, "sha256": content_sha256(path)},
                        lambda: Scores(np.column_stack([1 - positive, positive]),
                                       chosen={"file": str(path.resolve())}))

    return enter(Entrant(name, "predictions", f"predictions from {folder}", prepare, binary_only=True,
                         source=str(folder.resolve()), origin=Origin(load_predictions, str(folder))))


def predictions_file(folder: Path, corpus: str, seed: int) -> Path:
    """The file of ``corpus``' predictions for ``seed``: ``<corpus>.seed-<seed>.tsv``, else ``<corpus>.tsv``."""
    stem = corpus_label(corpus)
    for path in (folder / f"{stem}.seed-{seed}.tsv", folder / f"{stem}.tsv"):
        if path.exists():  # a directory or FIFO of that name is "not a regular file", not skipped
            return require_file(path)
    raise DataError.at(folder / f"{stem}.tsv", None, f"not found: the predictions of corpus '{stem}' (or "
                                                     f"{stem}.seed-{seed}.tsv for seed {seed}), columns id and "
                                                     "p_sarcastic or label")


def read_predictions_file(path: Path, test_ids: list[str], corpus: str) -> np.ndarray:
    """P(sarcastic) of every test id, in ``test_ids``' order, from one predictions file."""
    position = {identifier: index for index, identifier in enumerate(test_ids)}
    values, seen, column = np.full(len(test_ids), np.nan), {}, None
    for row, fields in read_csv(path, ("id",), delimiter="\t"):
        if column is None:
            column = next((c for c in COLUMNS if c in fields), None)
            if column is None:
                raise DataError.at(path, 1, f"no p_sarcastic or label column; the header has: {', '.join(fields)}")
        identifier = (fields["id"] or "").strip()
        if identifier not in position:
            raise DataError.at(path, row, f"id {identifier!r} is not in the test split of '{corpus}' "
                                          f"({len(test_ids)} texts)")
        if identifier in seen:
            raise DataError.at(path, row, f"id {identifier!r} is given twice (first on row {seen[identifier]})")
        seen[identifier] = row
        values[position[identifier]] = _value(path, row, column, fields[column])
    missing = [identifier for identifier in test_ids if identifier not in seen]
    if missing:
        raise DataError.at(path, None, f"{len(missing)} of the {len(test_ids)} test ids of '{corpus}' have no "
                                       f"prediction, e.g. {missing[0]!r}")
    return values


def _value(path: Path, row: int, column: str, text: str | None) -> float:
    if column == "label":
        return float(parse_label(path, row, text, {"0": 0, "1": 1}))
    text = (text or "").strip()
    try:
        value = float(text)
    except ValueError:
        raise DataError.at(path, row, f"p_sarcastic {text!r} is not a number") from None
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise DataError.at(path, row, f"p_sarcastic {text} is not a probability between 0 and 1")
    return value
