"""Lexicon features for Dense-LSTM (Wu et al. 2018, THU_NGN), as AffectiveTweets computes them.

THU_NGN fed their model the output of AffectiveTweets' WEKA filter
``TweetToLexiconFeatureVector``.  This module recomputes the same 43 features
in Python from the same lexicon files (``lexicons/`` in the data directory;
see its SOURCE.md), one block per lexicon, in the filter's order and with its
attribute names:

=====================  ===========================================  ============================
lexicon (registry)     features (AffectiveTweets names)             per matching token adds
=====================  ===========================================  ============================
mpqa, bing-liu         ``<X>-posCount``, ``<X>-negCount``           1 to the count of its label
afinn, sentiment140,   ``<X>-posScore``, ``<X>-negScore``           its score to posScore if > 0,
nrc-hashtag-sentiment,                                              else to negScore (so
afinn-emoticons                                                     negScore <= 0)
nrc-emolex             ``NRC-10-<emotion>`` (8 emotions + neg/pos)  its 0/1 association
nrc-10-expanded        ``NRC-10-Expanded-<emotion>`` (10)           its association probability
nrc-hashtag-emotion    ``NRC-Hash-Emo-<emotion>`` (8 emotions)      its association score
sentiwordnet           ``SentiWordnet-posScore``, ``-negScore``     like the score lexicons; a word's
                                                                    score is sum over its synsets of
                                                                    (PosScore - NegScore) / (1 + rank)
negation               ``Negation-negationCount``                   1
=====================  ===========================================  ============================

Matching follows the filter: one whole token against one lexicon key, after
lowercasing the token (the filter's default); lexicon keys are used as written,
so the few keys with capitals (``anti-American``, ``:D``) and multi-word AFINN
phrases never match, exactly as in AffectiveTweets.  When a key occurs twice,
the later line wins (the filter fills a hash map).  One addition: a token that
is not a key of a lexicon falls back to ``#token`` when that is one (the
hashtag, sentiment140 and expanded lexicons have thousands of ``#word`` keys),
for token lists that carry hashtags without their ``#``.

Tokens: AffectiveTweets tokenises the raw tweet with the CMU TweetNLP
tokenizer, which keeps contractions (``don't``), emoticons (``:(``) and
hashtags (``#not``) whole.  :func:`tweet_tokens` does the same with NLTK's
``TweetTokenizer``.  The models' own tokens would be wrong here: spaCy splits
``don't`` into ``do`` + ``n't`` and the paper's punctuation filter drops
emoticons, so the negation and emoticon lexicons would never match.

Values are the raw counts and score sums, as the filter outputs them (float32,
deterministic); standardising them is the model's business.

Left out: ``TweetToSentiStrengthFeatureVector`` (SentiStrength's positive and
negative strengths), because it runs the SentiStrength Java jar, which is not
available (academic-use-only code, not stored in the data directory).

SentiWordNet is read from the 3-column derived file
(``PosScore<TAB>NegScore<TAB>word#rank ...``, see SOURCE.md), not the official
6-column one; the scores it yields are the same.

Parsed lexicons are kept in memory per file (``functools.lru_cache`` keyed by
path, size and modification time), so repeated featurisers in one process
(folds, several models) parse each file once.  There is no on-disk cache:
parsing all eleven files is small next to training (``benchmarks/lexicons.py``
measures it), and nothing is written next to the (possibly read-only) data.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np

from .errors import DataError, IsarcasmError
from .fileio import read_text
from .registry import Registry

AT = "lexicons/affectivetweets"
NRC_EMOTIONS = ("anger", "anticipation", "disgust", "fear", "joy", "sadness", "surprise", "trust")
NRC_EMOTIONS_SENTIMENT = NRC_EMOTIONS + ("negative", "positive")
POLARITY = ("posCount", "negCount")
STRENGTH = ("posScore", "negScore")


# --- reading: each reader returns {key: value}; bad lines raise DataError naming file:row -----------

def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """Non-blank lines with their 1-based numbers; CR of CRLF files dropped."""
    for number, line in enumerate(read_text(path).split("\n"), start=1):
        line = line.rstrip("\r")
        if line.strip():
            yield number, line


def _fields(path: Path, number: int, line: str, at_least: int) -> list[str]:
    fields = line.split("\t")
    if len(fields) < at_least:
        raise DataError.at(path, number, f"expected at least {at_least} TAB-separated columns, found {len(fields)}")
    return fields


def _number(path: Path, number: int, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise DataError.at(path, number, f"{text!r} is not a number")
    return value


def read_labels(path: Path) -> dict[str, str]:
    """``word<TAB>label`` (MPQA, Bing Liu); any label is kept, only positive/negative count."""
    labels = {}
    for n, line in _lines(path):
        word, label = _fields(path, n, line, 2)[:2]
        labels[word] = label
    return labels


def read_scores(path: Path) -> dict[str, float]:
    """``word<TAB>score[<TAB>...]`` (AFINN, emoticons, Sentiment140, NRC Hashtag Sentiment)."""
    scores = {}
    for n, line in _lines(path):
        word, score = _fields(path, n, line, 2)[:2]
        scores[word] = _number(path, n, score)
    return scores


def read_word_list(path: Path) -> dict[str, None]:
    """One word per line (the negation list)."""
    return {line.strip(): None for _, line in _lines(path)}


def _emotion_index(path: Path, number: int, emotion: str, emotions: Sequence[str]) -> int:
    if emotion not in emotions:
        raise DataError.at(path, number, f"unknown emotion {emotion!r}; expected one of {', '.join(emotions)}")
    return emotions.index(emotion)


def read_emolex(path: Path) -> dict[str, tuple[float, ...]]:
    """NRC EmoLex word level: ``word<TAB>emotion<TAB>0|1``, ten lines per word."""
    table: dict[str, list[float]] = {}
    for n, line in _lines(path):
        word, emotion, flag = _fields(path, n, line, 3)[:3]
        if flag not in ("0", "1"):
            raise DataError.at(path, n, f"association {flag!r} is not 0 or 1")
        row = table.setdefault(word, [0.0] * len(NRC_EMOTIONS_SENTIMENT))
        row[_emotion_index(path, n, emotion, NRC_EMOTIONS_SENTIMENT)] = float(flag)
    return {word: tuple(row) for word, row in table.items()}


def read_expanded(path: Path) -> dict[str, tuple[float, ...]]:
    """NRC-10 Expanded: a header ``word<TAB>anger<TAB>...`` then one row of probabilities per word."""
    lines = _lines(path)
    first, header_line = next(lines)
    header = header_line.split("\t")
    missing = [e for e in NRC_EMOTIONS_SENTIMENT if e not in header[1:]]
    if missing:
        raise DataError.at(path, first, f"header lacks column(s) {', '.join(missing)}")
    columns = [header.index(e) for e in NRC_EMOTIONS_SENTIMENT]
    table = {}
    for n, line in lines:
        fields = line.split("\t")
        if len(fields) != len(header):
            raise DataError.at(path, n, f"expected {len(header)} TAB-separated columns as in the header, "
                                        f"found {len(fields)}")
        table[fields[0]] = tuple(_number(path, n, fields[c]) for c in columns)
    return table


def read_hashtag_emotion(path: Path) -> dict[str, tuple[float, ...]]:
    """NRC Hashtag Emotion: a licence header ending in a line of dots, then ``emotion<TAB>term<TAB>score``."""
    lines = list(_lines(path))
    dots = next((i for i, (_, line) in enumerate(lines) if set(line.strip()) == {"."}), -1)
    table: dict[str, list[float]] = {}
    for n, line in lines[dots + 1:]:
        emotion, word, score = _fields(path, n, line, 3)[:3]
        row = table.setdefault(word, [0.0] * len(NRC_EMOTIONS))
        row[_emotion_index(path, n, emotion, NRC_EMOTIONS)] = _number(path, n, score)
    return {word: tuple(row) for word, row in table.items()}


def read_sentiwordnet(path: Path) -> dict[str, float]:
    """SentiWordNet 3.0 reduced to ``PosScore<TAB>NegScore<TAB>word#rank word#rank ...``.

    A word's score sums (PosScore - NegScore) / (1 + rank) over its synsets, so
    its commonest senses weigh most (AffectiveTweets' SWN3LexiconEvaluator).
    """
    scores: dict[str, float] = {}
    for n, line in _lines(path):
        if line.startswith("#"):
            continue
        pos, neg, terms = _fields(path, n, line, 3)[:3]
        polarity = _number(path, n, pos) - _number(path, n, neg)
        for term in terms.split():
            word, _, rank = term.rpartition("#")
            if not word or not rank.isdigit():
                raise DataError.at(path, n, f"synset term {term!r} is not word#rank")
            scores[word] = scores.get(word, 0.0) + polarity / (1 + int(rank))
    return scores


# --- what one matching token adds to a lexicon's features --------------------------------------------

def polarity_counts(label: str) -> tuple[float, float]:
    return float(label == "positive"), float(label == "negative")


def signed_strength(score: float) -> tuple[float, float]:
    return (score, 0.0) if score > 0 else (0.0, score)


def as_is(values: tuple[float, ...]) -> tuple[float, ...]:
    return values


def one(_: None) -> tuple[float]:
    return (1.0,)


# --- the declarations -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Lexicon:
    """One lexicon: its file, how to read it, and what a matching token adds.

    ``prefix`` and ``features`` give AffectiveTweets' attribute names
    (``prefix-feature``); ``contribution(value)`` returns one number per feature.
    """

    name: str
    prefix: str
    path: str
    read: Callable[[Path], dict]
    contribution: Callable[[object], Sequence[float]]
    features: tuple[str, ...]
    description: str

    @property
    def feature_names(self) -> list[str]:
        return [f"{self.prefix}-{feature}" for feature in self.features]


LEXICONS: Registry[Lexicon] = Registry("lexicon")


def _declare(lexicon: Lexicon) -> None:
    LEXICONS.add(lexicon.name, lexicon)


# Declared in TweetToLexiconFeatureVector's order, so the default vector lines up with its output.
_declare(Lexicon("mpqa", "mpqa", f"{AT}/mpqa.txt.gz", read_labels, polarity_counts, POLARITY,
         "MPQA subjectivity lexicon (Wilson et al. 2005)"))
_declare(Lexicon("bing-liu", "BingLiu", f"{AT}/BingLiu.csv.gz", read_labels, polarity_counts, POLARITY,
         "Bing Liu opinion lexicon (Hu & Liu 2004)"))
_declare(Lexicon("afinn", "AFINN", f"{AT}/AFINN-en-165.txt.gz", read_scores, signed_strength, STRENGTH,
         "AFINN-165 word scores -5..5 (Nielsen 2011)"))
_declare(Lexicon("sentiment140", "S140", f"{AT}/Sentiment140-Lexicon-v0.1/unigrams-pmilexicon.txt.gz",
         read_scores, signed_strength, STRENGTH, "NRC Sentiment140 unigram PMI scores (Kiritchenko et al. 2014)"))
_declare(Lexicon("nrc-hashtag-sentiment", "NRC-Hash-Sent",
         f"{AT}/NRC-Hashtag-Sentiment-Lexicon-v0.1/unigrams-pmilexicon.txt.gz", read_scores, signed_strength, STRENGTH,
         "NRC Hashtag Sentiment unigram PMI scores (Kiritchenko et al. 2014)"))
_declare(Lexicon("nrc-emolex", "NRC-10", f"{AT}/NRC-emotion-lexicon-wordlevel-v0.92.txt.gz", read_emolex, as_is,
         NRC_EMOTIONS_SENTIMENT, "NRC Word-Emotion Association Lexicon v0.92 (Mohammad & Turney 2013)"))
_declare(Lexicon("nrc-10-expanded", "NRC-10-Expanded", f"{AT}/w2v-dp-BCC-Lex.csv.gz", read_expanded, as_is,
         NRC_EMOTIONS_SENTIMENT, "tweet expansion of EmoLex (Bravo-Marquez et al. 2016)"))
_declare(Lexicon("nrc-hashtag-emotion", "NRC-Hash-Emo", f"{AT}/NRC-Hashtag-Emotion-Lexicon-v0.2.txt.gz",
         read_hashtag_emotion, as_is, NRC_EMOTIONS, "NRC Hashtag Emotion Lexicon v0.2 (Mohammad & Kiritchenko 2015)"))
_declare(Lexicon("sentiwordnet", "SentiWordnet", "lexicons/sentiwordnet/SentiWordNet_3.0.0.pos_neg_terms.txt.gz",
         read_sentiwordnet, signed_strength, STRENGTH, "SentiWordNet 3.0 (Baccianella et al. 2010)"))
_declare(Lexicon("afinn-emoticons", "Emoticons", f"{AT}/AFINN-emoticon-8.txt.gz", read_scores, signed_strength, STRENGTH,
         "AFINN emoticon scores"))
_declare(Lexicon("negation", "Negation", f"{AT}/NegatingWordList.txt.gz", read_word_list, one, ("negationCount",),
         "negating words (SentiStrength's list)"))


# --- loading (cached per file) and featurising ------------------------------------------------------

@dataclass(frozen=True)
class _Table:
    """A lexicon as lookup: ``index[token]`` is a row of ``values``; the last row (all zeros) is 'no match'."""

    index: dict[str, int]
    values: np.ndarray

    def lookup(self, words: Iterable[str]) -> np.ndarray:
        """One row of contributions per word (zeros for a word that matches no key)."""
        missing = len(self.values) - 1
        return self.values[np.fromiter((self.index.get(w, missing) for w in words), dtype=np.intp)]


@functools.lru_cache(maxsize=64)
def _table(name: str, path: str, size: int, mtime_ns: int) -> _Table:
    """Parse once per file version (size and mtime are in the key so an edited file is re-read)."""
    lexicon = LEXICONS.get(name)
    entries = lexicon.read(Path(path))
    index = {key: row for row, key in enumerate(entries)}
    for key, row in list(index.items()):  # bare-word fallback for '#word' keys (see module docstring)
        if key.startswith("#") and len(key) > 1:
            index.setdefault(key[1:], row)
    values = np.zeros((len(entries) + 1, len(lexicon.features)), dtype=np.float64)
    for row, value in enumerate(entries.values()):
        values[row] = lexicon.contribution(value)
    values.setflags(write=False)
    return _Table(index, values)


def _load(lexicon: Lexicon, data_dir: Path) -> _Table:
    path = data_dir / lexicon.path
    if not path.is_file():
        raise IsarcasmError(
            f"lexicon '{lexicon.name}' needs {lexicon.path}, which is not in {data_dir}; "
            f"run `isarcasm data fetch lexicons --mirror DIR` or point --data-dir / $ISARCASM_DATA at your data"
        )
    stat = path.stat()
    return _table(lexicon.name, str(path.resolve()), stat.st_size, stat.st_mtime_ns)


#: Recorded in the configuration of every run that uses lexicon features, so runs
#: featurised from other tokens are never reused for these.
LEXICON_TOKENS = "nltk-tweet-tokenizer"


@functools.lru_cache(maxsize=1)
def _tweet_tokenizer():
    from nltk.tokenize import TweetTokenizer  # NLTK: only when lexicon features are used

    return TweetTokenizer(preserve_case=False)


def tweet_tokens(texts: Sequence[str]) -> list[list[str]]:
    """The tokens lexicons are matched against: raw tweets split as a tweet tokenizer
    does (contractions, emoticons, hashtags and handles whole; HTML entities decoded)."""
    tokenize = _tweet_tokenizer().tokenize
    return [tokenize(text or "") for text in texts]


class LexiconFeaturizer:
    """Maps token lists to AffectiveTweets' lexicon feature vectors (raw counts and score sums)."""

    def __init__(self, lexicons: Sequence[Lexicon], tables: Sequence[_Table]):
        self.lexicons = tuple(lexicons)
        self._tables = tuple(tables)
        self.feature_names: list[str] = [n for lexicon in self.lexicons for n in lexicon.feature_names]

    @classmethod
    def from_data_dir(cls, data_dir: str | Path, names: Sequence[str] | None = None) -> "LexiconFeaturizer":
        """Load the named lexicons (default: all, in AffectiveTweets' order) from ``data_dir``."""
        names = LEXICONS.names() if names is None else list(names)
        if not names:
            raise IsarcasmError("no lexicon named; choose from " + ", ".join(LEXICONS.names()))
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise IsarcasmError(f"lexicon(s) named more than once: {', '.join(twice)}")
        lexicons = [LEXICONS.get(name) for name in names]
        data_dir = Path(data_dir)
        return cls(lexicons, [_load(lexicon, data_dir) for lexicon in lexicons])

    @property
    def dim(self) -> int:
        return len(self.feature_names)

    def transform(self, token_lists: Sequence[Sequence[str]]) -> np.ndarray:
        """``(len(token_lists), dim)`` float32: per tweet, the sum of its tokens' contributions."""
        if isinstance(token_lists, str) or any(isinstance(tokens, str) for tokens in token_lists):
            raise TypeError("transform takes a list of token lists, e.g. [['so', 'great']], not strings")
        # Look each distinct token up once per lexicon; then, per feature, sum the
        # contributions of the tokens that match anything, tweet by tweet.
        vocabulary: dict[str, int] = {}
        ids = [vocabulary.setdefault(token.lower(), len(vocabulary)) for tokens in token_lists for token in tokens]
        per_word = np.concatenate([table.lookup(vocabulary) for table in self._tables], axis=1)
        ids = np.asarray(ids, dtype=np.intp)
        owner = np.repeat(np.arange(len(token_lists)), [len(tokens) for tokens in token_lists])
        matched = per_word.any(axis=1)[ids]
        ids, owner = ids[matched], owner[matched]
        by_feature = np.ascontiguousarray(per_word.T)[:, ids]
        sums = [np.bincount(owner, weights=weights, minlength=len(token_lists)) for weights in by_feature]
        return np.stack(sums, axis=1).astype(np.float32).reshape(len(token_lists), self.dim)
