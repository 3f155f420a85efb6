"""The preprocessing settings, with the iSarcasm supplement's choices as defaults.

Apart from the pipeline that applies them (:mod:`preprocessing.pipeline`) and the
tokenizer that reads them (:mod:`preprocessing.tokenize`), so both import it and
neither the other.  Each field's ``help`` and ``choices`` also make the command
line's preprocessing options (``experiments/cli/options.py``).
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path

from .errors import DataError, IsarcasmError


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
