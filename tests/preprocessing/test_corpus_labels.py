"""A command's corpora are named by labels no two of them share (issue 32: a file named by its stem
alone replaced another file's column, or Riloff's)."""
import pytest

from preprocessing.corpora import corpus_labels
from preprocessing.errors import IsarcasmError


def test_a_file_alone_is_its_stem_and_a_corpus_its_name():
    assert corpus_labels(["isarcasm", "data/mine.csv.gz"]) == {"isarcasm": "isarcasm", "data/mine.csv.gz": "mine"}


def test_files_sharing_a_stem_take_the_shortest_end_of_their_paths_that_differs():
    labels = corpus_labels(["x/a/sub.csv", "y/b/sub.csv", "other.csv"])
    assert labels == {"x/a/sub.csv": "a/sub", "y/b/sub.csv": "b/sub", "other.csv": "other"}
    deeper = corpus_labels(["/p/q/sub.csv", "/r/q/sub.csv"])
    assert deeper == {"/p/q/sub.csv": "p/q/sub", "/r/q/sub.csv": "r/q/sub"}


def test_files_differing_only_in_their_format_keep_their_whole_names():
    assert corpus_labels(["/d/sub.csv", "/d/sub.tsv"]) == {"/d/sub.csv": "d/sub.csv", "/d/sub.tsv": "d/sub.tsv"}


def test_a_file_named_like_a_registered_corpus_is_qualified_even_alone():
    assert corpus_labels(["/home/me/riloff.csv"]) == {"/home/me/riloff.csv": "me/riloff"}
    assert corpus_labels(["riloff", "/home/me/riloff.csv"])["riloff"] == "riloff"


def test_labels_are_unique_whatever_the_paths(tmp_path):
    names = [str(tmp_path / folder / f"sub.{ext}") for folder in ("a", "b", "a/b", "x/a") for ext in ("csv", "tsv")]
    labels = corpus_labels(names)
    assert len(set(labels.values())) == len(names)


def test_the_same_corpus_or_file_twice_is_refused(tmp_path):
    with pytest.raises(IsarcasmError, match="given twice"):
        corpus_labels([str(tmp_path / "a.csv"), str(tmp_path / "." / "a.csv")])
    with pytest.raises(IsarcasmError, match="given twice"):
        corpus_labels(["riloff", "riloff"])
