"""One reader per corpus: data directory in, :class:`Loaded` records out.

Each reader follows its folder's SOURCE.md (formats, traps, counts) and
reports problems through :mod:`preprocessing.fileio`, which names the file and
row (for JSON files the "row" is the record key or item number).  Records get
stable ids: the corpus' own id where it has one, else ``<split>-<row index>``.
Warnings (dropped rows, missing text, known label problems) are logged and
returned with the records so ``isarcasm data stats`` can show them.
"""
from __future__ import annotations

import logging
import random
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from .specs import Loaded
from .errors import DataError
from .fileio import parse_label, read_csv, read_json, read_text
from .records import Fold, Record

log = logging.getLogger("isarcasm")

_01 = {"0": 0, "1": 1}


# --- shared helpers ------------------------------------------------------------------------------

def _loaded(records: list[Record], folds: tuple[Fold, ...] = (), warnings: list[str] | None = None) -> Loaded:
    """Log the reader's warnings once and bundle everything into a :class:`Loaded`."""
    warnings = warnings or []
    for message in warnings:
        log.warning(message)
    return Loaded(records, folds=folds, warnings=warnings)


def _lines(path: Path) -> list[str]:
    """Physical lines of a text file, LF or CRLF, without the empty string after a final newline.

    ``str.splitlines`` is avoided on purpose: it also splits on characters such as
    U+2028 or \\x1c that occur inside tweets.
    """
    lines = read_text(path).replace("\r\n", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _int(path: Path, row: int | str, value: str, what: str) -> int:
    try:
        return int(value.strip())
    except ValueError:
        raise DataError.at(path, row, f"{what} {value!r} is not a whole number") from None


def _fields(path: Path, where: str, item: Any, required: tuple[str, ...]) -> dict:
    """A JSON record, checked to be an object holding ``required``."""
    if not isinstance(item, dict):
        raise DataError.at(path, where, f"expected a JSON object, found {type(item).__name__}")
    missing = [f for f in required if f not in item]
    if missing:
        raise DataError.at(path, where, f"missing field(s) {', '.join(missing)}")
    return item


def _train_first(records: list[Record]) -> list[Record]:
    """Stable reorder so ``Dataset.splits`` lists train before test."""
    return sorted(records, key=lambda r: r.split != "train")


# --- iSarcasm 2020 -------------------------------------------------------------------------------

def read_isarcasm(data_dir: Path) -> Loaded:
    """iSarcasm 2020, the hydrated-text subset (no ids, no types)."""
    folder = data_dir / "isarcasm/text_tomoverman_iSarcasmNU"
    records = []
    for split in ("train", "test"):
        path = folder / f"data_{split}.csv"
        for i, (row_no, row) in enumerate(read_csv(path, ("text", "sarcasm_label"))):
            label = parse_label(path, row_no, row["sarcasm_label"], _01)
            records.append(Record(id=f"{split}-{i:05d}", text=row["text"], label=label, split=split))
    return Loaded(records)


_SARCASTIC = {"not_sarcastic": 0, "sarcastic": 1}


def read_isarcasm_ids(data_dir: Path, text_file: Path | None = None) -> Loaded:
    """iSarcasm 2020, official ids, labels and sarcasm types; text from a user's ``id<TAB>text`` file.

    The authors share tweet text only under a privacy agreement, so it never
    ships with the suite.  Ids without text keep ``text=None``; the coverage is
    reported so nobody mistakes a partial corpus for the paper's 4,484 tweets.
    Type names are normalised to the iSarcasmEval spelling (``rhetorical question``
    -> ``rhetorical_question``).
    """
    folder = data_dir / "isarcasm/official_ids"
    texts = _read_id_texts(Path(text_file)) if text_file else {}
    records = []
    for split in ("train", "test"):
        path = folder / f"isarcasm_{split}.csv"
        for row_no, row in read_csv(path, ("tweet_id", "sarcasm_label", "sarcasm_type")):
            tweet_id = row["tweet_id"].strip()
            if not tweet_id:
                raise DataError.at(path, row_no, "empty tweet_id")
            kind = row["sarcasm_type"].strip().lower().replace(" ", "_")
            records.append(Record(
                id=tweet_id, text=texts.get(tweet_id), split=split, types=(kind,) if kind else (),
                label=parse_label(path, row_no, row["sarcasm_label"], _SARCASTIC),
            ))
    covered = sum(r.text is not None for r in records)
    message = f"isarcasm-ids: {covered:,} of {len(records):,} ids have text"
    if text_file is None:
        message += "; pass --text-file with id<TAB>text lines to supply the tweet text"
    elif len(texts) > covered:
        message += f"; {len(texts) - covered:,} id(s) in {text_file} are not in the corpus"
    return _loaded(records, warnings=[message])


def _read_id_texts(path: Path) -> dict[str, str]:
    """``id<TAB>text`` lines (blank lines skipped; an empty text counts as missing)."""
    texts: dict[str, str] = {}
    first_line: dict[str, int] = {}
    for row_no, line in enumerate(_lines(path), start=1):
        if not line.strip():
            continue
        if "\t" not in line:
            raise DataError.at(path, row_no, "no TAB in line; expected id<TAB>text")
        tweet_id, text = line.split("\t", 1)
        tweet_id = tweet_id.strip()
        if tweet_id in first_line:
            raise DataError.at(path, row_no, f"duplicate id {tweet_id} (first on line {first_line[tweet_id]})")
        first_line[tweet_id] = row_no
        if text.strip():
            texts[tweet_id] = text
    return texts


# --- iSarcasmEval (SemEval-2022 Task 6) ----------------------------------------------------------

ISE_CATEGORIES = ("sarcasm", "irony", "satire", "understatement", "overstatement", "rhetorical_question")


def read_isarcasmeval(data_dir: Path) -> Loaded:
    """iSarcasmEval English: train (categories, rephrases) and task A test with task B categories.

    The one empty train tweet is dropped with a warning; duplicate texts are
    reported (they are real duplicates in the release, kept as distinct records).
    """
    folder = data_dir / "isarcasmeval"
    records, warnings = [], []
    train = folder / "train/train.En.csv"
    for row_no, row in read_csv(train, ("", "tweet", "sarcastic", "rephrase", *ISE_CATEGORIES)):
        label = parse_label(train, row_no, row["sarcastic"], _01)
        if not row["tweet"].strip():
            warnings.append(f"{train}:{row_no}: empty tweet (row index {row['']}) dropped")
            continue
        types = tuple(c for c in ISE_CATEGORIES if row[c].strip() in ("1", "1.0"))
        records.append(Record(
            id=f"train-{_int(train, row_no, row[''], 'row index'):05d}", text=row["tweet"], label=label,
            split="train", types=types, rephrase=row["rephrase"] or None,
        ))

    task_b = folder / "test/task_B_En_test.csv"
    categories = {
        row["text"]: tuple(c for c in ISE_CATEGORIES if row[c].strip() == "1")
        for _, row in read_csv(task_b, ("text", *ISE_CATEGORIES))
    }
    task_a = folder / "test/task_A_En_test.csv"
    for i, (row_no, row) in enumerate(read_csv(task_a, ("text", "sarcastic"))):
        label = parse_label(task_a, row_no, row["sarcastic"], _01)
        records.append(Record(
            id=f"test-{i:05d}", text=row["text"], label=label, split="test", types=categories.get(row["text"], ()),
        ))

    for split in ("train", "test"):
        texts = [r.text for r in records if r.split == split]
        duplicates = len(texts) - len(set(texts))
        if duplicates:
            warnings.append(f"isarcasmeval {split}: {duplicates} duplicate text(s) kept as separate records")
    return _loaded(records, warnings=warnings)


def read_isarcasmeval_b(data_dir: Path) -> Loaded:
    """Task B: the sarcastic tweets of train and test, each with its categories (multi-label)."""
    loaded = read_isarcasmeval(data_dir)
    return _loaded([r for r in loaded.records if r.label == 1], warnings=loaded.warnings)


# --- SemEval-2018 Task 3 -------------------------------------------------------------------------

_SE18_GOLD = ("Tweet index", "Label", "Tweet text")
_SE18_INPUT = ("Tweet index", "Tweet text")


def _tsv(path: Path, header: tuple[str, ...]) -> Iterator[tuple[int, list[str]]]:
    """Rows of a headed TAB-separated file whose last column is free text.

    Split by hand rather than with :mod:`csv` because tweets hold unbalanced
    quotes; the header is compared case-insensitively (the release spells it
    ``Tweet index``, ``Tweet Index`` and ``tweet index``).
    """
    lines = _lines(path)
    if [h.strip().lower() for h in lines[0].split("\t")] != [h.lower() for h in header]:
        raise DataError.at(path, 1, f"expected the header {' <TAB> '.join(header)}, found {lines[0]!r}")
    for row_no, line in enumerate(lines[1:], start=2):
        fields = line.split("\t", len(header) - 1)
        if len(fields) != len(header):
            raise DataError.at(path, row_no, f"expected {len(header)} TAB-separated fields, found {len(fields)}")
        yield row_no, fields


def _read_semeval2018(data_dir: Path, task: str, labels: dict[str, int]) -> Loaded:
    """Train from the hashtag-free ``*-taskX.txt``; test labels from the gold file, text from the input file.

    The gold test file is the only one with labels, but its text still holds the
    #irony/#sarcasm/#not hashtags the task removed everywhere else, so its text
    is ignored and the hashtag-free input text is joined on the tweet index.
    """
    folder = data_dir / "semeval2018-task3"
    records = []
    train = folder / f"train/SemEval2018-T3-train-task{task}.txt"
    for row_no, (index, label, text) in _tsv(train, _SE18_GOLD):
        records.append(Record(
            id=f"train-{_int(train, row_no, index, 'tweet index'):05d}", text=text,
            label=parse_label(train, row_no, label, labels), split="train",
        ))

    gold = folder / f"goldtest_Task{task}/SemEval2018-T3_gold_test_task{task}_emoji.txt"
    inputs = folder / f"test_Task{task}/SemEval2018-T3_input_test_task{task}.txt"
    gold_rows, input_rows = list(_tsv(gold, _SE18_GOLD)), list(_tsv(inputs, _SE18_INPUT))
    if len(gold_rows) != len(input_rows):
        raise DataError.at(inputs, None, f"{len(input_rows)} tweets, but the gold file {gold} has {len(gold_rows)}")
    for (row_no, (gold_index, label, _)), (_, (input_index, text)) in zip(gold_rows, input_rows):
        index = _int(gold, row_no, gold_index, "tweet index")
        if _int(inputs, row_no, input_index, "tweet index") != index:
            raise DataError.at(inputs, row_no, f"tweet index {input_index} does not match index {gold_index} on "
                                               f"the same row of {gold}")
        records.append(Record(
            id=f"test-{index:05d}", text=text, label=parse_label(gold, row_no, label, labels), split="test",
        ))
    return Loaded(records)


def read_semeval2018_a(data_dir: Path) -> Loaded:
    """Task A: ironic (1) or not (0)."""
    return _read_semeval2018(data_dir, "A", _01)


#: The irony hashtags the task removed from its tweets, as the classes of Wu et al.'s hashtag task.
SE18_HASHTAGS = ("none", "#not", "#sarcasm", "#irony")
SE18_IRONIC = ("not_ironic", "ironic")
_SE18_HASHTAG = re.compile(r"#(not|sarcasm|irony)\b", re.IGNORECASE)
SE18_HASHTAG_FILE = "train/SemEval2018-T3-train-taskB_emoji_ironyHashtags.txt"


def read_semeval2018_b(data_dir: Path) -> Loaded:
    """Task B: 0 not ironic, 1 polarity clash, 2 situational, 3 other verbal irony.

    Training tweets also carry the auxiliary labels of Wu et al.'s (2018)
    multi-task model: ironic or not (task A's label) and the irony hashtag the
    organisers removed (``SE18_HASHTAGS``; the first one when a tweet had
    several), read from the release's original-text training file.
    """
    loaded = _read_semeval2018(data_dir, "B", {str(i): i for i in range(4)})
    hashtags = _removed_hashtags(data_dir / "semeval2018-task3" / SE18_HASHTAG_FILE)
    records = []
    for record in loaded.records:
        if record.split == "train":
            if record.id not in hashtags:
                raise DataError.at(data_dir / "semeval2018-task3" / SE18_HASHTAG_FILE, None,
                                   f"no row for training tweet {record.id}")
            record = replace(record, aux=(("ironic", int(record.label != 0)), ("hashtag", hashtags[record.id])))
        records.append(record)
    return Loaded(records, loaded.folds, loaded.warnings)


def _removed_hashtags(path: Path) -> dict[str, int]:
    """Training id -> index in ``SE18_HASHTAGS`` of the first irony hashtag in the original text."""
    found = {}
    for row_no, (index, _label, text) in _tsv(path, _SE18_GOLD):
        match = _SE18_HASHTAG.search(text)
        tag = f"#{match.group(1).lower()}" if match else "none"
        found[f"train-{_int(path, row_no, index, 'tweet index'):05d}"] = SE18_HASHTAGS.index(tag)
    return found


# --- Riloff 2013 and Ptacek 2014 (graph-sarcasm text copies) ---------------------------------------

def _read_two_line(folder: Path) -> Loaded:
    """``train.raw``/``test.raw`` with two lines per example: the text, then the 0/1 label (LF or CRLF)."""
    records = []
    for split in ("train", "test"):
        path = folder / f"{split}.raw"
        lines = _lines(path)
        if len(lines) % 2:
            raise DataError.at(path, len(lines), "odd number of lines; expected a text line, then a label line")
        for i in range(len(lines) // 2):
            text, label = lines[2 * i], lines[2 * i + 1]
            records.append(Record(
                id=f"{split}-{i:05d}", text=text, label=parse_label(path, 2 * i + 2, label, _01), split=split,
            ))
    return Loaded(records)


def read_riloff(data_dir: Path) -> Loaded:
    """Riloff et al. 2013 as copied by ADGCN (1,333 / 148; @handles and URLs stripped)."""
    return _read_two_line(data_dir / "riloff2013/adgcn")


def read_ptacek(data_dir: Path) -> Loaded:
    """Ptacek et al. 2014 as copied by CSDGCN (8,497 / 1,063; lowercased and tokenised)."""
    return _read_two_line(data_dir / "ptacek2014/csdgcn")


# --- SARC pol ------------------------------------------------------------------------------------

def read_sarc_pol(data_dir: Path) -> Loaded:
    """SARC 2.0 pol balanced: ``example_number label author raw_text...`` per line (original case)."""
    folder = data_dir / "sarc/pol_haroldrubio/user_tok"
    records = []
    for split in ("train", "test"):
        path = folder / f"{split}_pol_users.txt"
        for row_no, line in enumerate(_lines(path), start=1):
            fields = line.split(" ", 3)
            if len(fields) < 4:
                raise DataError.at(path, row_no, "expected 'example_number label author text...'")
            number, label, author, text = fields
            records.append(Record(
                id=f"{split}-{_int(path, row_no, number, 'example number'):05d}", text=text,
                label=parse_label(path, row_no, label, _01), split=split, speaker=author,
            ))
    return Loaded(records)


SARC_IMBALANCED_SEED = 2018
_NOT_PER_SARCASTIC = 4  # 20:80 sarcastic to not


def read_sarc_pol_imbalanced(data_dir: Path) -> Loaded:
    """SARC pol with 20% sarcastic comments, derived deterministically from the balanced split.

    The paper compares with CASCADE on an imbalanced (20:80) SARC variant whose
    text is not obtainable, so it is rebuilt from pol balanced.  Rule, per split
    (train first, then test): keep every non-sarcastic comment, and keep
    ``n_not // 4`` sarcastic comments drawn uniformly without replacement with
    one ``random.Random(SARC_IMBALANCED_SEED)`` shared by both splits; kept
    comments stay in file order with their balanced-split ids.  Result: train
    6,834 not + 1,708 sarcastic, test 1,703 not + 425 sarcastic.
    """
    balanced = read_sarc_pol(data_dir).records
    rng = random.Random(SARC_IMBALANCED_SEED)
    records = []
    for split in ("train", "test"):
        rows = [r for r in balanced if r.split == split]
        sarcastic = [r.id for r in rows if r.label == 1]
        keep = set(rng.sample(sarcastic, (len(rows) - len(sarcastic)) // _NOT_PER_SARCASTIC))
        records += [r for r in rows if r.label == 0 or r.id in keep]
    return Loaded(records)


# --- MUStARD and Sarc7 (TV-show dialogues) -----------------------------------------------------------

_MUSTARD_FIELDS = ("utterance", "speaker", "context", "show", "sarcasm")


def _mustard_items(path: Path) -> dict[str, dict]:
    """MUStARD-style JSON: instance id -> fields, checked."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise DataError.at(path, None, "expected a JSON object keyed by instance id")
    for key, item in data.items():
        _fields(path, f"record {key}", item, _MUSTARD_FIELDS)
        if not isinstance(item["sarcasm"], bool):
            raise DataError.at(path, f"record {key}", f"'sarcasm' is {item['sarcasm']!r}, expected true or false")
        if not isinstance(item["context"], list):
            raise DataError.at(path, f"record {key}", "'context' is not a list of utterances")
    return data


def _dialogue_record(key: str, item: dict, label: int, types: tuple[str, ...] = ()) -> Record:
    """A MUStARD instance; split is speaker-independent (FRIENDS is test), as the repo's code does."""
    return Record(
        id=key, text=item["utterance"], label=label, split="test" if item["show"] == "FRIENDS" else "train",
        types=types, context=tuple(item["context"]), speaker=item["speaker"],
    )


def _mustard_folds(data_dir: Path, ids: set[str]) -> tuple[Fold, ...]:
    """The 5 official speaker-dependent folds as ids.

    Read from ``split_5fold_ids.json``, never from the Python-2 pickle
    ``split_indices.p`` (unpickling runs code, and its positions follow Python 2
    dict order, which the JSON already resolves).
    """
    path = data_dir / "mustard/split_5fold_ids.json"
    data = read_json(path)
    folds = data.get("folds") if isinstance(data, dict) else None
    if not isinstance(folds, list) or not folds:
        raise DataError.at(path, None, "expected an object with a non-empty 'folds' list")
    result = []
    for n, fold in enumerate(folds, start=1):
        _fields(path, f"fold {n}", fold, ("train_ids", "test_ids"))
        unknown = sorted(set(fold["train_ids"]) - ids | set(fold["test_ids"]) - ids)
        if unknown:
            raise DataError.at(path, f"fold {n}", f"{len(unknown)} id(s) not in the corpus, e.g. {unknown[0]!r}")
        result.append(Fold(train_ids=tuple(fold["train_ids"]), test_ids=tuple(fold["test_ids"])))
    return tuple(result)


def read_mustard(data_dir: Path) -> Loaded:
    """MUStARD text: utterance with its context turns; 5 official folds plus the speaker-independent split."""
    items = _mustard_items(data_dir / "mustard/sarcasm_data.json")
    records = [_dialogue_record(key, item, int(item["sarcasm"])) for key, item in items.items()]
    return Loaded(_train_first(records), folds=_mustard_folds(data_dir, set(items)))


#: Sarc7's eight classes, in the order of the corpus' label ids.
SARC7_TYPES = ("not sarcasm", "brooding", "deadpan", "manic", "obnoxious", "polite", "raging", "self-deprecating")


def read_sarc7(data_dir: Path) -> Loaded:
    """Sarc7: MUStARD with 8 classes (7 sarcasm types + not sarcasm) from its ``label`` field alone.

    Raw labels are spelled inconsistently, so they are normalised with
    ``strip().lower()`` and the trailing " sarcasm" dropped ("Polite sarcasm " ->
    "polite").  The label is the paper's gold and is not masked with MUStARD's
    binary flag; the 44 disagreements are reported as a warning.  Non-sarcastic
    records have no type.  Splits and folds are MUStARD's (same ids).
    """
    path = data_dir / "sarc7/sarcasmdata.json"
    items = _mustard_items(path)
    label_names = SARC7_TYPES
    records, disagreements = [], 0
    for key, item in items.items():
        _fields(path, f"record {key}", item, ("label",))
        name = str(item["label"]).strip().lower()
        name = name if name == "not sarcasm" else name.removesuffix(" sarcasm")
        if name not in label_names:
            raise DataError.at(path, f"record {key}", f"label {item['label']!r} is not one of the Sarc7 types "
                                                      f"{', '.join(label_names)}")
        label = label_names.index(name)
        disagreements += (label != 0) != item["sarcasm"]
        records.append(_dialogue_record(key, item, label, types=(name,) if label else ()))
    warnings = [(f"sarc7: {disagreements} of {len(records)} labels disagree with MUStARD's sarcasm flag "
                 "(the Sarc7 label is used as given)")] if disagreements else []
    return _loaded(_train_first(records), folds=_mustard_folds(data_dir, set(items)), warnings=warnings)


# --- KoCoSa (Korean) -------------------------------------------------------------------------------

_KOCOSA_LABELS = {"Non-Sarcasm": 0, "Sarcasm": 1}
_SPEAKER_PREFIX = re.compile(r"([A-Z]): ")


def _strip_speaker(turn: str) -> tuple[str | None, str]:
    """``"B: text"`` -> ``("B", "text")``; a turn without a prefix (a stage direction) is kept whole."""
    match = _SPEAKER_PREFIX.match(turn)
    return (match.group(1), turn[match.end():]) if match else (None, turn)


def read_kocosa(data_dir: Path) -> Loaded:
    """KoCoSa dev and test: the response (speaker prefix removed) with its context turns.

    Files are pandas "columns" JSON (column -> row index -> value).
    ``Sarcasm_Explanation`` is never read: it is non-empty exactly for sarcastic
    rows, so it would leak the label.
    """
    records = []
    for split in ("dev", "test"):
        path = data_dir / f"kocosa/KoCoSa_{split}.json"
        table = _fields(path, "top level", read_json(path), ("Context", "Response", "Sarcasm_Label"))
        for column in ("Context", "Response", "Sarcasm_Label"):
            if not isinstance(table[column], dict):
                raise DataError.at(path, column, "expected a column object (row index -> value)")
        for key, response in table["Response"].items():
            where = f"record {key}"
            if key not in table["Context"] or key not in table["Sarcasm_Label"]:
                raise DataError.at(path, where, "has a Response but no Context or Sarcasm_Label")
            speaker, text = _strip_speaker(response)
            if speaker is None:
                raise DataError.at(path, where, f"response {response[:30]!r} has no 'A: '/'B: ' speaker prefix")
            context = tuple(_strip_speaker(t)[1] for t in table["Context"][key].split("\n") if t.strip())
            records.append(Record(
                id=f"{split}-{_int(path, where, key, 'row index'):05d}", text=text,
                label=parse_label(path, where, table["Sarcasm_Label"][key], _KOCOSA_LABELS),
                split=split, context=context, speaker=speaker,
            ))
    return _loaded(records, warnings=[
        "kocosa: the official train split is not public here; only dev (1,321) and test (1,037) are available",
    ])


# --- ToSarcasm (Chinese) ------------------------------------------------------------------------

def read_tosarcasm(data_dir: Path) -> Loaded:
    """ToSarcasm: comment text with its news-headline topic; official train/dev/test."""
    records = []
    for split in ("train", "dev", "test"):
        path = data_dir / f"tosarcasm/{split}.json"
        items = read_json(path)
        if not isinstance(items, list):
            raise DataError.at(path, None, "expected a JSON list of {text, topic, label} objects")
        for i, item in enumerate(items):
            where = f"item {i + 1}"
            _fields(path, where, item, ("text", "topic", "label"))
            records.append(Record(
                id=f"{split}-{i:05d}", text=item["text"], label=parse_label(path, where, item["label"], _01),
                split=split, topic=item["topic"],
            ))
    return Loaded(records)
