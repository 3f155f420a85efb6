"""The vocabulary: token <-> index, with fixed ids for the special tokens.

Ids 0-5 are always ``<pad>``, ``<unk>``, ``<user>``, ``<number>``,
``<ellipsis>``, ``<url>`` (padding must be 0 for Keras masking; fixed marker ids
make vocabularies of different corpora line up).  The markers are present even
when an option keeps, say, numbers as words, so the layout never changes.
Words follow in order of decreasing training count (ties alphabetical), which
makes the file deterministic and easy to read.

``counts`` holds how often each entry occurs in the *training* tokens, with
``<unk>`` counting every training token that was replaced by it; the embedding
coverage report ("% of training tokens with a vector") reads it.

A vocabulary that ``drops_unknown`` (the iSarcasm authors' rule, ``--vocabulary
all-splits-drop``) leaves a token it lacks out of the text instead of reading it as
``<unk>``; its file says so, so a saved model reads new text the same way.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .errors import DataError
from .fileio import read_json

PAD, UNK, USER, NUMBER, ELLIPSIS, URL = "<pad>", "<unk>", "<user>", "<number>", "<ellipsis>", "<url>"
SPECIALS = (PAD, UNK, USER, NUMBER, ELLIPSIS, URL)
PAD_ID, UNK_ID = 0, 1
FORMAT = "isarcasm-vocabulary/1"
#: The file's key saying what a token the vocabulary lacks becomes: "unk" (absent: every file before it) or "drop".
UNKNOWN_KEY = "unknown"


@dataclass
class Vocabulary:
    tokens: list[str]
    counts: list[int]
    drops_unknown: bool = False
    _ids: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if tuple(self.tokens[: len(SPECIALS)]) != SPECIALS:
            raise ValueError(f"a vocabulary starts with {SPECIALS}")
        if len(self.counts) != len(self.tokens):
            raise ValueError("one count per token")
        self._ids = {token: i for i, token in enumerate(self.tokens)}
        if len(self._ids) != len(self.tokens):
            raise ValueError("duplicate tokens in the vocabulary")

    @classmethod
    def build(cls, train_counts: Counter, min_count: int = 2, scope_counts: Counter | None = None,
              drops_unknown: bool = False) -> "Vocabulary":
        """Keep the tokens seen at least ``min_count`` times in ``scope_counts``
        (the training counts unless given); every other token becomes ``<unk>``, or, with
        ``drops_unknown``, is left out of the texts (so ``<unk>`` counts none of them)."""
        scope = train_counts if scope_counts is None else scope_counts
        words = sorted(
            (t for t, n in scope.items() if n >= min_count and t not in SPECIALS),
            key=lambda t: (-train_counts[t], -scope[t], t),
        )
        kept = set(words) | set(SPECIALS)
        unk = 0 if drops_unknown else sum(n for t, n in train_counts.items() if t not in kept)
        specials = [0, train_counts[UNK] + unk, *(train_counts[t] for t in SPECIALS[2:])]
        return cls(list(SPECIALS) + words, specials + [train_counts[t] for t in words], drops_unknown)

    def __len__(self) -> int:
        return len(self.tokens)

    def __contains__(self, token: str) -> bool:
        return token in self._ids

    def index(self, token: str) -> int:
        """The token's id; ``<unk>``'s id for a token not in the vocabulary."""
        return self._ids.get(token, UNK_ID)

    def encode(self, tokens: list[str]) -> list[int]:
        get = self._ids.get
        return [get(t, UNK_ID) for t in self.kept(tokens)]

    def with_unk(self, tokens: list[str]) -> list[str]:
        """The tokens as a model sees them: unknown ones replaced by ``<unk>`` (or left out)."""
        return [t if t in self._ids else UNK for t in self.kept(tokens)]

    def kept(self, tokens: list[str]) -> list[str]:
        """The tokens a text keeps: all, or, when the vocabulary ``drops_unknown``, those it holds."""
        return [t for t in tokens if t in self._ids] if self.drops_unknown else tokens

    @property
    def words(self) -> list[str]:
        """The entries after the special tokens."""
        return self.tokens[len(SPECIALS):]

    def to_json(self) -> dict:
        dropping = {UNKNOWN_KEY: "drop"} if self.drops_unknown else {}  # absent: <unk>, as every earlier file
        return {"format": FORMAT, "tokens": self.tokens, "counts": self.counts, **dropping}

    @classmethod
    def from_json(cls, data: dict, source: str | Path = "vocabulary") -> "Vocabulary":
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise DataError.at(source, None, f"not an {FORMAT} file; re-create it by training or fitting again")
        tokens, counts = data.get("tokens"), data.get("counts")
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
            raise DataError.at(source, None, "malformed vocabulary ('tokens' must be a list of strings); re-create it")
        if not isinstance(counts, list) or not all(type(n) is int and n >= 0 for n in counts):
            raise DataError.at(source, None, "malformed vocabulary ('counts' must be a list of whole numbers from 0); "
                                             "re-create it")
        unknown = data.get(UNKNOWN_KEY, "unk")
        if unknown not in ("unk", "drop"):
            raise DataError.at(source, None, f"malformed vocabulary ('{UNKNOWN_KEY}' must be 'unk' or 'drop', not "
                                             f"{unknown!r}); re-create it")
        try:
            return cls(tokens, counts, unknown == "drop")
        except ValueError as exc:
            raise DataError.at(source, None, f"malformed vocabulary ({exc}); re-create it") from None

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> "Vocabulary":
        return cls.from_json(read_json(path), path)
