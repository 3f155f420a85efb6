"""Chinese and Korean tokenizers (preprocessing/tokenize.py, CjkTokenizer) on fixed strings."""
from __future__ import annotations

import pytest

from preprocessing.config import PreprocessConfig
from preprocessing.corpora import load_corpus
from preprocessing.tokenize import TOKENIZERS, NormalisingTokenizer

CASES = [
    # (language, text, expected tokens)
    # Chinese: one token per Han character; full-width ！？（） kept as ASCII marks, ， dropped
    ("zh", "我今天很高兴！你呢？", ["我", "今", "天", "很", "高", "兴", "!", "你", "呢", "?"]),
    ("zh", "呵呵，真棒（笑）。", ["呵", "呵", "真", "棒", "(", "笑", ")", "."]),
    ("zh", "《战狼》、“好”", ["战", "狼", "好"]),  # CJK brackets, enumeration comma, quotes dropped
    # numbers and URLs inside Chinese text, in either width
    ("zh", "2020年花了12.5元", ["<number>", "年", "花", "了", "<number>", "元"]),
    ("zh", "２０２０年", ["<number>", "年"]),
    ("zh", "看http://t.co/abc很好", ["看", "<url>", "很", "好"]),
    ("zh", "好吧……真的", ["好", "吧", "<ellipsis>", "真", "的"]),
    ("zh", "好吧。。。", ["好", "吧", "<ellipsis>"]),
    ("zh", "iPhone真香", ["iphone", "真", "香"]),  # Latin runs stay words (lowercased)
    ("zh", "#讽刺# 哈哈😂", ["讽", "刺", "哈", "哈", "😂"]),
    # Korean: eojeol tokens, punctuation and digits split off
    ("ko", "안녕하세요, 반갑습니다!", ["안녕하세요", "반갑습니다", "!"]),
    ("ko", "진짜 대단하다... 정말?", ["진짜", "대단하다", "<ellipsis>", "정말", "?"]),
    ("ko", "2020년에 10,000원이나 썼어", ["<number>", "년에", "<number>", "원이나", "썼어"]),
    ("ko", "와~ 정말(웃음)！", ["와", "정말", "(", "웃음", ")", "!"]),
    ("ko", "https://naver.com/x 봐봐 @kim_1", ["<url>", "봐봐", "<user>"]),
    ("ko", "ㅋㅋㅋ 좋아^^", ["ㅋㅋㅋ", "좋아"]),
]


@pytest.mark.parametrize("language,text,expected", CASES)
def test_tokens(language, text, expected):
    tokenize = NormalisingTokenizer(PreprocessConfig(language=language))
    assert tokenize([text]) == [expected]


def test_registered():
    assert {"en", "zh", "ko"} <= set(TOKENIZERS.names())


def test_options_apply_to_chinese():
    config = PreprocessConfig(language="zh", numbers="keep", urls="drop", keep_punct=".!?(),")
    assert NormalisingTokenizer(config)(["2020年，看www.example.com"]) == [["2020", "年", ",", "看"]]


@pytest.mark.parametrize("corpus,language", [("tosarcasm", "zh"), ("kocosa", "ko")])
def test_real_corpus_tokenizes(real_data_dir, corpus, language):
    """The first 200 records of each split: every text gives tokens, Chinese ones are mostly single characters."""
    if not (real_data_dir / corpus).is_dir():
        pytest.skip(f"{corpus} not in {real_data_dir}")
    dataset = load_corpus(corpus, real_data_dir)
    assert dataset.language == language
    records = [r for split in dataset.splits for r in dataset.split(split)[:200]]
    tokens = NormalisingTokenizer(PreprocessConfig(language=language))([r.text for r in records])
    assert all(tokens), "a text without tokens"
    flat = [t for text in tokens for t in text]
    single = sum(len(t) == 1 for t in flat) / len(flat)
    assert single > 0.9 if language == "zh" else single < 0.5
