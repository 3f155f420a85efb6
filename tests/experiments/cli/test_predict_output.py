"""What ``predict`` prints is unambiguous: a header, P(sarcastic) itself, no empty texts, a note
when a text was cut to the model's length, and nothing a terminal would act on (ESC sequences,
bidirectional overrides) printed raw, in ``predict`` and ``preprocess`` alike."""
import json

import pytest
from click.testing import CliRunner
from toy_corpus import train_toy, write_corpus

from experiments.cli import main
from experiments.runs.one.protocol import TrainConfig
from preprocessing.corpora import load_corpus
from preprocessing.errors import shown

#: ESC colour and title sequences, a C1 control, a right-to-left override and isolate, a tab.
HOSTILE = "yeah \x1b[31mright\x1b]0;owned\x07 \x85 \u202etxt.exe \u2066x\u2069\tend"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("predict")
    corpus = write_corpus(folder / "toy.csv")
    dataset = load_corpus(str(corpus), folder, split_col="split")
    return train_toy(dataset, "cnn", folder / "run", folder, TrainConfig(epochs=1, embeddings="random")).directory


def predict(run, *args):
    return CliRunner().invoke(main, ["predict", str(run), *args])


def test_the_tsv_has_a_header_and_the_probability_of_the_sarcastic_class(run):
    texts = ["coffee exam yeah right", "coffee exam is fine"]
    table = predict(run, *[a for t in texts for a in ("--text", t)])
    rows = predict(run, "--json", *[a for t in texts for a in ("--text", t)])
    assert table.exit_code == 0 and rows.exit_code == 0, table.output + rows.output
    header, *lines = table.stdout.splitlines()
    assert header == "label\tp_sarcastic\ttext"
    for line, row, text in zip(lines, json.loads(rows.stdout), texts, strict=True):
        label, p, shown_text = line.split("\t")
        assert (label, shown_text) == (row["label"], text)
        assert float(p) == pytest.approx(row["probabilities"]["sarcastic"], abs=5e-4) == row["p_sarcastic"]
        assert label == ("sarcastic" if row["p_sarcastic"] >= 0.5 else "not_sarcastic")


@pytest.mark.parametrize("empty", ["", "   ", "\t\n"])
def test_an_empty_text_is_refused_like_an_empty_text_in_a_file(run, empty):
    result = predict(run, "--text", "fine", "--text", empty)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == "Error: --text number 2: empty text; give the text itself, or leave that --text out\n"


def test_a_text_longer_than_the_model_reads_says_how_much_was_used(run, caplog):
    long_text = " ".join(["coffee exam yeah right"] * 50)
    with caplog.at_level("WARNING"):
        result = predict(run, "--json", "--text", "short one", "--text", long_text)
    rows = json.loads(result.stdout)
    assert (rows[0]["tokens_used"], rows[0]["tokens_total"]) == (2, 2)
    assert rows[1]["tokens_total"] == 200 and rows[1]["tokens_used"] < 200
    assert (rows[0]["truncated"], rows[1]["truncated"]) == (False, True)
    notes = [r.getMessage() for r in caplog.records if r.name == "isarcasm"]
    assert len(notes) == 1 and f"text 2: {rows[1]['tokens_used']} of 200 tokens" in notes[0]
    assert "1 text longer than the run's max length" in notes[0]


def test_control_and_bidi_characters_are_printed_escaped(run):
    result = predict(run, "--text", HOSTILE)
    assert result.exit_code == 0, result.output
    line = result.stdout.splitlines()[1]
    assert line.split("\t")[2] == shown(HOSTILE) == ("yeah \\x1b[31mright\\x1b]0;owned\\x07 \\x85 \\u202etxt.exe "
                                                     "\\u2066x\\u2069\\tend")
    as_json = predict(run, "--json", "--text", HOSTILE).stdout
    assert not any(ch in as_json for ch in "\x1b\x07\x85\u202e\u2066")  # escaped in JSON's own way...
    assert json.loads(as_json)[0]["text"] == HOSTILE  # ...so the value is the text itself
    preprocessed = CliRunner().invoke(main, ["preprocess", "--text", HOSTILE])
    assert preprocessed.exit_code == 0 and "\\x1b" in preprocessed.stdout and "\\u202e" in preprocessed.stdout
    assert not any(ch in preprocessed.stdout for ch in "\x1b\x07\x85\u202e\u2066")


def test_emoji_and_accents_are_shown_as_they_are():
    family = "famille 👨\u200d👩\u200d👧 café"  # zero-width joiners are not controls a terminal acts on
    assert shown(family) == family


def test_a_csv_input_is_read_as_records_not_lines(run, tmp_path):
    """The header is no text, the label column stays out of the texts, and a quoted field over two
    lines is one text (escaped \\n in the table)."""
    path = tmp_path / "mine.csv"
    path.write_text('id,tweet,label\n1,coffee exam yeah right,1\n2,"traffic is fine\non monday",0\n')
    result = predict(run, "--input", str(path), "--text-col", "tweet")
    assert result.exit_code == 0, result.output
    assert [line.split("\t")[2] for line in result.stdout.splitlines()[1:]] == [
        "coffee exam yeah right", "traffic is fine\\non monday"]
    jsonl = tmp_path / "mine.jsonl"
    jsonl.write_text('{"text": "coffee exam yeah right"}\n{"text": "traffic is fine"}\n')
    rows = json.loads(predict(run, "--json", "--input", str(jsonl)).stdout)
    assert [row["text"] for row in rows] == ["coffee exam yeah right", "traffic is fine"]


def test_a_txt_input_is_one_text_per_line_and_other_files_are_refused_in_one_line(run, tmp_path):
    lines = tmp_path / "texts.txt"
    lines.write_text("id,text\ncoffee exam yeah right\n\n")
    result = predict(run, "--input", str(lines))
    assert [line.split("\t")[2] for line in result.stdout.splitlines()[1:]] == ["id,text", "coffee exam yeah right"]
    assert predict(run, "--input", str(lines), "--text-col", "tweet").exit_code == 1
    other = tmp_path / "texts.md"
    other.write_text("coffee\n")
    refused = predict(run, "--input", str(other))
    assert refused.exit_code == 1 and "unsupported file type .md" in refused.stderr
    missing = tmp_path / "mine.csv"
    missing.write_text("tweet\ncoffee\n")
    refused = predict(run, "--input", str(missing))
    assert refused.exit_code == 1 and "text" in refused.stderr and len(refused.stderr.splitlines()) == 1


def test_a_typed_backslash_t_and_a_real_tab_print_differently(run):
    result = predict(run, "--text", "a\\tb", "--text", "a\tb")
    typed, real = (line.split("\t")[2] for line in result.stdout.splitlines()[1:])
    assert (typed, real) == ("a\\\\tb", "a\\tb")
