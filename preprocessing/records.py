"""The one record type every corpus reader returns, and a loaded corpus."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from preprocessing.errors import HIDDEN, IsarcasmError


def id_problem(record_id: str) -> str | None:
    """Why ``record_id`` cannot name a text, or None.  An id is the first column of a run's
    tab-separated predictions.tsv, one line per test text: a TAB would add columns, a line break
    (or another control character a reader may split at) rows, and the run would score rows that
    are no text.  Refused where a user's file is read, and again where the run is written."""
    found = HIDDEN.search(record_id)
    if found is None:
        return None
    character = {"\t": "a TAB", "\n": "a line break", "\r": "a line break"}.get(found.group(),
                                                                       f"the control character {ascii(found.group())}")
    return (f"id {ascii(record_id)} holds {character}; ids are written one per line in tab-separated run files: "
            "remove it from the id")


@dataclass(frozen=True, slots=True)  # slots: smaller records, for a large user file's millions of them
class Record:
    """One labelled example.

    ``label`` is an index into the corpus' ``label_names``; for binary corpora
    1 means sarcastic (or ironic) and 0 means not.  ``text`` is ``None`` only for
    corpora distributed as IDs whose text the user has not supplied.
    """

    id: str
    text: str | None
    label: int
    split: str
    types: tuple[str, ...] = ()
    context: tuple[str, ...] = ()
    speaker: str | None = None
    topic: str | None = None
    rephrase: str | None = None
    #: Auxiliary labels for multi-task training, ``(task, class index)`` pairs
    #: (SemEval-2018's irony type and removed hashtag; see ``Dataset.aux_labels``).
    aux: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Fold:
    """One cross-validation fold, as record ids (for corpora with official folds)."""

    train_ids: tuple[str, ...]
    test_ids: tuple[str, ...]


@dataclass
class Dataset:
    """A corpus as loaded from disk: records of every split, plus metadata."""

    name: str
    language: str
    label_names: tuple[str, ...]
    records: list[Record]
    folds: tuple[Fold, ...] = ()
    warnings: list[str] = field(default_factory=list)
    #: Multi-label corpora (iSarcasmEval task B): a record's gold labels are its
    #: ``types`` (names in ``label_names``, one or more); ``label`` keeps the source's
    #: binary label and is not the target.
    multi_label: bool = False
    #: Auxiliary tasks a multi-task model may learn beside the label: ``{task: class names}``.
    #: Training records carry their class in ``Record.aux``; other records may not.
    aux_labels: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def splits(self) -> list[str]:
        """Split names in order of first appearance (train before test in every reader)."""
        return list(dict.fromkeys(r.split for r in self.records))

    def require_context(self, mode: str) -> None:
        """``--context last`` or ``all`` reads each text's dialogue turns: on a corpus with none, the
        runs would be the named context variant in name only."""
        if mode != "none" and not any(r.context for r in self.records):
            raise IsarcasmError(f"corpus '{self.name}' has no dialogue context, so context {mode} would read "
                                "nothing; leave it out (corpora with context: mustard, kocosa)")

    def split(self, name: str) -> list[Record]:
        return [r for r in self.records if r.split == name]

    def labels_of(self, record: Record) -> tuple[int, ...]:
        """A record's gold label indices: its label, or its types' for a multi-label corpus."""
        if self.multi_label:
            return tuple(self.label_names.index(t) for t in record.types)
        return (record.label,)

    def check_learnable(self, train: list[Record], validation: list[Record]) -> None:
        """Refuse, before training, splits no model can learn or be selected on: a training split with
        fewer than two classes (or label sets) teaches nothing, and a validation split without the
        sarcastic class makes its F1 0 at every epoch, so selection would choose nothing."""
        seen = {frozenset(self.labels_of(r)) for r in train}
        if len(seen) < 2:
            raise IsarcasmError(f"corpus '{self.name}': the training split ({len(train)} texts) has "
                                f"{'no class' if not seen else 'one class only'}; a model learns nothing from it "
                                "(check the corpus' labels, --max-train or --validation-fraction)")
        if self.is_binary and not any(1 in self.labels_of(r) for r in validation):
            raise IsarcasmError(f"corpus '{self.name}': the validation split ({len(validation)} texts) has "
                                f"no '{self.label_names[1]}' text, so no epoch can be selected on it "
                                "(check the corpus' labels or --validation-fraction)")

    def label_counts(self, split: str | None = None, rows: list[Record] | None = None) -> Counter:
        """How often each label index is gold in a split (or in ``rows``); a multi-label record counts once per label."""
        rows = rows if rows is not None else self.records if split is None else self.split(split)
        return Counter(i for r in rows for i in self.labels_of(r))

    @property
    def is_binary(self) -> bool:
        return len(self.label_names) == 2 and not self.multi_label
