from __future__ import annotations

import json
from dataclasses import asdict

import numpy as np
import pytest

from preprocessing.config import PreprocessConfig
from preprocessing.errors import DataError, IsarcasmError
from preprocessing.pipeline import Preprocessor, max_len_for
from preprocessing.vocab import PAD_ID, UNK_ID

TRAIN = ["I love Mondays", "I love rain", "so fun", "so fun", "sunshine at last"]
TEST = ["I love tests", "tests tests"]  # "tests" occurs only here


def test_unk_counted_on_train_only_by_default():
    pre = Preprocessor().fit(TRAIN, extra_texts=TEST)
    assert "tests" not in pre.vocab  # test-only, even though it appears three times there
    assert "sunshine" not in pre.vocab  # seen once in training
    assert {"i", "love", "so", "fun"} <= set(pre.vocab.tokens)
    ids = pre.transform(["I love tests"])[0]
    assert list(ids[:3]) == [pre.vocab.index("i"), pre.vocab.index("love"), UNK_ID]


def test_unk_scope_corpus_counts_every_split_as_the_paper_says():
    pre = Preprocessor(PreprocessConfig(unk_scope="corpus")).fit(TRAIN, extra_texts=TEST)
    assert "tests" in pre.vocab
    assert pre.vocab.counts[pre.vocab.index("tests")] == 0  # still no *training* occurrence


def test_transform_pads_with_zero_after_the_tokens():
    pre = Preprocessor(PreprocessConfig(max_len=5)).fit(TRAIN)
    out = pre.transform(["so fun", ""])
    assert out.dtype == np.int32 and out.shape == (2, 5)
    assert list(out[0]) == [pre.vocab.index("so"), pre.vocab.index("fun"), PAD_ID, PAD_ID, PAD_ID]
    assert not out[1].any()


@pytest.mark.parametrize("truncation, kept", [("pre", ["c", "d"]), ("post", ["a", "b"])])
def test_truncation_side(truncation, kept):
    pre = Preprocessor(PreprocessConfig(max_len=2, truncation=truncation)).fit(["a b c d"] * 2)
    assert list(pre.transform(["a b c d"])[0]) == [pre.vocab.index(t) for t in kept]
    assert pre.model_tokens(pre.tokenize(["a b c d"])) == [kept]


def test_max_len_rule_is_a_capped_percentile_of_training_lengths():
    config = PreprocessConfig()  # 99th percentile, cap 100
    assert max_len_for([10] * 99 + [50], config) == 11  # 10 + 0.01 * (50 - 10) = 10.4, rounded up
    assert max_len_for([10] * 100, config) == 10
    assert max_len_for([500] * 10, config) == 100
    assert max_len_for([0, 0], config) == 1
    assert max_len_for([3, 900], PreprocessConfig(max_len=7)) == 7
    assert max_len_for([1, 2, 3, 4], PreprocessConfig(max_len_percentile=50)) == 3


def test_fitted_max_len_comes_from_training_texts():
    pre = Preprocessor().fit(["one two three"] * 3 + ["one"] * 97)
    assert pre.max_len == 3


def test_save_and_load_reuse_the_vocabulary_on_new_text(tmp_path):
    config = PreprocessConfig(numbers="keep", max_len=6)
    pre = Preprocessor(config).fit(TRAIN)
    pre.save(tmp_path)
    assert {p.name for p in tmp_path.iterdir()} == {"vocab.json", "preprocess.json"}
    loaded = Preprocessor.load(tmp_path)
    assert loaded.config == config and loaded.max_len == 6 and loaded.vocab == pre.vocab
    new = ["I love brand new words", "so fun 2019"]
    assert np.array_equal(loaded.transform(new), pre.transform(new))
    assert json.loads((tmp_path / "preprocess.json").read_text())["config"] == asdict(config)


def test_load_rejects_unknown_options(tmp_path):
    Preprocessor().fit(TRAIN).save(tmp_path)
    state = json.loads((tmp_path / "preprocess.json").read_text())
    state["config"]["stemming"] = True
    (tmp_path / "preprocess.json").write_text(json.dumps(state))
    with pytest.raises(DataError, match="unknown setting.*stemming"):
        Preprocessor.load(tmp_path)


def test_load_missing_directory_is_a_clear_error(tmp_path):
    with pytest.raises(DataError, match="preprocess.json: file not found"):
        Preprocessor.load(tmp_path / "nowhere")


def test_fit_transform_equals_fit_then_transform():
    a = Preprocessor().fit_transform(TRAIN)
    b = Preprocessor().fit(TRAIN).transform(TRAIN)
    assert np.array_equal(a, b)


def test_empty_training_split_is_a_clear_error():
    with pytest.raises(IsarcasmError, match="empty training split"):
        Preprocessor().fit([])


def test_config_is_json_serialisable_with_paper_defaults():
    config = asdict(PreprocessConfig())
    assert json.loads(json.dumps(config)) == config
    assert config["unk_min_count"] == 2 and config["keep_punct"] == ".!?()"
    assert (config["handles"], config["numbers"], config["ellipsis"]) == ("user", "number", "ellipsis")


def test_real_isarcasmeval_train_split(real_data_dir):
    from preprocessing.corpora import load_corpus

    dataset = load_corpus("isarcasmeval", real_data_dir)
    texts = [r.text for r in dataset.split("train")]
    pre = Preprocessor().fit(texts)
    counts = dict(zip(pre.vocab.tokens, pre.vocab.counts, strict=True))
    total = sum(counts.values())
    assert 30 <= pre.max_len <= 80  # tweets: 99th percentile of ~20-token texts
    assert counts["<unk>"] / total < 0.15 and counts["<user>"] > 100 and counts["<number>"] > 10
    assert {"love", "n't", "!", "(", "😂"} <= set(pre.vocab.tokens)
    assert pre.transform(texts).shape == (len(texts), pre.max_len)


def test_drop_rare_counts_every_split_and_drops_rare_words_from_every_text():
    """The iSarcasm authors' vocabulary (--vocabulary all-splits-drop): whatever unk_scope says."""
    pre = Preprocessor().fit(TRAIN, extra_texts=TEST, drop_rare=True)
    assert "tests" in pre.vocab and "sunshine" not in pre.vocab and "mondays" not in pre.vocab
    assert pre.max_len == 3
    assert list(pre.transform(["sunshine I Mondays tests"])[0]) == [pre.vocab.index("i"), pre.vocab.index("tests"),
                                                                   PAD_ID]
    assert [UNK_ID] not in pre.transform(TRAIN + TEST).tolist()
    assert pre.model_tokens([["sunshine", "so", "fun"]]) == [["so", "fun"]]


def test_first_reads_only_each_texts_first_tokens_and_the_default_all():
    pre = Preprocessor().fit(TRAIN)
    assert np.array_equal(pre.transform(TRAIN, first=None), pre.encode(pre.tokenize(TRAIN)))
    assert list(pre.transform(["so fun I love"], first=2)[0][:3]) == [pre.vocab.index("so"), pre.vocab.index("fun"),
                                                                      PAD_ID]
