"""Lexicon features: exact values on made-up fixture lexicons, error paths, one real-data check.

The fixture files imitate each real file's format (gzip, columns, headers, CRLF)
with a handful of invented entries; no line of a real lexicon is used here.
"""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from experiments.runs.one.inputs import FitTexts, ModelInputs
from preprocessing.config import PreprocessConfig
from preprocessing.errors import DataError, IsarcasmError
from preprocessing.lexicons import LEXICONS, NRC_EMOTIONS_SENTIMENT, LexiconFeaturizer, tweet_tokens

AT = "lexicons/affectivetweets"
EXPANDED_HEADER = "word anger anticipation disgust fear joy negative positive sadness surprise trust".split()


def emolex_lines(word: str, marked: set[str]) -> list[str]:
    return [f"{word}\t{emotion}\t{int(emotion in marked)}" for emotion in NRC_EMOTIONS_SENTIMENT]


FIXTURES: dict[str, list[str]] = {
    f"{AT}/mpqa.txt.gz": ["glad\tpositive", "awful\tnegative", "fine\tpositive", "fine\tnegative",
                          "okay\tneutral", "Shiny\tpositive"],
    f"{AT}/BingLiu.csv.gz": ["glad\tpositive", "awful\tnegative"],
    f"{AT}/AFINN-en-165.txt.gz": ["glad\t3", "awful\t-3", "not good\t-2", "meh\t0"],
    f"{AT}/AFINN-emoticon-8.txt.gz": [":)\t2", ":(\t-2", ":D\t2"],
    f"{AT}/Sentiment140-Lexicon-v0.1/unigrams-pmilexicon.txt.gz": ["glad\t1.5\t10\t2", "#win\t2.0\t5\t1",
                                                                  "awful\t-2.25\t1\t9"],
    f"{AT}/NRC-Hashtag-Sentiment-Lexicon-v0.1/unigrams-pmilexicon.txt.gz": ["#glad\t0.5\t3\t1", "glad\t0.25\t3\t1",
                                                                           "#gloom\t-1.5\t1\t4"],
    f"{AT}/NRC-emotion-lexicon-wordlevel-v0.92.txt.gz": emolex_lines("glad", {"joy", "positive"})
    + emolex_lines("awful", {"anger", "disgust", "negative"}),
    f"{AT}/w2v-dp-BCC-Lex.csv.gz": ["\t".join(EXPANDED_HEADER),
                                    "glad\t0\t0.25\t0\t0\t0.5\t0\t0.75\t0\t0.125\t0.25"],
    f"{AT}/NRC-Hashtag-Emotion-Lexicon-v0.2.txt.gz": ["Made-up Emotion Lexicon", "Terms: none", "   see nothing ",
                                                      "", "........", "", "joy\tglad\t0.75",
                                                      "sadness\t#gloom\t1.25", "joy\t#gloom\t0.125"],
    "lexicons/sentiwordnet/SentiWordNet_3.0.0.pos_neg_terms.txt.gz": ["0.5\t0\tglad#1 happy#2", "0\t0.75\tawful#1",
                                                                      "0.25\t0.5\tglad#3"],
    f"{AT}/NegatingWordList.txt.gz": ["not\r", "never\r"],
}

TWEET = ["Glad", "not", "awful", "fine", "glad", "gloom", ":d", ":)"]

# Worked out by hand from FIXTURES for TWEET; every feature not listed is 0.
EXPECTED = {
    "mpqa-posCount": 2, "mpqa-negCount": 2,  # 'fine' is negative: the later line wins
    "BingLiu-posCount": 2, "BingLiu-negCount": 1,
    "AFINN-posScore": 6, "AFINN-negScore": -3,
    "S140-posScore": 3, "S140-negScore": -2.25,
    "NRC-Hash-Sent-posScore": 0.5,  # 'glad' itself (0.25 twice), not '#glad'
    "NRC-Hash-Sent-negScore": -1.5,  # 'gloom' falls back to '#gloom'
    "NRC-10-joy": 2, "NRC-10-positive": 2, "NRC-10-anger": 1, "NRC-10-disgust": 1, "NRC-10-negative": 1,
    "NRC-10-Expanded-anticipation": 0.5, "NRC-10-Expanded-joy": 1.0, "NRC-10-Expanded-positive": 1.5,
    "NRC-10-Expanded-surprise": 0.25, "NRC-10-Expanded-trust": 0.5,
    "NRC-Hash-Emo-joy": 1.5 + 0.125, "NRC-Hash-Emo-sadness": 1.25,
    "SentiWordnet-posScore": 2 * (0.5 / 2 - 0.25 / 4), "SentiWordnet-negScore": -0.75 / 2,
    "Emoticons-posScore": 2,  # ':d' does not match the key ':D'
    "Negation-negationCount": 1,
}


def write_lexicons(root: Path, fixtures: dict[str, list[str]] = FIXTURES) -> Path:
    for relative, lines in fixtures.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode("utf-8")))
    return root


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return write_lexicons(tmp_path / "data")


def test_feature_layout_follows_affectivetweets(data_dir):
    featurizer = LexiconFeaturizer.from_data_dir(data_dir)
    assert featurizer.dim == len(featurizer.feature_names) == 43
    assert featurizer.feature_names[:4] == ["mpqa-posCount", "mpqa-negCount", "BingLiu-posCount", "BingLiu-negCount"]
    assert featurizer.feature_names[-1] == "Negation-negationCount"
    assert [n for n in featurizer.feature_names if n.startswith("NRC-10-") and "Expanded" not in n] == [
        f"NRC-10-{e}" for e in NRC_EMOTIONS_SENTIMENT
    ]
    assert [lexicon.name for lexicon in featurizer.lexicons] == LEXICONS.names()


def test_values_match_hand_computation(data_dir):
    featurizer = LexiconFeaturizer.from_data_dir(data_dir)
    features = featurizer.transform([TWEET])
    assert features.dtype == np.float32 and features.shape == (1, 43)
    expected = [EXPECTED.get(name, 0.0) for name in featurizer.feature_names]
    np.testing.assert_array_equal(features[0], np.asarray(expected, dtype=np.float32))


def test_batch_rows_are_independent_and_empty_tweets_are_zero(data_dir):
    featurizer = LexiconFeaturizer.from_data_dir(data_dir)
    batch = featurizer.transform([[], TWEET, ["unknown", "words"], TWEET[::-1]])
    single = featurizer.transform([TWEET])[0]
    np.testing.assert_array_equal(batch[1], single)
    np.testing.assert_array_equal(batch[3], single)  # a sum: order does not matter
    assert not batch[0].any() and not batch[2].any()
    assert featurizer.transform([]).shape == (0, 43)


def test_named_subset_loads_only_its_files(tmp_path):
    wanted = {p: lines for p, lines in FIXTURES.items() if "Negating" in p or "AFINN-en" in p}
    featurizer = LexiconFeaturizer.from_data_dir(write_lexicons(tmp_path, wanted), names=["negation", "afinn"])
    assert featurizer.feature_names == ["Negation-negationCount", "AFINN-posScore", "AFINN-negScore"]
    np.testing.assert_array_equal(featurizer.transform([TWEET])[0], [1, 6, -3])


def test_edited_file_is_reread(data_dir):
    LexiconFeaturizer.from_data_dir(data_dir, names=["afinn"])
    write_lexicons(data_dir, {f"{AT}/AFINN-en-165.txt.gz": ["glad\t5", "awful\t-1.5"]})
    featurizer = LexiconFeaturizer.from_data_dir(data_dir, names=["afinn"])
    np.testing.assert_array_equal(featurizer.transform([TWEET])[0], [10, -1.5])


def test_missing_file_names_it_and_the_fetch_command(tmp_path):
    with pytest.raises(IsarcasmError) as error:
        LexiconFeaturizer.from_data_dir(tmp_path, names=["bing-liu"])
    message = str(error.value)
    assert f"{AT}/BingLiu.csv.gz" in message and "isarcasm data fetch lexicons --mirror DIR" in message


@pytest.mark.parametrize("names, hint", [(["bingliu"], "did you mean 'bing-liu'"),
                                         (["afinn", "afinn"], "more than once"),
                                         ([], "no lexicon named")])
def test_bad_names(data_dir, names, hint):
    with pytest.raises(IsarcasmError, match=hint):
        LexiconFeaturizer.from_data_dir(data_dir, names=names)


@pytest.mark.parametrize("name, relative, lines, where, problem", [
    ("afinn", f"{AT}/AFINN-en-165.txt.gz", ["glad\t3", "awful\tbad"], 2, "'bad' is not a number"),
    ("sentiment140", f"{AT}/Sentiment140-Lexicon-v0.1/unigrams-pmilexicon.txt.gz", ["glad\tnan\t1\t1"], 1,
     "not a number"),
    ("mpqa", f"{AT}/mpqa.txt.gz", ["glad\tpositive", "", "awful"], 3, "at least 2 TAB-separated columns"),
    ("nrc-emolex", f"{AT}/NRC-emotion-lexicon-wordlevel-v0.92.txt.gz", ["glad\tjoy\t2"], 1, "is not 0 or 1"),
    ("nrc-emolex", f"{AT}/NRC-emotion-lexicon-wordlevel-v0.92.txt.gz", ["glad\tglee\t1"], 1, "unknown emotion 'glee'"),
    ("nrc-10-expanded", f"{AT}/w2v-dp-BCC-Lex.csv.gz", ["word\tanger\tjoy"], 1, "header lacks column"),
    ("nrc-10-expanded", f"{AT}/w2v-dp-BCC-Lex.csv.gz", ["\t".join(EXPANDED_HEADER), "glad\t0.5"], 2, "expected 11"),
    ("nrc-hashtag-emotion", f"{AT}/NRC-Hashtag-Emotion-Lexicon-v0.2.txt.gz",
     ["....", "joy\tglad\t0.5", "glee\tglad\t1"], 3, "unknown emotion"),
    ("sentiwordnet", "lexicons/sentiwordnet/SentiWordNet_3.0.0.pos_neg_terms.txt.gz", ["0.5\t0\tglad#1 happy"], 1,
     "'happy' is not word#rank"),
])
def test_malformed_line_names_file_and_row(tmp_path, name, relative, lines, where, problem):
    write_lexicons(tmp_path, {relative: lines})
    with pytest.raises(DataError) as error:
        LexiconFeaturizer.from_data_dir(tmp_path, names=[name])
    message = str(error.value)
    assert f"{Path(relative).name}:{where}: " in message and problem in message


def test_strings_instead_of_token_lists_are_refused(data_dir):
    with pytest.raises(TypeError, match="list of token lists"):
        LexiconFeaturizer.from_data_dir(data_dir, names=["negation"]).transform(["not", "good"])


def test_real_lexicons(real_data_dir):
    if not (real_data_dir / "lexicons").is_dir():
        pytest.skip(f"no lexicons/ in {real_data_dir}")
    featurizer = LexiconFeaturizer.from_data_dir(real_data_dir)
    assert featurizer.dim == 43
    happy, grumpy = featurizer.transform([["good", "happy", "love"], ["i", "don't", "hate", "#fail", ":("]])
    value = dict(zip(featurizer.feature_names, happy))
    assert value["BingLiu-posCount"] == 3 and value["BingLiu-negCount"] == 0
    assert value["AFINN-posScore"] > 0 and value["AFINN-negScore"] == 0
    assert value["NRC-10-joy"] >= 2 and value["SentiWordnet-posScore"] > 0
    value = dict(zip(featurizer.feature_names, grumpy))
    assert value["Negation-negationCount"] == 1 and value["Emoticons-negScore"] == -2
    assert value["AFINN-negScore"] < 0 and value["NRC-Hash-Sent-negScore"] < 0


def test_tweet_tokens_keep_contractions_emoticons_and_hashtags():
    assert tweet_tokens(["I DON'T like it :( #Gloom &amp; @bob"]) == [
        ["i", "don't", "like", "it", ":(", "#gloom", "&", "@bob"]]
    assert tweet_tokens(["", None]) == [[], []]


def test_model_inputs_match_lexicons_on_tweet_tokens_not_model_tokens(tmp_path):
    """The model's tokens drop ':(' and split "don't"; the lexicon features must still see them."""
    write_lexicons(tmp_path, {**FIXTURES, f"{AT}/NegatingWordList.txt.gz": ["don't\r", "never\r"]})
    texts = ["I don't like it :(", "never :) never", "plain words"]
    inputs = ModelInputs.fit(PreprocessConfig(), ("tokens", "lexicon"), FitTexts(texts), tmp_path)
    names = inputs._lexicons.feature_names
    columns = [names.index(n) for n in ("Emoticons-posScore", "Emoticons-negScore", "Negation-negationCount")]
    np.testing.assert_array_equal(inputs._lexicon_features(texts)[:, columns], [[0, -2, 1], [2, 0, 2], [0, 0, 0]])
