"""Texts -> padded index sequences, fitted on the training split only.

:class:`~preprocessing.config.PreprocessConfig` holds every choice, with the iSarcasm
supplement's settings as defaults (see :mod:`preprocessing.tokenize` for the token rules).
:class:`Preprocessor` tokenises, builds the vocabulary from training texts,
chooses ``max_len`` from the training lengths, and turns texts into an
``int32`` matrix padded with 0.  ``save``/``load`` keep the vocabulary and the
configuration next to a model, so it can be applied to new text later.

Two rules the paper leaves open:

- ``max_len``: the ``max_len_percentile`` (99) percentile of the training
  texts' token counts, rounded up, capped at ``max_len_cap`` (100), at least 1.
  At most 1% of training texts are cut, while a few very long texts (Reddit
  comments in SARC) do not blow up the padded length, which costs quadratically
  in the intra-attention models.  ``max_len`` set explicitly overrides the rule.
- truncation keeps the *end* of a long text (``truncation="pre"``, the default
  of ``keras.utils.pad_sequences``, which the Keras baselines of the time used);
  sarcasm cues often close a tweet (a final emoji or hashtag).  ``"post"`` keeps
  the beginning.  Padding is always after the tokens: Keras' cuDNN LSTM needs
  right-padded masks, and the models read the last state of the real tokens.
"""
from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import asdict
from itertools import chain
from pathlib import Path
from typing import Iterable

import numpy as np

from .config import PreprocessConfig
from .errors import DataError, IsarcasmError
from .fileio import read_json
from .limits import check_memory
from .schema import checked
from .tokenize import NormalisingTokenizer
from .vocab import PAD_ID, Vocabulary

CONFIG_FILE = "preprocess.json"
VOCAB_FILE = "vocab.json"


def max_len_for(lengths: Iterable[int], config: PreprocessConfig) -> int:
    """The padded length: fixed, or the percentile rule described above."""
    if config.max_len is not None:
        return config.max_len
    lengths = list(lengths)
    if not lengths:
        return 1
    percentile = math.ceil(float(np.percentile(lengths, config.max_len_percentile)))
    return max(1, min(config.max_len_cap, percentile))


class Preprocessor:
    """Fit on training texts, then map any text to a padded row of token ids."""

    def __init__(self, config: PreprocessConfig | None = None):
        self.config = config or PreprocessConfig()
        self.vocab: Vocabulary | None = None
        self.max_len: int | None = None
        self._tokenizer: NormalisingTokenizer | None = None

    def tokenize(self, texts: Iterable[str]) -> list[list[str]]:
        """Normalised tokens (before ``<unk>`` replacement), batched through spaCy."""
        if self._tokenizer is None:
            self._tokenizer = NormalisingTokenizer(self.config)
        return self._tokenizer(texts)

    def fit(self, train_texts: Iterable[str], extra_texts: Iterable[str] | None = None,
            context_texts: Iterable[str] = (), drop_rare: bool = False) -> "Preprocessor":
        """Build the vocabulary and ``max_len`` from ``train_texts``.

        ``extra_texts`` (the other splits) are only read when ``unk_scope`` is
        ``"corpus"``: then a token counts as rare from its frequency in the whole
        corpus, as the paper's text says; by default test tokens are never seen.
        ``context_texts``, the training texts' dialogue context, count towards
        the vocabulary but not towards ``max_len``.  ``drop_rare`` (the iSarcasm authors'
        vocabulary): ``extra_texts`` count whatever ``unk_scope`` says, and a rare token is
        left out of every text rather than read as ``<unk>``.
        """
        extra = self.tokenize(extra_texts or ()) if drop_rare else self._extra_tokens(extra_texts)
        return self.fit_tokens(self.tokenize(train_texts), extra, self.tokenize(context_texts), drop_rare)

    def fit_tokens(self, train_tokens: list[list[str]], extra_tokens: list[list[str]] = (),
                   context_tokens: list[list[str]] = (), drop_rare: bool = False) -> "Preprocessor":
        """:meth:`fit` for texts already passed through :meth:`tokenize`."""
        if not train_tokens:
            raise IsarcasmError("cannot fit the preprocessing on an empty training split")
        train_counts = Counter(chain.from_iterable(chain(train_tokens, context_tokens)))
        scope = None
        if self.config.unk_scope == "corpus" or drop_rare:
            scope = train_counts + Counter(chain.from_iterable(extra_tokens))
        self.vocab = Vocabulary.build(train_counts, self.config.unk_min_count, scope, drop_rare)
        self.max_len = max_len_for(map(len, train_tokens), self.config)
        return self

    def transform(self, texts: Iterable[str], first: int | None = None) -> np.ndarray:
        """``int32`` array ``(n, max_len)``: token ids, padded with 0 after them.  ``first``: only
        each text's first N tokens are read (``--cut-train-tokens``; before any rare one is dropped)."""
        return self.encode([tokens[:first] for tokens in self.tokenize(texts)])

    def encode(self, token_lists: list[list[str]]) -> np.ndarray:
        """:meth:`transform` for texts already passed through :meth:`tokenize`."""
        self._require_fitted()
        check_memory(f"the padded token ids of {len(token_lists):,} texts at max_len {self.max_len:,}",
                     4 * len(token_lists) * self.max_len, "lower --max-len")
        out = np.full((len(token_lists), self.max_len), PAD_ID, dtype=np.int32)
        for row, tokens in enumerate(token_lists):
            ids = self.truncate(self.vocab.encode(tokens))
            out[row, : len(ids)] = ids
        return out

    def truncate(self, sequence: list) -> list:
        """The part of a sequence that fits in ``max_len`` (see ``truncation``)."""
        return sequence[-self.max_len:] if self.config.truncation == "pre" else sequence[: self.max_len]

    def model_tokens(self, token_lists: list[list[str]]) -> list[list[str]]:
        """Tokens as the model sees them: ``<unk>`` applied, truncated to ``max_len``."""
        self._require_fitted()
        return [self.truncate(self.vocab.with_unk(tokens)) for tokens in token_lists]

    def fit_transform(self, train_texts: Iterable[str], extra_texts: Iterable[str] | None = None) -> np.ndarray:
        tokens = self.tokenize(train_texts)
        return self.fit_tokens(tokens, self._extra_tokens(extra_texts)).encode(tokens)

    def _extra_tokens(self, extra_texts: Iterable[str] | None) -> list[list[str]]:
        """The other splits' tokens, read only when they count for ``<unk>``."""
        if extra_texts is None or self.config.unk_scope != "corpus":
            return []
        return self.tokenize(extra_texts)

    def save(self, directory: Path) -> None:
        """Write ``vocab.json`` and ``preprocess.json`` (config and max_len)."""
        self._require_fitted()
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self.vocab.save(directory / VOCAB_FILE)
        state = {"config": asdict(self.config), "max_len": self.max_len}
        (directory / CONFIG_FILE).write_text(json.dumps(state, indent=2), encoding="utf-8")

    @classmethod
    def load(cls, directory: Path) -> "Preprocessor":
        directory = Path(directory)
        path = directory / CONFIG_FILE
        state = read_json(path)
        if not isinstance(state, dict) or set(state) != {"config", "max_len"}:
            raise DataError.at(path, None, "expected {'config': {...}, 'max_len': N}; re-create it")
        max_len = checked(PreprocessConfig, "max_len", state["max_len"], path)  # the fitted length: a max_len
        preprocessor = cls(PreprocessConfig.from_dict(state["config"], f"{path}: config"))
        preprocessor.vocab = Vocabulary.load(directory / VOCAB_FILE)
        preprocessor.max_len = max_len
        return preprocessor

    def _require_fitted(self) -> None:
        if self.vocab is None:
            raise RuntimeError("fit the Preprocessor (or load a saved one) before transforming")
