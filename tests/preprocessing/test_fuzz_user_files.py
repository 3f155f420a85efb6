"""Fuzzing every reader of user files (.csv, .tsv, .jsonl) and the text input of ``preprocess``/``predict``.

The property, for any input: either the command succeeds with one record (or
prediction) per row, or it stops with exit code 1 and one line naming the file,
the row and the problem.  Never a traceback.  The examples are derandomized
(see the ``isarcasm`` profile in conftest.py), so a failure reproduces.
"""
from __future__ import annotations

import codecs
import csv
import io
import json
import traceback
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from click.testing import CliRunner  # noqa: E402

from experiments.cli import main  # noqa: E402
from preprocessing.anyfile import read_any_file  # noqa: E402
from preprocessing.errors import DataError  # noqa: E402

#: Reading a file directly is cheap: these properties get more examples than the profile's default.
READER_EXAMPLES = settings(max_examples=400)

LABELS = ["0", "1", "true", "false", "sarcastic", "not_sarcastic", "TRUE", " 1 "]
BAD_LABELS = ["2", "", "maybe", "1.0", "-1", "0x1"]
LINE_ENDS = ["\n", "\r\n", "\r"]

# Text anywhere in Unicode except lone surrogates (which no UTF-8 file can hold): control characters,
# NUL, line and paragraph separators, quotes and delimiters included.
any_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
odd_text = st.one_of(any_text, st.sampled_from(['"', '""', '"a"b', 'a"', "\t", ",", "\r", "\n", " ", "\x00",
                                                 "\ufeff", "\u2028", "\x1c", "12345", "1e5", "NaN", "null"]))


def clean_error(error: Exception, path: Path) -> None:
    """A user error: one line, naming the file."""
    message = str(error)
    assert isinstance(error, DataError), traceback.format_exception(error)
    assert "\n" not in message and "\r" not in message, message
    assert message.startswith(str(path)), message


def check_cli_failure(result, path: Path | None = None) -> None:
    """Exit 1, one line on stderr (naming the file when there is one), no traceback."""
    assert result.exception is None or isinstance(result.exception, SystemExit), "".join(
        traceback.format_exception(result.exception))
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    if path is not None:
        assert str(path) in lines[0], lines[0]
    assert "Traceback" not in result.output


def write(directory: Path, name: str, data: bytes) -> Path:
    path = directory / name
    path.write_bytes(data)
    return path


# --- CSV and TSV ---------------------------------------------------------------------------------

hostile_rows = st.lists(st.tuples(odd_text, st.one_of(st.sampled_from(LABELS), st.sampled_from(BAD_LABELS)),
                                  st.sampled_from(["train", "test", " test", ""])), min_size=0, max_size=12)
# Rows a reader must accept: any characters, but some text in each, a known label and a split.
valid_rows = st.lists(st.tuples(odd_text.map(lambda t: t if t.strip() else t + "w"), st.sampled_from(LABELS),
                                st.sampled_from(["train", "test", " test"])), min_size=1, max_size=12)
rows_strategy = st.one_of(valid_rows, hostile_rows)


@st.composite
def table_files(draw):
    """A table written the way spreadsheets and pandas write them, with odd but meaningful variations."""
    suffix = draw(st.sampled_from([".csv", ".tsv"]))
    rows = draw(rows_strategy)
    header = draw(st.sampled_from([["id", "text", "label", "split"], ["text", "label", "split"],
                                   ["split", "label", "text", "extra"], ["text", "text", "label", "split"],
                                   ["text", "label"], ["tweet", "label", "split"]]))
    quoting = draw(st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL, csv.QUOTE_NONNUMERIC]))
    line_end = draw(st.sampled_from(LINE_ENDS))
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8-sig", "utf-16", "latin-1", "cp1252"]))
    ids = draw(st.lists(st.sampled_from(["a", "b", "c", "", " ", "1"]), min_size=len(rows), max_size=len(rows))
               if draw(st.integers(0, 3)) == 0 else st.just([f"r{i}" for i in range(len(rows))]))
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, delimiter="\t" if suffix == ".tsv" else ",", quoting=quoting, lineterminator=line_end)
    writer.writerow(header)
    for (text, label, split), id_ in zip(rows, ids):
        values = {"id": id_, "text": text, "label": label, "split": split, "extra": "x", "tweet": text}
        writer.writerow([values[column] for column in header])
    if draw(st.booleans()):  # trailing blank lines
        buffer.write(line_end * 2)
    try:
        data = buffer.getvalue().encode(encoding)
    except UnicodeEncodeError:
        data = buffer.getvalue().encode("utf-8")
        encoding = "utf-8"
    if quoting == csv.QUOTE_MINIMAL and any(ch in cell for row in rows for cell in row for ch in "\r\n"
                                            if ch not in line_end):
        encoding = "ambiguous"  # the csv module leaves a bare \r (or \n) unquoted: a line break when read back
    return suffix, header, rows, ids, encoding, data


def expected_records(header, rows, ids, encoding, data) -> list[tuple[str, str, str]] | None:
    """The (id, text, split) records a correct reader returns, or None when the file must be refused
    ("ambiguous" when either answer is right)."""
    if encoding == "ambiguous":
        return "ambiguous"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if b"\x00" in data or not rows:
        return None
    if header.count("text") != 1 or "label" not in header or "split" not in header:
        return None
    records, seen = [], set()
    for row_no, ((text, label, split), id_) in enumerate(zip(rows, ids), start=2):
        record_id = id_.strip() if "id" in header else f"row-{row_no}"
        if (not text.strip() or label.strip().lower() not in {l.strip().lower() for l in LABELS}
                or not split.strip() or not record_id or record_id in seen):
            return None
        seen.add(record_id)
        records.append((record_id, text, split.strip()))
    return records


@READER_EXAMPLES
@given(table_files())
def test_any_csv_or_tsv_is_read_row_for_row_or_refused_in_one_line(tmp_path_factory, table):
    suffix, header, rows, ids, encoding, data = table
    path = write(tmp_path_factory.mktemp("csv"), "mine" + suffix, data)
    expected = expected_records(header, rows, ids, encoding, data)
    try:
        dataset = read_any_file(path, split_col="split")
    except Exception as error:  # noqa: BLE001  (the property: any failure is a one-line DataError)
        clean_error(error, path)
        assert expected in (None, "ambiguous"), f"a valid file was refused: {error}"
        return
    assert expected is not None, "an invalid file was accepted"
    if expected != "ambiguous":
        assert [(r.id, r.text, r.split) for r in dataset.records] == expected


@READER_EXAMPLES
@given(st.sampled_from([".csv", ".tsv", ".jsonl"]), st.binary(max_size=300), st.booleans())
def test_random_bytes_are_read_or_refused_in_one_line(tmp_path_factory, suffix, noise, after_header):
    header = {".csv": b"text,label\r\n", ".tsv": b"text\tlabel\n", ".jsonl": b'{"text": "a", "label": 1}\n'}[suffix]
    path = write(tmp_path_factory.mktemp("bytes"), "noise" + suffix, (header if after_header else b"") + noise)
    try:
        dataset = read_any_file(path)
    except Exception as error:  # noqa: BLE001
        clean_error(error, path)
        return
    assert dataset.records and all(r.text.strip() for r in dataset.records)


# --- JSONL ---------------------------------------------------------------------------------------

json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | odd_text,
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(odd_text, inner, max_size=3),
                           max_leaves=6)


@st.composite
def jsonl_files(draw):
    objects = draw(st.lists(st.fixed_dictionaries(
        {}, optional={"text": st.one_of(odd_text, json_values), "label": st.one_of(st.sampled_from(LABELS),
                                                                                     st.sampled_from([0, 1, True, 1.0]),
                                                                                     json_values),
                      "id": st.one_of(st.integers(0, 3), odd_text, json_values)}), max_size=8))
    line_end = draw(st.sampled_from(LINE_ENDS[:2]))
    lines = [json.dumps(o, ensure_ascii=draw(st.booleans())) for o in objects]
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["", "   ", "[1, 2]", "{", "1" * 5000,
                                                                             "[" * 100_000, '"text"', "\ufeff{}"])))
    return objects, line_end.join(lines).encode("utf-8", "surrogatepass")


@READER_EXAMPLES
@given(jsonl_files())
def test_any_jsonl_is_read_object_for_object_or_refused_in_one_line(tmp_path_factory, jsonl):
    objects, data = jsonl
    path = write(tmp_path_factory.mktemp("jsonl"), "mine.jsonl", data)
    try:
        dataset = read_any_file(path)
    except Exception as error:  # noqa: BLE001
        clean_error(error, path)
        return
    assert len(dataset.records) == len(objects)
    for record, obj in zip(dataset.records, objects):
        assert isinstance(obj["text"], (str, int, float)) and record.text == str(obj["text"])


# --- preprocess and predict ----------------------------------------------------------------------

@given(table_files())
def test_preprocess_shows_every_row_of_a_file_corpus_or_one_line(tmp_path_factory, table):
    suffix, header, rows, ids, encoding, data = table
    folder = tmp_path_factory.mktemp("pre")
    path = write(folder, "mine" + suffix, data)
    result = CliRunner().invoke(main, ["--data-dir", str(folder), "preprocess", "--corpus", str(path), "--split-col",
                                       "split", "--split", "test", "--limit", "0", "--json"])
    expected = expected_records(header, rows, ids, encoding, data)
    if result.exit_code != 0:
        if expected is not None and "has no split 'test'" in result.stderr:
            expected = None  # a valid file without test rows: the one-line answer names the splits
        check_cli_failure(result)
        assert expected in (None, "ambiguous"), result.stderr
        return
    assert expected is not None, "an invalid file was accepted"
    if expected == "ambiguous":
        return
    shown = json.loads(result.stdout)["rows"]
    assert [(r["id"], r["text"]) for r in shown] == [(i, t) for i, t, s in expected if s == "test"]


def not_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


#: Any text an argument can carry, lone surrogates (an argument's bytes that are not UTF-8) included.
argument_text = st.text(st.characters(blacklist_categories=()), max_size=30)


@given(st.lists(argument_text, min_size=1, max_size=5))
def test_preprocess_text_gives_one_row_per_text_or_one_line(texts):
    args = ["preprocess", "--json"] + [arg for text in texts for arg in ("--text", text)]
    result = CliRunner().invoke(main, args)
    if result.exit_code != 0:  # only text that is not UTF-8 (lone surrogates), or empty, is refused
        check_cli_failure(result)
        assert any(map(not_utf8, texts)) or not all(t.strip() for t in texts), result.stderr
        return
    assert [row["text"] for row in json.loads(result.stdout)["rows"]] == texts


@pytest.fixture(scope="module")
def trained_run(tmp_path_factory):
    """One tiny finished run (1 epoch, random embeddings) to predict with."""
    from toy_corpus import write_corpus

    folder = tmp_path_factory.mktemp("run")
    corpus = write_corpus(folder / "toy.csv")
    result = CliRunner().invoke(main, ["--data-dir", str(folder), "train", "--corpus", str(corpus), "--model", "cnn",
                                       "--split-col", "split", "--epochs", "1", "--set", "embeddings=random",
                                       "--output-dir", str(folder / "runs")])
    assert result.exit_code == 0, result.output
    return next((folder / "runs").glob("*/toy/cnn/seed-0"))


def universal_lines(text: str) -> list[str]:
    """Lines ended by \\n, \\r\\n or \\r: what `predict --input` reads one text from."""
    return [line for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n") if line.strip()]


@given(st.lists(odd_text, max_size=8), st.sampled_from(LINE_ENDS), st.sampled_from(["utf-8", "utf-8-sig", "utf-16"]))
def test_predict_input_gives_one_prediction_per_line_or_one_line(tmp_path_factory, trained_run, lines, line_end,
                                                                 encoding):
    data = line_end.join(lines)
    path = write(tmp_path_factory.mktemp("predict"), "texts.txt", data.encode(encoding))
    result = CliRunner().invoke(main, ["predict", str(trained_run), "--input", str(path), "--json"])
    expected = universal_lines(data.lstrip("\ufeff") if encoding == "utf-8-sig" else data)
    if result.exit_code != 0:
        check_cli_failure(result)
        assert encoding == "utf-16" or "\x00" in data or not expected, result.stderr
        return
    assert [row["text"] for row in json.loads(result.stdout)] == expected


@given(st.lists(argument_text, min_size=1, max_size=4))
def test_predict_text_gives_one_prediction_per_text_or_one_line(trained_run, texts):
    result = CliRunner().invoke(main, ["predict", str(trained_run), "--json",
                                       *[arg for text in texts for arg in ("--text", text)]])
    if result.exit_code != 0:
        check_cli_failure(result)
        assert any(map(not_utf8, texts)) or not all(t.strip() for t in texts), result.stderr
        return
    assert [row["text"] for row in json.loads(result.stdout)] == texts


# --- sizes the generators do not reach ------------------------------------------------------------

def test_a_field_of_several_megabytes_and_many_rows_are_read(tmp_path):
    path = tmp_path / "big.tsv"
    long_text = "very long " * 400_000  # 4 MB in one field (the csv module's default limit is 128 KiB)
    with path.open("w", encoding="utf-8", newline="") as handle:
        handle.write("text\tlabel\n" + f"{long_text}\t1\n" + "".join(f"row {i}\t{i % 2}\n" for i in range(50_000)))
    dataset = read_any_file(path)
    assert len(dataset.records) == 50_001 and len(dataset.records[0].text) == len(long_text)


@pytest.mark.parametrize("name, data, problem", [
    ("open.csv", b'text,label\n"never closed,1\nnext,0\n', r"open.csv:\d+: malformed CSV"),
    ("after.csv", b'text,label\n"quoted"tail,1\n', r"after.csv:2: malformed CSV"),
    ("twice.csv", b"text,label,text\na,1,b\n", r"twice.csv:1: column\(s\) text appear more than once"),
    ("short.tsv", b"text\tlabel\tsplit\nhello\t1\n", r"short.tsv:2: fewer fields than the header.*split"),
    ("utf16.csv", codecs.BOM_UTF16_LE + "text,label\na,1\n".encode("utf-16-le"), r"utf16.csv: is UTF-16"),
    ("nul.csv", b"text,label\na\x00b,1\n", r"nul.csv:2: NUL character"),
    ("list.jsonl", b'{"text": ["a"], "label": 1}\n', r"list.jsonl:1: 'text' holds an array"),
    ("deep.jsonl", b"[" * 100_000 + b"\n", r"deep.jsonl:1: nested more than 100 levels deep"),
    ("deeper.jsonl", b'{"text": "a", "label": 1, "x": ' + b"[" * 101 + b"]" * 101 + b"}\n",
     r"deeper.jsonl:1: nested more than 100 levels deep"),
    ("digits.jsonl", b'{"text": "a", "label": ' + b"1" * 5000 + b"}\n", r"digits.jsonl:1: invalid JSON"),
    ("blank.jsonl", b"\n  \n", r"blank.jsonl: file is empty"),
])
def test_odd_files_are_refused_naming_the_row_and_problem(tmp_path, name, data, problem):
    path = write(tmp_path, name, data)
    with pytest.raises(DataError, match=problem):
        read_any_file(path, split_col="split" if name == "short.tsv" else None)


def test_odd_but_valid_files_are_accepted(tmp_path):
    """A BOM, CR-only or mixed line ends, blank lines, quoted newlines, U+2028 and control characters in a text."""
    data = ("\ufefftext,label\r\n\"two\nlines\",1\rsep\u2028arated,0\n\n\"say \"\"hi\"\"\",true\r\nbell\x07,false\n"
            ).encode("utf-8")
    dataset = read_any_file(write(tmp_path, "odd.csv", data))
    assert [r.text for r in dataset.records] == ["two\nlines", "sep\u2028arated", 'say "hi"', "bell\x07"]
