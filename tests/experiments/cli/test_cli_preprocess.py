"""``isarcasm preprocess`` and ``isarcasm embeddings info`` through click's runner."""
from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from experiments.cli import main


def run(tmp_path, *args):
    return CliRunner().invoke(main, ["--data-dir", str(tmp_path), *args])


@pytest.fixture
def corpus(tmp_path):
    """A tiny file corpus: "rain" is frequent in train, "tests" occurs only in test."""
    path = tmp_path / "tiny.csv"
    rows = [("t1", "I love rain!!! @bob", 1, "train"), ("t2", "rain again... 3 days", 0, "train"),
            ("t3", "I love once-words", 1, "train"), ("t4", "tests tests tests", 0, "test")]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text", "label", "split"])
        writer.writerows(rows)
    return path


@pytest.fixture
def glove(tmp_path, monkeypatch):
    monkeypatch.setenv("ISARCASM_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "tiny.txt"
    path.write_text("love 0.1 0.2\nrain 0.3 0.4\ni 0.5 0.6\n", encoding="utf-8")
    return path


def test_preprocess_text_prints_normalised_tokens(tmp_path):
    result = run(tmp_path, "preprocess", "--text", "@Bob I LOVE 3 hours... #not https://t.co/x :)")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "<user> i love <number> hours <ellipsis> not <url>"


def test_preprocess_options_change_the_tokens(tmp_path):
    result = run(tmp_path, "preprocess", "--text", "I LOVE 3 #cats", "--no-lowercase", "--numbers", "keep",
                 "--hashtags", "keep", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["rows"] == [{"text": "I LOVE 3 #cats", "tokens": ["I", "LOVE", "3", "#cats"]}]
    assert data["config"]["numbers"] == "keep" and data["config"]["lowercase"] is False


def test_preprocess_corpus_shows_unk_from_training_counts(tmp_path, corpus):
    result = run(tmp_path, "preprocess", "--corpus", str(corpus), "--split-col", "split", "--split", "test",
                 "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["rows"][0]["tokens"] == ["<unk>", "<unk>", "<unk>"]  # test-only word
    assert data["rows"][0]["id"] == "t4" and data["rows"][0]["label"] == "not_sarcastic"
    assert data["vocabulary"] == 6 + 4  # specials + !, i, love, rain


def test_preprocess_corpus_unk_scope_corpus_keeps_test_words(tmp_path, corpus):
    result = run(tmp_path, "preprocess", "--corpus", str(corpus), "--split-col", "split", "--split", "test",
                 "--unk-scope", "corpus")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "[t4 not_sarcastic] tests tests tests"


def test_preprocess_corpus_table_and_limit(tmp_path, corpus):
    result = run(tmp_path, "preprocess", "--corpus", str(corpus), "--split-col", "split", "--limit", "2",
                 "--max-len", "3")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("corpus: ") and lines[0].endswith("tiny.csv")
    assert lines[1:3] == ["vocabulary: 10", "max_len: 3"]
    # max_len 3 keeps the end of "i love rain ! ! ! <user>" and "rain again <ellipsis> <number> days"
    assert lines[3:] == ["[t1 sarcastic] ! ! <user>   (4 tokens cut)",
                         "[t2 not_sarcastic] <ellipsis> <number> <unk>   (2 tokens cut)"]


def test_preprocess_usage_errors(tmp_path, corpus):
    result = run(tmp_path, "preprocess")
    assert result.exit_code == 2 and "give --text TEXT or --corpus NAME" in result.output
    result = run(tmp_path, "preprocess", "--corpus", str(corpus), "--split-col", "split", "--split", "dev")
    assert result.exit_code == 1
    assert "tiny.csv' has no split 'dev' (splits: train, test)" in result.output
    result = run(tmp_path, "preprocess", "--text", "x", "--language", "xx")
    assert result.exit_code == 1 and "unknown tokenizer language 'xx'" in result.output
    assert "Traceback" not in result.output


def test_embeddings_info_with_coverage(tmp_path, corpus, glove):
    result = run(tmp_path, "embeddings", "info", "--embeddings", str(glove), "--corpus", str(corpus),
                 "--split-col", "split", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)  # the one-time cache note goes to stderr
    assert (data["words"], data["dim"], data["cache_built"]) == (3, 2, True)
    coverage = data["coverage"]
    assert (coverage["types_found"], coverage["types_total"]) == (3, 4)  # "!" has no vector
    # training tokens: i love rain ! ! ! <user> | rain again <ellipsis> <number> days | i love once words
    assert coverage["tokens_total"] == 16 and coverage["tokens_found"] == 6
    assert coverage["top_missing"] == ["!"]


def test_embeddings_info_table_uses_the_cache_the_second_time(tmp_path, glove):
    run(tmp_path, "embeddings", "info", "--embeddings", str(glove))
    result = run(tmp_path, "embeddings", "info", "--embeddings", str(glove))
    assert result.exit_code == 0, result.output
    assert "words: 3" in result.output and "cache_built: False" in result.output
    assert "reading word vectors" not in result.output


def test_embeddings_info_random_and_missing_file(tmp_path):
    result = run(tmp_path, "embeddings", "info", "--embeddings", "random")
    assert result.exit_code == 0 and result.output.strip() == "embeddings: random"
    result = run(tmp_path, "embeddings", "info")
    assert result.exit_code == 1
    assert "glove.6B.100d.wink341k.txt.gz: word vectors file not found" in result.output
    assert "--embeddings random" in result.output and "Traceback" not in result.output
