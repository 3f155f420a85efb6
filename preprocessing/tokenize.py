"""Tokenisation and token normalisation, as the iSarcasm supplement describes.

The paper: "we use the spaCy library for tweet tokenization. We then replace all
tokens that only appear once in the corpus with <unk>. We also replace all
handles with a <user>, ellipses with the <ellipsis> token, and numbers with the
<number> token. We further remove all punctuation except '.', '!', '?', '(',
and ')'."  Replacing rare tokens with ``<unk>`` needs a vocabulary and lives in
:mod:`preprocessing.vocab`; everything else happens here, in two steps:

1. :class:`SpacyTokenizer` splits raw text into token strings.  Tokenizers are
   registered per language in :data:`TOKENIZERS`; English uses the rule-based
   ``spacy.blank("en")`` tokenizer, so no model download is needed.
2. :class:`Normaliser` maps each token string to its normalised form, or to
   ``None`` to drop it.  The decision depends only on the token's text, so it is
   computed once per distinct string and cached: a corpus has far fewer types
   than tokens, which keeps normalisation nearly free.

The rules, with every choice the paper leaves open (each one is an option of
:class:`~preprocessing.config.PreprocessConfig`; the default is given first):

- text clean-up before tokenising: HTML entities are unescaped (tweets from the
  API carry ``&amp;``, ``&lt;3``); emoji skin-tone modifiers, zero-width joiners
  and variation selectors are removed, so 👍🏽 and 👍 are one token and a joined
  emoji sequence becomes its parts; the text is lowercased (see below); runs
  of two or more periods or ``…``
  characters (``..``, ``...``, ``…``, ``……..``) become a single ``…``.
- handles ``@name`` -> ``<user>`` (or kept).
- URLs (``http://``, ``https://``, ``www.``, or a bare domain with a path such as
  ``t.co/x`` or a common top-level domain such as ``example.com``) -> ``<url>``;
  the paper is silent, tweets are full of them (or kept, or dropped).
- hashtags: ``#word`` -> ``word`` (the paper's punctuation filter removes the
  ``#``); or kept whole (``#word``); or dropped.  The word itself is then
  normalised, so ``#2020`` becomes ``<number>``.
- ellipses -> ``<ellipsis>`` (or kept).
- numbers -> ``<number>``: digits with optional sign, thousands separators and
  decimals (``3``, ``2019``, ``-3``, ``3,000.50``), digit groups joined by
  ``: / -`` (times, dates, scores, ranges: ``10:30``, ``12/25``, ``2019-2020``),
  digit ordinals and decades (``1st``, ``22nd``, ``90s``).  Number words
  (``one``, ``million``, ``first``) and mixed tokens (``mp3``, ``4u``, ``2day``)
  stay words: GloVe has vectors for them and they carry meaning.
- punctuation: a token made only of punctuation characters (Unicode P*, and the
  math, currency and modifier symbols Sm/Sc/Sk) is dropped unless all its
  characters are among ``. ! ? ( )``.  spaCy splits ``!!!`` into three ``!``.
- emoticons made only of punctuation (``:)``, ``;-(``, ``^_^``) count as
  punctuation and are dropped, as the paper's filter does; ``:D``, ``xD`` and
  ``<3`` contain a letter or digit and are kept.  Option: keep all of spaCy's
  emoticons.
- emoji (tokens made of Unicode "other symbol" characters) are kept (or dropped).
- curly apostrophes are straightened (``don’t`` -> ``do n't``, as with ``'``).
- lowercase (GloVe 6B is uncased), applied to the text *before* tokenising:
  spaCy's contraction rules know only lower- and title-case forms, so an
  all-caps ``DON'T`` would otherwise stay one token while ``don't`` becomes
  ``do n't``; it also leaves spaCy fewer distinct strings to split.
- whitespace tokens (line breaks, double spaces) are dropped.
"""
from __future__ import annotations

import functools
import html
import re
import unicodedata
from typing import Callable, Iterable, Iterator, Protocol

from .config import PreprocessConfig
from .errors import IsarcasmError
from .fileio import surrogate_at, surrogate_problem
from .registry import Registry
from .vocab import ELLIPSIS, NUMBER, URL, USER


class Tokenizer(Protocol):
    """What a language's tokenizer provides: raw token strings per text."""

    def pipe(self, texts: Iterable[str], batch_size: int = 1000) -> Iterator[list[str]]: ...


# language code -> factory of a Tokenizer ("en", "zh", "ko" below); everything
# downstream (normalisation, vocabulary, padding) is language-agnostic.
TOKENIZERS: Registry[Callable[[], Tokenizer]] = Registry("tokenizer language")


class SpacyTokenizer:
    """A spaCy tokenizer used for token strings only.

    spaCy computes about twenty lexical attributes (``like_num``, ``is_punct``,
    ``shape``...) in Python for every string it has not seen before; nothing
    here reads them (the :class:`Normaliser` has its own rules), and on a
    tweet corpus, where most strings are new, computing them halves the
    throughput.  So this private pipeline switches them off.
    """

    def __init__(self, nlp):
        self.nlp = nlp
        nlp.vocab.lex_attr_getters = {}

    def pipe(self, texts: Iterable[str], batch_size: int = 1000) -> Iterator[list[str]]:
        for doc in self.nlp.tokenizer.pipe(texts, batch_size=batch_size):
            yield [token.text for token in doc]


def _tweet_rules(language: str) -> SpacyTokenizer:
    """``spacy.blank(language)``'s rule-based tokenizer with two changes: ``#``
    is no longer a prefix, so a hashtag stays one token and the ``hashtags``
    option decides about it; and the lowercase forms of spaCy's emoticons
    (``:d``, ``xd``) stay one token like the originals, since the text is
    lowercased before tokenising."""
    import spacy  # spaCy: only when tokenising
    from spacy.attrs import ORTH
    from spacy.util import compile_prefix_regex

    nlp = spacy.blank(language)
    prefixes = [p for p in nlp.Defaults.prefixes if p != "#"]
    nlp.tokenizer.prefix_search = compile_prefix_regex(prefixes).search
    for emoticon in emoticons() - set(nlp.tokenizer.rules):
        nlp.tokenizer.add_special_case(emoticon, [{ORTH: emoticon}])
    return SpacyTokenizer(nlp)


@TOKENIZERS.register("en")
def english() -> SpacyTokenizer:
    """``spacy.blank("en")`` with the tweet changes of :func:`_tweet_rules`."""
    return _tweet_rules("en")


# -- Chinese and Korean ------------------------------------------------------

# Han ideographs (unified, extension A, compatibility, supplementary planes) and
# the CJK symbols and punctuation block (、。《》「」...).
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f\u3000-\u303f"
_HAN_CHAR = re.compile(f"([{_HAN}])")
# Hangul syllables, jamo and compatibility jamo (ㅋㅋ).
_HANGUL = "\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f"
# Between Hangul and a digit or a symbol (not @ or #, which start handles and
# hashtags), in either order: 2020년 -> 2020 년, 와~ -> 와 ~.
_HANGUL_EDGE = re.compile(f"(?<=[{_HANGUL}])(?=[^\\w\\s@#]|\\d)|(?<=[^\\w\\s@#]|\\d)(?=[{_HANGUL}])")
# Full-width forms (U+FF01-FF5E) -> ASCII, the ideographic space -> a space,
# and the ideographic full stop -> ".".  Not NFKC: it would also turn Korean
# compatibility jamo (ㅋㅋ) into conjoining jamo.
_FULL_WIDTH = {**{cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)}, 0x3000: " ", ord("。"): ".", ord("｡"): "."}


class CjkTokenizer:
    """The tokenizer for Chinese and Korean text.

    Chinese: character segmentation, one token per Han character, as
    ``spacy.blank("zh")``'s default ``char`` segmenter does.  Why characters
    and not words: the word segmenters spaCy supports (jieba, pkuseg) are
    extra dependencies, and the ToSarcasm training split (2,925 comments) is
    small, so a character vocabulary (a few thousand types) leaves far fewer
    words rare or unseen than a word vocabulary.  Unlike spaCy's ``char``
    segmenter, runs of other characters (Latin words, digits, URLs, @handles,
    #hashtags, emoji) are not cut into characters but follow the tweet rules
    as in English, so ``2020年`` is ``<number> 年``, not ``2 0 2 0 年``.

    Korean: eojeol tokens (the whitespace-separated units) with punctuation
    and digits split off (``2020년에`` -> ``<number> 년에``: numbers with a
    counter are frequent, and the counter is a word of its own).  spaCy's
    Korean tokenizer needs the mecab-ko system library, mecab-ko-dic and
    natto-py, which the package registry alone cannot install; so particles
    stay attached (``친구가`` is one token) and the vocabulary is larger than
    a morphological analyser's.  Hanja in Korean text are split like Chinese.

    Both use spaCy's ``xx`` (multi-language) rules, so no English contraction
    rules apply.  Before tokenising, full-width forms become ASCII
    (``！？（）`` -> ``!?()``, ``２０２０`` -> ``2020``) and ``。`` becomes
    ``.``: the language-agnostic :class:`Normaliser` then keeps ``. ! ? ( )``
    and finds numbers and URLs in either width.  A Chinese @handle is not
    recognised (``@小明`` gives ``小 明``): handles are rare in ToSarcasm (4
    of 2,925 training comments) and where a Chinese name ends is unknown
    without a space.
    """

    def __init__(self):
        self.rules = _tweet_rules("xx")

    @staticmethod
    def prepare(text: str) -> str:
        text = text.translate(_FULL_WIDTH)
        return _HANGUL_EDGE.sub(" ", _HAN_CHAR.sub(r" \1 ", text))

    def pipe(self, texts: Iterable[str], batch_size: int = 1000) -> Iterator[list[str]]:
        return self.rules.pipe(map(self.prepare, texts), batch_size=batch_size)


TOKENIZERS.add("zh", CjkTokenizer)
TOKENIZERS.add("ko", CjkTokenizer)


@functools.cache
def get_tokenizer(language: str) -> Tokenizer:
    """One shared tokenizer per language and process: building a spaCy pipeline
    takes a while, and its cache of seen strings is worth keeping.  Sharing is
    safe because tokenizing does not depend on the preprocessing options."""
    return TOKENIZERS.get(language)()


# -- text clean-up ---------------------------------------------------------

# Skin-tone modifiers, zero-width joiner, variation selectors 15/16.
_EMOJI_MODIFIERS = re.compile("[\U0001F3FB-\U0001F3FF\u200d\ufe0e\ufe0f]")
_ELLIPSIS_RUN = re.compile(r"\.{2,}[.…]*|…[.…]*")

# -- token rules -----------------------------------------------------------

_HANDLE = re.compile(r"@\w+")
_HASHTAG = re.compile(r"#+(\w+)")
_NUMBER = re.compile(
    r"[+\-±]?(?:\d+|\.\d+)(?:[.,:/\-]\d+)*(?:st|nd|rd|th|s)?(?:/\d+(?:st|nd|rd|th))*",
    re.IGNORECASE,
)
# Only TLDs that are not also English words, so "love.it" (a missing space) stays text.
_COMMON_TLDS = "com|org|net|edu|gov|info"
_URL = re.compile(
    r"(?:[a-z][a-z0-9+.\-]*://|www\.)\S+"  # scheme or www.
    r"|[a-z0-9\-]+(?:\.[a-z0-9\-]+)+/\S*"  # domain with a path: t.co/abc, bit.ly/x
    rf"|[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.(?:{_COMMON_TLDS})",  # bare domain with a common TLD
    re.IGNORECASE,
)
_PUNCT_CATEGORIES = ("P", "Sm", "Sc", "Sk")
_UNSEEN = object()


def _is_punctuation(char: str) -> bool:
    category = unicodedata.category(char)
    return category[0] == "P" or category in _PUNCT_CATEGORIES


def _is_emoji(token: str) -> bool:
    return all(unicodedata.category(c) == "So" for c in token)


@functools.cache
def emoticons() -> frozenset[str]:
    """spaCy's emoticons (its tokenizer keeps each one as one token), and their lowercase forms."""
    from spacy.lang.tokenizer_exceptions import emoticons as spacy_emoticons  # spaCy: only when tokenising

    return frozenset(spacy_emoticons) | {e.lower() for e in spacy_emoticons}


class Normaliser:
    """Text clean-up and per-token normalisation for one configuration.

    ``clean(text)`` prepares raw text for the tokenizer; calling the normaliser
    on a token string returns its normalised form or ``None`` (drop it).
    """

    def __init__(self, config: PreprocessConfig):
        self.config = config
        self.keep_punct = frozenset(config.keep_punct)
        self.emoticons = emoticons()
        self._cache: dict[str, str | None] = {}

    def clean(self, text: str) -> str:
        if self.config.unescape_html and "&" in text:
            text = html.unescape(text)
        text = _EMOJI_MODIFIERS.sub("", text)
        if self.config.lowercase:
            text = text.lower()
        if self.config.ellipsis == "ellipsis":
            text = _ELLIPSIS_RUN.sub("…", text)
        return text

    def __call__(self, token: str) -> str | None:
        try:
            return self._cache[token]
        except KeyError:
            value = self._cache[token] = self._normalise(token)
            return value

    def tokens(self, raw: list[str]) -> list[str]:
        """The normalised tokens of one text (``__call__`` inlined: this is the hot loop)."""
        cache, out = self._cache, []
        for token in raw:
            value = cache.get(token, _UNSEEN)
            if value is _UNSEEN:
                value = cache[token] = self._normalise(token)
            if value is not None:
                out.append(value)
        return out

    def _normalise(self, token: str) -> str | None:
        config = self.config
        if token.isalpha() and token not in self.emoticons:  # most types: a plain word, no rule applies
            return token
        if token.isspace():
            return None
        token = token.replace("’", "'").replace("‘", "'")
        if _URL.fullmatch(token):
            return {"url": URL, "keep": token, "drop": None}[config.urls]
        if _HANDLE.fullmatch(token):
            return USER if config.handles == "user" else token
        hashtag = _HASHTAG.fullmatch(token)
        if hashtag:
            if config.hashtags == "word":
                return self(hashtag.group(1))
            return token if config.hashtags == "keep" else None
        if config.ellipsis == "ellipsis" and set(token) <= {".", "…"} and (len(token) > 1 or token == "…"):
            return ELLIPSIS
        if config.numbers == "number" and _NUMBER.fullmatch(token):
            return NUMBER
        punctuation = all(_is_punctuation(c) for c in token)
        if token in self.emoticons:
            return token if config.emoticons == "keep" or not punctuation else None
        if punctuation:
            return token if set(token) <= self.keep_punct else None
        if _is_emoji(token):
            return token if config.emoji == "keep" else None
        return token


class NormalisingTokenizer:
    """The language's tokenizer followed by the :class:`Normaliser`.

    Keep one instance per configuration: both spaCy's tokenizer and the
    normaliser cache what they have seen, so later batches get faster.
    """

    def __init__(self, config: PreprocessConfig):
        self.normaliser = Normaliser(config)
        self.tokenizer = get_tokenizer(config.language)

    def __call__(self, texts: Iterable[str | None], batch_size: int = 1000) -> list[list[str]]:
        """Normalised tokens of every text (no ``<unk>`` yet: that needs a vocabulary)."""
        normaliser = self.normaliser
        cleaned = (normaliser.clean(_require_text(text, i)) for i, text in enumerate(texts))
        return [normaliser.tokens(raw) for raw in self.tokenizer.pipe(cleaned, batch_size=batch_size)]


def _require_text(text: str | None, position: int) -> str:
    """``text``, checked as every text is before spaCy reads it: present, and free of lone
    surrogates (which spaCy cannot encode).  Files and options refuse those earlier, naming the line
    or the option (:func:`preprocessing.fileio.no_surrogates`); this catches any other way in."""
    if not isinstance(text, str):
        raise IsarcasmError(
            f"text #{position + 1} is missing ({text!r}); corpora distributed as tweet IDs need their "
            "text supplied first (e.g. --text-file for isarcasm-ids)"
        )
    index = surrogate_at(text)
    if index is not None:
        raise IsarcasmError(f"text #{position + 1}: {surrogate_problem(text, index)}")
    return text
