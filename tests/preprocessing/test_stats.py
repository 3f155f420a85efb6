"""Corpus statistics on a hand-made dataset with known answers."""
from __future__ import annotations

import numpy as np

from preprocessing.records import Dataset, Fold, Record
from preprocessing.stats import corpus_stats


def make_dataset() -> Dataset:
    train_texts = ["a b", "a b", "c d e", "one two three four five six", "x"]
    records = [Record(f"tr{i}", t, int(i % 2 == 0), "train", types=("irony",) if i == 0 else ())
               for i, t in enumerate(train_texts)]
    records += [Record("te0", "a b", 1, "test"), Record("te1", "x", 0, "test"), Record("te2", None, 0, "test")]
    folds = (Fold(("tr0", "tr1"), ("tr2", "te0")),)
    return Dataset("toy", "en", ("not_sarcastic", "sarcastic"), records, folds, ["a warning"])


def test_counts_duplicates_overlap_and_folds():
    stats = corpus_stats(make_dataset())
    train, test = stats["splits"]["train"], stats["splits"]["test"]
    assert train["labels"] == {"not_sarcastic": 2, "sarcastic": 3} and train["sarcastic_pct"] == 60.0
    assert train["types"] == {"irony": 1}
    assert train["duplicate_texts"] == 1 and test["duplicate_texts"] == 0
    assert test["records"] == 3 and test["with_text"] == 2
    assert stats["text_overlap"] == {"train/test": 2}  # "a b" and "x"
    assert stats["folds"] == [{"fold": 1, "train": 2, "test": 2, "test_labels": {"not_sarcastic": 0, "sarcastic": 2}}]
    assert stats["warnings"] == ["a warning"]


def test_whitespace_token_percentiles_match_numpy():
    lengths = [2, 2, 3, 6, 1]
    tokens = corpus_stats(make_dataset())["splits"]["train"]["whitespace_tokens"]
    expected = np.percentile(lengths, [50, 90, 95, 99])
    assert [tokens[k] for k in ("p50", "p90", "p95", "p99")] == [round(float(v), 1) for v in expected]
    assert tokens["max"] == 6


def test_multiclass_has_no_sarcastic_share():
    dataset = Dataset("m", "en", ("a", "b", "c"), [Record("1", "t", 2, "train")])
    split = corpus_stats(dataset)["splits"]["train"]
    assert split["labels"] == {"a": 0, "b": 0, "c": 1} and "sarcastic_pct" not in split
