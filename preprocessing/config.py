"""The preprocessing settings, with the iSarcasm supplement's choices as defaults.

Apart from the pipeline that applies them (:mod:`preprocessing.pipeline`) and the
tokenizer that reads them (:mod:`preprocessing.tokenize`), so both import it and
neither the other.  Each field's ``help`` and ``choices`` also make the command
line's preprocessing options (``experiments/cli/options.py``).
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path

from .errors import IsarcasmError
from .schema import Range, from_mapping, problems


def _option(default, help: str, choices: tuple | None = None, range: Range | None = None):
    """A config field; ``help``, ``choices`` and ``range`` also drive the CLI options, and
    ``choices`` and ``range`` check a value from any source (:mod:`preprocessing.schema`)."""
    return field(default=default, metadata={"help": help, "choices": choices, "range": range})


#: The longest padded sequence a setting may ask for: beyond the longest text of any corpus here
#: (a SARC comment, under 2,000 tokens), so a larger value is a typo, refused before it sizes a matrix.
MAX_LEN = 10_000


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
    unk_min_count: int = _option(2, "Tokens seen fewer times than this become <unk>.", range=Range(1))
    max_len: int | None = _option(None, "Fixed sequence length (default: from training lengths).",
                                   range=Range(1, MAX_LEN))
    max_len_percentile: float = _option(99.0, "Percentile of training lengths used as max_len.",
                                         range=Range(0, 100, low_open=True))
    max_len_cap: int = _option(100, "Upper bound of the percentile rule.", range=Range(1, MAX_LEN))
    truncation: str = _option("pre", "Cut long texts at the start (keep the end) or at the end.", ("pre", "post"))

    def __post_init__(self):
        wrong = problems(self)  # every type, choice and range is declared once, on its field
        if wrong:
            raise IsarcasmError(wrong)

    @classmethod
    def from_dict(cls, data: dict, source: str | Path = "configuration") -> "PreprocessConfig":
        """The settings of a file (a run's preprocess.json), checked key by key against the fields'
        declarations: an unknown key or a value that could not be honoured is one line naming it."""
        return from_mapping(cls, data, source)

    @classmethod
    def given(cls, options: dict, language: str = "en") -> "PreprocessConfig":
        """The settings of the options given (a command's: None is an option left out, whose default
        applies), in ``language`` (a corpus' own) unless one is given."""
        chosen = {f.name: options[f.name] for f in fields(cls) if options.get(f.name) is not None}
        return cls(**{"language": language, **chosen})
