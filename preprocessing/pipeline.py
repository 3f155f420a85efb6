"""Texts -> padded index sequences, fitted on the training split only.

:class:`PreprocessConfig` holds every choice, with the iSarcasm supplement's
settings as defaults (see :mod:`preprocessing.tokenize` for the token rules).
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
from dataclasses import asdict, dataclass, field, fields
from itertools import chain
from pathlib import Path
from typing import Iterable

import numpy as np

from .errors import DataError, IsarcasmError
from .fileio import read_json
from .tokenize import NormalisingTokenizer
from .vocab import PAD_ID, Vocabulary

CONFIG_FILE = "preprocess.json"
VOCAB_FILE = "vocab.json"


def _option(default, help: str, choices: tuple | None = None):
    """A config field; ``help`` and ``choices`` also drive the CLI options."""
    return field(default=default, metadata={"help": help, "choices": choices})


@dataclass(frozen=True)
class PreprocessConfig:
    language: str = _option("en", "Tokenizer language (a corpus sets its own).")
    lowercase: bool = _option(True, "Lowercase tokens (GloVe 6B is uncased).")
    unescape_html: bool = _option(True, "Unescape HTML entities such as &amp; before tokenising.")
    handles: str = _option("user", "@handles: replace by <user> or keep.", ("user", "keep"))
    urls: str = _option("url", "URLs: replace by <url>, keep, or drop.", ("url", "keep", "drop"))
    hashtags: str = _option("word", "Hashtags: keep the word without '#', keep '#word', or drop.",
                            ("word", "keep", "drop"))
    numbers: str = _option("number", "Numbers: replace by <number> or keep.", ("number", "keep"))
    ellipsis: str = _option("ellipsis", "Ellipses (.., ..., …): replace by <ellipsis> or keep.",
                            ("ellipsis", "keep"))
    keep_punct: str = _option(".!?()", "Punctuation characters kept; other punctuation-only tokens are dropped.")
    emoticons: str = _option("punctuation", "Emoticons made of punctuation (:) ;-( ^_^): drop like "
                             "punctuation, or keep.", ("punctuation", "keep"))
    emoji: str = _option("keep", "Emoji: keep or drop.", ("keep", "drop"))
    unk_scope: str = _option("train", "Count token frequencies for <unk> on the training split, or on the "
                             "whole corpus as the paper literally says (leaks test tokens).", ("train", "corpus"))
    unk_min_count: int = _option(2, "Tokens seen fewer times than this become <unk>.")
    max_len: int | None = _option(None, "Fixed sequence length (default: from training lengths).")
    max_len_percentile: float = _option(99.0, "Percentile of training lengths used as max_len.")
    max_len_cap: int = _option(100, "Upper bound of the percentile rule.")
    truncation: str = _option("pre", "Cut long texts at the start (keep the end) or at the end.", ("pre", "post"))

    def __post_init__(self):
        for f in fields(self):
            choices = f.metadata["choices"]
            value = getattr(self, f.name)
            if choices and value not in choices:
                raise IsarcasmError(f"{f.name} must be one of {', '.join(choices)}, not {value!r}")
        if self.unk_min_count < 1:
            raise IsarcasmError(f"unk_min_count must be at least 1, not {self.unk_min_count}")
        if self.max_len is not None and self.max_len < 1:
            raise IsarcasmError(f"max_len must be at least 1, not {self.max_len}")
        if not 0 < self.max_len_percentile <= 100 or self.max_len_cap < 1:
            raise IsarcasmError("max_len_percentile must be in (0, 100] and max_len_cap at least 1")

    @classmethod
    def from_dict(cls, data: dict, source: str | Path = "configuration") -> "PreprocessConfig":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise DataError.at(source, None, f"unknown preprocessing option(s) {', '.join(unknown)}")
        return cls(**data)


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
            context_texts: Iterable[str] = ()) -> "Preprocessor":
        """Build the vocabulary and ``max_len`` from ``train_texts``.

        ``extra_texts`` (the other splits) are only read when ``unk_scope`` is
        ``"corpus"``: then a token counts as rare from its frequency in the whole
        corpus, as the paper's text says; by default test tokens are never seen.
        ``context_texts``, the training texts' dialogue context, count towards
        the vocabulary but not towards ``max_len``.
        """
        return self.fit_tokens(self.tokenize(train_texts), self._extra_tokens(extra_texts),
                               self.tokenize(context_texts))

    def fit_tokens(self, train_tokens: list[list[str]], extra_tokens: list[list[str]] = (),
                   context_tokens: list[list[str]] = ()) -> "Preprocessor":
        """:meth:`fit` for texts already passed through :meth:`tokenize`."""
        if not train_tokens:
            raise IsarcasmError("cannot fit the preprocessing on an empty training split")
        train_counts = Counter(chain.from_iterable(chain(train_tokens, context_tokens)))
        scope = None
        if self.config.unk_scope == "corpus":
            scope = train_counts + Counter(chain.from_iterable(extra_tokens))
        self.vocab = Vocabulary.build(train_counts, self.config.unk_min_count, scope)
        self.max_len = max_len_for(map(len, train_tokens), self.config)
        return self

    def transform(self, texts: Iterable[str]) -> np.ndarray:
        """``int32`` array ``(n, max_len)``: token ids, padded with 0 after them."""
        return self.encode(self.tokenize(texts))

    def encode(self, token_lists: list[list[str]]) -> np.ndarray:
        """:meth:`transform` for texts already passed through :meth:`tokenize`."""
        self._require_fitted()
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
        try:
            config, max_len = state["config"], int(state["max_len"])
        except (KeyError, TypeError, ValueError):
            raise DataError.at(path, None, "expected {'config': {...}, 'max_len': N}; re-create it") from None
        preprocessor = cls(PreprocessConfig.from_dict(config, path))
        preprocessor.vocab = Vocabulary.load(directory / VOCAB_FILE)
        preprocessor.max_len = max_len
        return preprocessor

    def _require_fitted(self) -> None:
        if self.vocab is None:
            raise RuntimeError("fit the Preprocessor (or load a saved one) before transforming")
