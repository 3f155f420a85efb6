"""Descriptive statistics of a loaded corpus (``isarcasm data stats``).

Plain numbers a user checks before training: split sizes, class balance,
sarcasm types, text lengths, duplicates and train/test leakage.  Lengths are
counted in whitespace tokens for now (the key says so), so they do not depend
on a tokenizer model being installed.
"""
from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np

from .records import Dataset, Record

PERCENTILES = (50, 90, 95, 99)
LENGTH_KEY = "whitespace_tokens"


def corpus_stats(dataset: Dataset) -> dict:
    """Everything ``data stats`` shows, as JSON-ready plain types."""
    by_split = {split: dataset.split(split) for split in dataset.splits}
    texts = {split: {r.text for r in rows if r.text is not None} for split, rows in by_split.items()}
    return {
        "name": dataset.name,
        "language": dataset.language,
        "label_names": list(dataset.label_names),
        "records": len(dataset.records),
        "splits": {split: split_stats(rows, dataset) for split, rows in by_split.items()},
        # distinct texts that occur in both splits of each pair (leakage between train and evaluation)
        "text_overlap": {f"{a}/{b}": len(texts[a] & texts[b]) for a, b in combinations(by_split, 2)},
        "folds": [fold_stats(dataset, i) for i in range(len(dataset.folds))],
        "warnings": list(dataset.warnings),
    }


def split_stats(rows: list[Record], dataset: Dataset) -> dict:
    counts, label_names = dataset.label_counts(rows=rows), dataset.label_names
    with_text = [r.text for r in rows if r.text is not None]
    stats = {
        "records": len(rows),
        "labels": {name: counts.get(i, 0) for i, name in enumerate(label_names)},
        "types": dict(Counter(t for r in rows for t in r.types).most_common()),
        "with_text": len(with_text),
        # records whose text repeats an earlier record of the same split
        "duplicate_texts": len(with_text) - len(set(with_text)),
        LENGTH_KEY: length_percentiles([len(t.split()) for t in with_text]),
    }
    if dataset.is_binary:
        stats["sarcastic_pct"] = round(100 * counts.get(1, 0) / len(rows), 1) if rows else None
    return stats


def length_percentiles(lengths: list[int]) -> dict | None:
    if not lengths:
        return None
    values = np.percentile(lengths, PERCENTILES)
    return {**{f"p{p}": round(float(v), 1) for p, v in zip(PERCENTILES, values)}, "max": int(max(lengths))}


def fold_stats(dataset: Dataset, index: int) -> dict:
    fold = dataset.folds[index]
    test_ids = set(fold.test_ids)
    test_counts = dataset.label_counts(rows=[r for r in dataset.records if r.id in test_ids])
    return {
        "fold": index + 1,
        "train": len(fold.train_ids),
        "test": len(fold.test_ids),
        "test_labels": {name: test_counts.get(i, 0) for i, name in enumerate(dataset.label_names)},
    }
