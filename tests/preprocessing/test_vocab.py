from __future__ import annotations

import json
from collections import Counter

import pytest

from preprocessing.errors import DataError
from preprocessing.vocab import PAD_ID, SPECIALS, UNK, UNK_ID, Vocabulary


def build(tokens: str, min_count: int = 2, scope: str | None = None) -> Vocabulary:
    return Vocabulary.build(Counter(tokens.split()), min_count, Counter(scope.split()) if scope else None)


def test_fixed_special_ids_then_words_by_count():
    vocab = build("b a a c c c <user> <user> once")
    assert vocab.tokens[:6] == ["<pad>", "<unk>", "<user>", "<number>", "<ellipsis>", "<url>"]
    assert vocab.tokens[6:] == ["c", "a"]  # count 3, then 2; "b" and "once" seen once
    assert (vocab.index("<pad>"), vocab.index(UNK)) == (PAD_ID, UNK_ID) == (0, 1)


def test_counts_fold_rare_tokens_into_unk():
    vocab = build("b a a c c c <user> <user> once")
    counts = dict(zip(vocab.tokens, vocab.counts, strict=True))
    assert counts == {"<pad>": 0, "<unk>": 2, "<user>": 2, "<number>": 0, "<ellipsis>": 0, "<url>": 0, "c": 3, "a": 2}
    assert sum(vocab.counts) == 9


def test_unknown_tokens_map_to_unk():
    vocab = build("x x y y")
    assert vocab.encode(["x", "never", "y"]) == [vocab.index("x"), UNK_ID, vocab.index("y")]
    assert vocab.with_unk(["x", "never"]) == ["x", UNK]


def test_ties_are_alphabetical_so_the_file_is_deterministic():
    assert build("z z a a m m").words == ["a", "m", "z"]


def test_min_count_one_keeps_everything():
    assert build("a b", min_count=1).words == ["a", "b"]


def test_scope_counts_decide_membership_train_counts_are_kept():
    # "t" occurs once in training but twice in the wider scope (e.g. once more in test)
    vocab = build("a a t", scope="a a t t")
    assert "t" in vocab
    assert vocab.counts[vocab.index("t")] == 1


def test_json_round_trip(tmp_path):
    vocab = build("b a a c c c <user> <user> once é é 😂 😂")
    path = tmp_path / "vocab.json"
    vocab.save(path)
    again = Vocabulary.load(path)
    assert again == vocab
    assert again.index("😂") == vocab.index("😂") and len(again) == len(vocab)


@pytest.mark.parametrize("content, problem", [
    ({"tokens": list(SPECIALS), "counts": [0] * 6}, "not an isarcasm-vocabulary/1 file"),
    ({"format": "isarcasm-vocabulary/1", "tokens": ["a"], "counts": [1]}, "malformed vocabulary"),
    ({"format": "isarcasm-vocabulary/1", "tokens": list(SPECIALS)}, "malformed vocabulary"),
])
def test_bad_vocabulary_files_are_clear_errors(tmp_path, content, problem):
    path = tmp_path / "vocab.json"
    path.write_text(json.dumps(content))
    with pytest.raises(DataError, match=f"{path}: {problem}"):
        Vocabulary.load(path)


def test_a_dropping_vocabulary_leaves_unknown_tokens_out_and_counts_none_as_unk():
    vocab = Vocabulary.build(Counter("x x y y rare".split()), 2, drops_unknown=True)
    assert vocab.encode(["x", "never", "y", "rare"]) == [vocab.index("x"), vocab.index("y")]
    assert vocab.with_unk(["never", "x"]) == ["x"]
    assert vocab.counts[UNK_ID] == 0 and sum(vocab.counts) == 4  # "rare" is read by no model: not <unk>


def test_the_file_says_a_vocabulary_drops_and_an_older_file_reads_unk(tmp_path):
    dropping = Vocabulary.build(Counter("x x".split()), 2, drops_unknown=True)
    dropping.save(tmp_path / "drop.json")
    assert Vocabulary.load(tmp_path / "drop.json").encode(["x", "never"]) == [dropping.index("x")]
    build("x x").save(tmp_path / "unk.json")
    assert "unknown" not in json.loads((tmp_path / "unk.json").read_text())  # default files stay as they were
    assert not Vocabulary.load(tmp_path / "unk.json").drops_unknown
    data = {**dropping.to_json(), "unknown": "skip"}
    with pytest.raises(DataError, match="'unknown' must be 'unk' or 'drop'"):
        Vocabulary.from_json(data, "v.json")
