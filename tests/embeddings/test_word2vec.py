"""Word2Vec initialisation (embeddings/word2vec.py) and its hook into the run (embeddings/vectors.py)."""
from __future__ import annotations

import numpy as np
import pytest

from embeddings.vectors import initial_vectors, load_vectors_report, vectors_path
from embeddings.word2vec import train_word2vec
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.one.training import data_files
from preprocessing.errors import IsarcasmError

TRAIN = [["我", "很", "好"], ["你", "很", "好", "!"], ["今", "天", "好"]] * 10


def test_same_seed_same_vectors():
    first, second = train_word2vec(TRAIN, seed=3), train_word2vec(TRAIN, seed=3)
    assert first.index_to_key == second.index_to_key
    np.testing.assert_array_equal(first.vectors, second.vectors)
    assert not np.array_equal(first.vectors, train_word2vec(TRAIN, seed=4).vectors)


def test_vocabulary_is_the_training_tokens():
    kv = train_word2vec(TRAIN + [[]], seed=0)
    assert kv.vector_size == 100
    assert set(kv.key_to_index) == {t for tokens in TRAIN for t in tokens}


def test_initial_vectors_train_on_training_tokens_only(tmp_path):
    test_only = ["测", "试"]
    calls = []

    def train_tokens():
        calls.append(1)
        return TRAIN

    kv = initial_vectors("word2vec", tmp_path, train_tokens, seed=0)
    assert calls == [1] and "好" in kv.key_to_index
    assert not any(t in kv.key_to_index for t in test_only)
    assert initial_vectors("random", tmp_path, train_tokens, seed=0) is None
    assert calls == [1]  # other specs never tokenise


def test_no_file_for_word2vec(tmp_path):
    assert vectors_path("word2vec", tmp_path) is None
    assert data_files("tosarcasm", tmp_path, TrainConfig(embeddings="word2vec")) == \
        data_files("tosarcasm", tmp_path, TrainConfig(embeddings="random"))
    with pytest.raises(IsarcasmError, match="trained by each run"):
        load_vectors_report("word2vec", tmp_path)


def test_variant_name():
    assert TrainConfig(embeddings="word2vec").variant() == "embeddings-word2vec"
