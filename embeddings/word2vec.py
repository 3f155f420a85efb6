"""Word2Vec vectors trained on a run's training split (``--embeddings word2vec``).

GloVe 6B is English; for Chinese and Korean there is no pre-trained file in
the data catalog, so the initial embedding matrix can instead come from
gensim's Word2Vec trained on the training split's normalised tokens, and on
nothing else: validation and test texts never shape the vectors, as they
never shape the vocabulary.  The vectors only initialise the matrix (the
models train it further), as GloVe does.

Deterministic for a seed: gensim is exactly reproducible only with one worker
thread (several threads interleave their updates) and a fixed hash seed;
Python's string hash is salted per process, so a stable hash replaces it.
"""
from __future__ import annotations

import zlib

DIM = 100  # the GloVe dimension, so models see the same shapes with either
EPOCHS = 5  # gensim's default; the vectors only start the training
WINDOW = 5
MIN_COUNT = 1  # every vocabulary word (2+ training occurrences) gets a vector


def _stable_hash(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


def train_word2vec(token_lists: list[list[str]], seed: int, dim: int = DIM, epochs: int = EPOCHS):
    """gensim ``KeyedVectors`` (skip-gram off: CBOW, gensim's default) trained on ``token_lists``."""
    from gensim.models import Word2Vec  # gensim: only when vectors are parsed or trained

    sentences = [tokens for tokens in token_lists if tokens]
    model = Word2Vec(sentences=sentences, vector_size=dim, window=WINDOW, min_count=MIN_COUNT,
                     workers=1, seed=seed, epochs=epochs, hashfxn=_stable_hash)
    return model.wv
