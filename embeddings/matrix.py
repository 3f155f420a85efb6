"""The embedding matrix for a vocabulary, and how much of it the vectors cover.

Row ``i`` initialises the embedding of vocabulary id ``i``: the pre-trained
vector where there is one, zeros for padding, and a seeded random normal draw
with the pre-trained vectors' standard deviation for everything else (special
tokens and words without a vector), so random rows have the same scale as the
pre-trained ones.  The models train the whole matrix, as the paper initialises
(not freezes) with GloVe.  ``--oov-init uniform`` draws those rows from
U(-0.1, 0.1) instead, as the iSarcasm authors' code does (:func:`uniform_oov`).

Looking a word up tries, in order: the word; its lowercase form (for
``lowercase=False``); a stand-in from :data:`LOOKUP_ALIASES` for tokens the
default GloVe subset lacks.  That subset has no single letters, no apostrophe
words and no pure numbers (see the glove SOURCE.md); spaCy produces exactly
such tokens (``do n't``, ``i 'm``), and they are among the most frequent in
tweets.  The aliases map a token to a word of the same meaning that GloVe has;
ambiguous ones stay unmapped and start random: ``'s`` (is, has, or the
possessive) and ``'d`` (would or had).  Numbers never need a vector: the
default preprocessing replaces them with ``<number>``.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from preprocessing.vocab import PAD_ID, SPECIALS, Vocabulary

LOOKUP_ALIASES = {
    "n't": "not",
    "'m": "am",
    "m": "am",      # spaCy splits "im" into "i" "m"
    "'re": "are",
    "'ll": "will",
    "'ve": "have",
    "a": "an",      # the same article before a vowel
    "i": "me",      # the same pronoun, object case
    "u": "you",     # chat spelling, very frequent in tweets
}

# Standard deviation of all GloVe 6B 100-d values (measured on the default
# file); the scale of random rows when no vectors are used, so that
# ``--embeddings random`` differs from GloVe in content, not in scale.
GLOVE_STD = 0.41


@dataclass(frozen=True)
class Coverage:
    """How much of a vocabulary the vectors cover.

    Types count the vocabulary's words (the special tokens excluded: they never
    have a pre-trained vector).  Tokens count every training token, ``<unk>``
    and marker tokens included, because that is what the model reads.
    ``top_missing`` lists the most frequent words without a vector.
    """

    types_found: int
    types_total: int
    tokens_found: int
    tokens_total: int
    source: str | None = None
    top_missing: tuple[str, ...] = ()

    @property
    def type_pct(self) -> float:
        return 100.0 * self.types_found / self.types_total if self.types_total else 0.0

    @property
    def token_pct(self) -> float:
        return 100.0 * self.tokens_found / self.tokens_total if self.tokens_total else 0.0

    def __str__(self) -> str:
        return (
            (f"{self.source}: " if self.source else "")
            + f"vectors for {self.types_found:,} of {self.types_total:,} vocabulary words "
            f"({self.type_pct:.1f}%), {self.token_pct:.1f}% of training tokens"
        )

    def to_json(self) -> dict:
        return {**asdict(self), "type_pct": round(self.type_pct, 2), "token_pct": round(self.token_pct, 2)}


def lookup_key(token: str, vectors) -> str | None:
    """The key under which ``vectors`` hold a vector for ``token``, if any."""
    lower = token.lower()
    for key in (token, lower, LOOKUP_ALIASES.get(lower)):
        if key is not None and key in vectors.key_to_index:
            return key
    return None


def embedding_matrix(vocab: Vocabulary, vectors=None, dim: int = 100, seed: int = 0,
                     source: str | None = None, missing: int = 10) -> tuple[np.ndarray, Coverage]:
    """``float32`` matrix ``(len(vocab), dim)`` and its :class:`Coverage`.

    ``vectors`` is a gensim ``KeyedVectors`` or ``None`` (random init); with
    vectors, ``dim`` is theirs.  ``source`` names the vectors in the coverage
    line; ``missing`` is how many words without a vector it lists.
    """
    if vectors is not None:
        dim = vectors.vector_size
        std = float(np.std(vectors.vectors, dtype=np.float64))
    else:
        std = GLOVE_STD
    rng = np.random.default_rng(seed)
    matrix = rng.normal(0.0, std, size=(len(vocab), dim)).astype(np.float32)
    matrix[PAD_ID] = 0.0
    found_types = found_tokens = 0
    not_found = []
    for index, token in enumerate(vocab.words, start=len(SPECIALS)):
        key = None if vectors is None else lookup_key(token, vectors)
        if key is None:
            not_found.append(token)  # vocabulary words come in decreasing training count
            continue
        matrix[index] = vectors[key]
        found_types += 1
        found_tokens += vocab.counts[index]
    coverage = Coverage(
        types_found=found_types,
        types_total=len(vocab.words),
        tokens_found=found_tokens,
        tokens_total=sum(vocab.counts),
        source=source or ("random" if vectors is None else None),
        top_missing=tuple(not_found[:missing]) if vectors is not None else (),
    )
    return matrix, coverage


#: The iSarcasm authors' rows for words without a GloVe vector: U(-OOV_UNIFORM, OOV_UNIFORM)
#: (their code: docs/protocol.md's sources).
OOV_UNIFORM = 0.1


def uniform_oov(matrix: np.ndarray, vocab: Vocabulary, vectors=None, seed: int = 0) -> np.ndarray:
    """``matrix`` (from :func:`embedding_matrix`) with every row that has no pre-trained vector drawn
    from U(-0.1, 0.1) with ``seed`` instead (``--oov-init uniform``): the special tokens but padding,
    which never have one, and the words :func:`lookup_key` finds nothing for (every word when
    ``vectors`` is None).  Rows with a vector, and padding's zeros, are kept."""
    rows = [index for index, token in enumerate(vocab.tokens) if index != PAD_ID and (
        index < len(SPECIALS) or vectors is None or lookup_key(token, vectors) is None)]
    out = matrix.copy()
    out[rows] = np.random.default_rng(seed).uniform(-OOV_UNIFORM, OOV_UNIFORM, size=(len(rows), matrix.shape[1]))
    return out
