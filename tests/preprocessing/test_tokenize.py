"""Normalisation rules, one table row per decision (see preprocessing/tokenize.py)."""
from __future__ import annotations

import pytest

from preprocessing.config import PreprocessConfig
from preprocessing.errors import IsarcasmError
from preprocessing.tokenize import TOKENIZERS, NormalisingTokenizer, get_tokenizer

DEFAULT = PreprocessConfig()

CASES = [
    # (text, expected tokens, non-default options)
    # handles
    ("@bob_1: hi", ["<user>", "hi"], {}),
    ("@Bob's cat", ["<user>", "'s", "cat"], {}),
    ("@bob hi", ["@bob", "hi"], {"handles": "keep"}),
    ("mail @ noon", ["mail", "noon"], {}),  # a lone @ is punctuation
    # URLs
    ("see https://t.co/AbC123 now", ["see", "<url>", "now"], {}),
    ("www.example.com/x?y=1", ["<url>"], {}),
    ("bit.ly/xyz and example.com", ["<url>", "and", "<url>"], {}),
    ("love.it", ["love.it"], {}),  # a missing space, not a domain
    ("go http://x.org", ["go"], {"urls": "drop"}),
    # hashtags
    ("#Mondays are great #not", ["mondays", "are", "great", "not"], {}),
    ("#sarcasm!", ["sarcasm", "!"], {}),
    ("#2020 sucks", ["<number>", "sucks"], {}),
    ("#Mondays", ["#mondays"], {"hashtags": "keep"}),
    ("great #not", ["great"], {"hashtags": "drop"}),
    # ellipses
    ("wait... what", ["wait", "<ellipsis>", "what"], {}),
    ("wait…what", ["wait", "<ellipsis>", "what"], {}),
    ("oh…..ok", ["oh", "<ellipsis>", "ok"], {}),
    ("so.. yeah", ["so", "<ellipsis>", "yeah"], {}),
    ("end.", ["end", "."], {}),
    ("wait... what", ["wait", "...", "what"], {"ellipsis": "keep"}),
    # numbers
    ("it costs 3,000.50 now", ["it", "costs", "<number>", "now"], {}),
    ("in 2019 at 10:30 on 12/25", ["in", "<number>", "at", "<number>", "on", "<number>"], {}),
    ("the 1st and 22nd in the 90s", ["the", "<number>", "and", "<number>", "in", "the", "<number>"], {}),
    ("-3 degrees", ["<number>", "degrees"], {}),
    ("one million mp3 4u", ["one", "million", "mp3", "4u"], {}),
    ("50% off", ["<number>", "off"], {}),
    ("in 2019", ["in", "2019"], {"numbers": "keep"}),
    # punctuation: only . ! ? ( ) survive
    ('"yes", she said; (really)?!', ["yes", "she", "said", "(", "really", ")", "?", "!"], {}),
    ("so — fun -- $5 & more", ["so", "fun", "<number>", "more"], {}),
    ("wow!!!", ["wow", "!", "!", "!"], {}),
    ("a, b", ["a", ",", "b"], {"keep_punct": ".!?(),"}),
    # emoticons and emoji
    ("nice :) :-( ^_^", ["nice"], {}),
    ("nice :D xD <3", ["nice", ":d", "xd", "<3"], {}),
    ("nice :D", ["nice", ":D"], {"lowercase": False}),
    ("nice :)", ["nice", ":)"], {"emoticons": "keep"}),
    ("nice :P XD", ["nice", ":p", "xd"], {"emoticons": "keep"}),
    ("lol 😂😂", ["lol", "😂", "😂"], {}),
    ("ok 👍🏽 👍", ["ok", "👍", "👍"], {}),  # skin tone removed: one type
    ("🤦🏽‍♀️ why", ["🤦", "♀", "why"], {}),  # joined sequence -> its parts
    ("lol 😂", ["lol"], {"emoji": "drop"}),
    # case, apostrophes, HTML, whitespace
    ("I LOVE it", ["i", "love", "it"], {}),
    ("I LOVE it", ["I", "LOVE", "it"], {"lowercase": False}),
    ("DON'T YOU'RE IM", ["do", "n't", "you", "'re", "i", "m"], {}),  # lowercased before spaCy splits
    ("@Bob #Cats", ["@Bob", "#Cats"], {"lowercase": False, "handles": "keep", "hashtags": "keep"}),
    ("don’t can't", ["do", "n't", "ca", "n't"], {}),
    ("this &amp; that &lt;3", ["this", "that", "<3"], {}),
    ("this &amp; that", ["this", "amp", "that"], {"unescape_html": False}),
    ("line\n\nbreak  twice", ["line", "break", "twice"], {}),
]


@pytest.mark.parametrize("text, expected, options", CASES, ids=[c[0] + str(c[2] or "") for c in CASES])
def test_normalisation(text, expected, options):
    tokenizer = NormalisingTokenizer(PreprocessConfig(**options))
    assert tokenizer([text]) == [expected]


def test_batches_keep_order_and_empty_texts():
    texts = ["first one", "", "third #one"] * 700  # spans several spaCy batches
    out = NormalisingTokenizer(DEFAULT)(texts)
    assert out[:3] == [["first", "one"], [], ["third", "one"]]
    assert out == out[:3] * 700


def test_missing_text_is_a_clear_error():
    with pytest.raises(IsarcasmError, match=r"text #2 is missing.*--text-file"):
        NormalisingTokenizer(DEFAULT)(["ok", None])


def test_unknown_language_names_the_registered_ones():
    with pytest.raises(IsarcasmError, match=r"unknown tokenizer language 'xx'.*known: en"):
        get_tokenizer("xx")
    assert "en" in TOKENIZERS


def test_invalid_option_value_is_a_clear_error():
    with pytest.raises(IsarcasmError, match="numbers must be one of number, keep"):
        PreprocessConfig(numbers="words")
