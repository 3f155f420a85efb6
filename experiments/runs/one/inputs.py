"""Turning texts into the inputs a model asks for, identically at train and test time.

A model's spec names its inputs (``tokens``, and ``lexicon`` for Dense-LSTM);
a run with ``--context last|all`` adds ``context``, the dialogue turns before
the text.
:class:`ModelInputs` is fitted on training texts only and saved in the run
directory, so evaluation on another corpus sees new text exactly as a deployed
model would (unseen words become ``<unk>``, lexicon features are scaled with
the training statistics).
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from experiments.runs.one.protocol import TrainConfig
from experiments.runs.one.store import INPUTS, inputs_file
from preprocessing.config import PreprocessConfig
from preprocessing.errors import DataError
from preprocessing.fileio import read_json
from preprocessing.lexicons import LexiconFeaturizer, tweet_tokens
from preprocessing.pipeline import Preprocessor, max_len_for
from preprocessing.schema import checked
from preprocessing.vocab import PAD_ID


def context_text(turns: tuple[str, ...] | list[str], mode: str) -> str:
    """The context a model reads: ``last`` the turn just before the text, ``all``
    every turn in order (joined; the most recent are kept when it is too long)."""
    if mode == "last":
        return turns[-1] if turns else ""
    return " ".join(turns)


@dataclass(frozen=True)
class FitTexts:
    """What inputs are fitted on: the training texts, their dialogue turns (one tuple per text, for
    ``context`` last/all), and ``extra`` texts whose words join the vocabulary though nothing is
    trained on them (``--unk-scope corpus``; ``drop_rare``: the iSarcasm authors' vocabulary,
    ``--vocabulary all-splits-drop``, see :meth:`Preprocessor.fit`)."""

    texts: list[str]
    contexts: list[tuple[str, ...]] | None = None
    extra: list[str] | None = None
    drop_rare: bool = False


class ModelInputs:
    def __init__(self, preprocessor: Preprocessor, input_names: tuple[str, ...], data_dir: Path | None = None,
                 context: str = "none"):
        self.preprocessor = preprocessor
        self.input_names = tuple(input_names) + (("context",) if context != "none" else ())
        self.data_dir = data_dir
        self.context = context
        self.context_len = 0
        self._lexicons = None
        self.lexicon_mean: np.ndarray | None = None
        self.lexicon_std: np.ndarray | None = None

    @classmethod
    def fit(cls, config: PreprocessConfig, input_names, training: FitTexts, data_dir: Path, context: str = "none",
            lexicons=None) -> "ModelInputs":
        """Fit on the training split: ``training.contexts`` is needed when ``context`` is ``last`` or
        ``all``; its words join the vocabulary and its lengths set ``context_len`` (the same
        percentile rule as ``max_len``).  ``lexicons``: a loaded LexiconFeaturizer (a run on
        another machine gets it from the driver), else read from ``data_dir`` when needed."""
        train_texts = training.texts
        contexts = [context_text(turns, context) for turns in training.contexts or ()] if context != "none" else []
        preprocessor = Preprocessor(config).fit(train_texts, training.extra, contexts, training.drop_rare)
        inputs = cls(preprocessor, input_names, data_dir, context)
        inputs._lexicons = lexicons
        if contexts:
            lengths = map(len, preprocessor.tokenize(contexts))
            inputs.context_len = max_len_for(lengths, replace(config, max_len=None))  # a fixed --max-len is the text's
        elif context != "none":
            inputs.context_len = 1  # no training context at all: one padding step the encoders ignore
        if "lexicon" in inputs.input_names:
            raw = inputs._lexicon_features(train_texts)
            inputs.lexicon_mean = raw.mean(axis=0)
            inputs.lexicon_std = np.where(raw.std(axis=0) > 0, raw.std(axis=0), 1.0)
        return inputs

    @property
    def lexicon_dim(self) -> int:
        return 0 if self.lexicon_mean is None else int(self.lexicon_mean.shape[0])

    def build(self, texts: list[str], contexts: list[tuple[str, ...]] | None = None,
              first: int | None = None) -> dict[str, np.ndarray]:
        """The model's input dict for these texts (and their context turns; none given: empty contexts).
        ``first``: the token ids read only each text's first N tokens (``--cut-train-tokens``; the
        lexicon features and the context still read all of it)."""
        result = {"tokens": self.preprocessor.transform(texts, first)}
        if "lexicon" in self.input_names:
            raw = self._lexicon_features(texts)
            result["lexicon"] = ((raw - self.lexicon_mean) / self.lexicon_std).astype("float32")
        if self.context != "none":
            result["context"] = self._encode_context(contexts if contexts is not None else [()] * len(texts))
        return result

    def _encode_context(self, contexts: list[tuple[str, ...]]) -> np.ndarray:
        """``(n, context_len)`` ids, the most recent words kept, padded after them."""
        tokens = self.preprocessor.tokenize([context_text(turns, self.context) for turns in contexts])
        out = np.full((len(tokens), self.context_len), PAD_ID, dtype=np.int32)
        for row, words in enumerate(tokens):
            ids = self.preprocessor.vocab.encode(words)[-self.context_len:] if words else []
            out[row, :len(ids)] = ids
        return out

    def _lexicon_features(self, texts: list[str]) -> np.ndarray:
        if self._lexicons is None:
            self._lexicons = LexiconFeaturizer.from_data_dir(self.data_dir)
        return self._lexicons.transform(tweet_tokens(texts))

    def save(self, directory: Path) -> None:
        self.preprocessor.save(directory)
        meta = {"inputs": list(self.input_names), "context": self.context, "context_len": self.context_len}
        if self.lexicon_mean is not None:
            meta.update(mean=self.lexicon_mean.tolist(), std=self.lexicon_std.tolist())
        (directory / INPUTS).write_text(json.dumps(meta))

    @classmethod
    def load(cls, directory: Path, data_dir: Path) -> "ModelInputs":
        meta = _inputs_meta(inputs_file(directory))
        names = tuple(name for name in meta["inputs"] if name != "context")
        inputs = cls(Preprocessor.load(directory), names, data_dir, meta["context"])
        inputs.context_len = meta["context_len"]
        if "mean" in meta:
            inputs.lexicon_mean = np.asarray(meta["mean"], dtype="float32")
            inputs.lexicon_std = np.asarray(meta["std"], dtype="float32")
        return inputs

    def describe(self) -> dict:
        return {"preprocess": asdict(self.preprocessor.config), "inputs": list(self.input_names),
                "vocab_size": len(self.preprocessor.vocab), "max_len": self.preprocessor.max_len,
                **({"context": self.context, "context_len": self.context_len} if self.context != "none" else {})}


def _inputs_meta(path: Path) -> dict:
    """A run's inputs.json, checked: input names (strings, each once), the ``context`` setting (one of
    TrainConfig's choices), ``context_len`` (a padded length, as PreprocessConfig's ``max_len`` but
    0 without context) and the lexicon scaling (finite numbers, one mean and one positive std per
    feature).  Anything else is one line naming the file and key: a damaged run, never a traceback
    nor a matrix sized by a huge number."""
    meta = read_json(path)
    if not isinstance(meta, dict):
        raise DataError.at(path, None, f"expected a JSON object, not {type(meta).__name__}; train the run again")
    names = meta.get("inputs")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
        raise DataError.at(path, None, f"inputs must be a list of distinct input names, not {names!r}")
    context = checked(TrainConfig, "context", meta.get("context", "none"), path)
    length = meta.get("context_len", 0)
    if length != 0:
        checked(PreprocessConfig, "max_len", length, path, "context_len")
    if ("mean" in meta) != ("std" in meta):
        raise DataError.at(path, None, "holds one of mean and std without the other")
    if "mean" in meta:
        _scaling(path, "mean", meta["mean"], positive=False)
        if len(_scaling(path, "std", meta["std"], positive=True)) != len(meta["mean"]):
            raise DataError.at(path, None, f"{len(meta['mean'])} means but {len(meta['std'])} stds")
    return {**meta, "inputs": names, "context": context, "context_len": length}


def _scaling(path: Path, key: str, values, positive: bool) -> list:
    """A lexicon scaling list: finite numbers (positive ones for ``std``)."""
    numbers = isinstance(values, list) and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                               and math.isfinite(v) and (v > 0 or not positive) for v in values)
    if not numbers:
        kind = "positive finite numbers" if positive else "finite numbers"
        raise DataError.at(path, None, f"{key} must be a list of {kind}; train the run again")
    return values
