"""Corpus readers on tiny fixture files written in each corpus' own format (see the SOURCE.md files)."""
from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from preprocessing import readers
from preprocessing.corpora import load_corpus
from preprocessing.errors import DataError, IsarcasmError


def write(root: Path, relative: str, content: str | bytes) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


def by_id(loaded):
    return {r.id: r for r in loaded.records}


# --- iSarcasm ids -----------------------------------------------------------------------------------

IDS_HEADER = "tweet_id,sarcasm_label,sarcasm_type\n"


@pytest.fixture
def ids_dir(tmp_path):
    write(tmp_path, "isarcasm/official_ids/isarcasm_train.csv",
          IDS_HEADER + "11,sarcastic,rhetorical question\n12,not_sarcastic,\n812181186,sarcastic,irony\n")
    write(tmp_path, "isarcasm/official_ids/isarcasm_test.csv", IDS_HEADER + "21,not_sarcastic,\n")
    return tmp_path


def test_isarcasm_ids_joins_text_and_reports_coverage(ids_dir, tmp_path):
    text_file = write(tmp_path, "texts.tsv", "11\tso glad\twith a tab\n\n21\tplain tweet\n99\tnot in corpus\n")
    loaded = readers.read_isarcasm_ids(ids_dir, text_file=text_file)
    records = by_id(loaded)
    assert records["11"].text == "so glad\twith a tab"
    assert records["11"].types == ("rhetorical_question",) and records["11"].label == 1
    assert records["12"].text is None and records["12"].types == () and records["12"].label == 0
    assert records["21"].split == "test" and records["21"].text == "plain tweet"
    assert records["812181186"].types == ("irony",)
    assert loaded.warnings == [f"isarcasm-ids: 2 of 4 ids have text; 1 id(s) in {text_file} are not in the corpus"]


def test_isarcasm_ids_without_text_file_says_how_to_add_it(ids_dir):
    loaded = readers.read_isarcasm_ids(ids_dir)
    assert all(r.text is None for r in loaded.records)
    assert "0 of 4 ids have text" in loaded.warnings[0] and "--text-file" in loaded.warnings[0]


@pytest.mark.parametrize("content, problem", [
    ("11\tone\n12\ttwo\n11\tagain\n", r":3: duplicate id 11 \(first on line 1\)"),
    ("11\tone\n12 no tab here\n", ":2: no TAB in line"),
])
def test_isarcasm_ids_bad_text_file(ids_dir, tmp_path, content, problem):
    text_file = write(tmp_path, "texts.tsv", content)
    with pytest.raises(DataError, match=problem) as error:
        readers.read_isarcasm_ids(ids_dir, text_file=text_file)
    assert str(text_file) in str(error.value)


def test_isarcasm_ids_label_outside_set(ids_dir):
    write(ids_dir, "isarcasm/official_ids/isarcasm_test.csv", IDS_HEADER + "21,ironic,\n")
    with pytest.raises(DataError, match=r"isarcasm_test.csv:2: label 'ironic' is not one of"):
        readers.read_isarcasm_ids(ids_dir)


def test_text_file_option_is_refused_by_other_corpora(tmp_path):
    write(tmp_path, "riloff2013/adgcn/train.raw", "a\n1\n")
    write(tmp_path, "riloff2013/adgcn/test.raw", "b\n0\n")
    with pytest.raises(IsarcasmError, match="corpus 'riloff' does not take --text-file"):
        load_corpus("riloff", tmp_path, text_file=tmp_path / "texts.tsv")


# --- iSarcasmEval -------------------------------------------------------------------------------------

def test_isarcasmeval_drops_empty_tweet_and_reads_categories(tmp_path):
    cats = "sarcasm,irony,satire,understatement,overstatement,rhetorical_question"
    write(tmp_path, "isarcasmeval/train/train.En.csv",
          f",tweet,sarcastic,rephrase,{cats}\n"
          "0,great weather,1,bad weather,1.0,0.0,0.0,0.0,0.0,1.0\n"
          "1,,0,,,,,,,\n"
          "2,hello,0,,,,,,,\n"
          "3,hello,0,,,,,,,\n")
    write(tmp_path, "isarcasmeval/test/task_A_En_test.csv", "text,sarcastic\nyeah right,1\nok,0\n")
    write(tmp_path, "isarcasmeval/test/task_B_En_test.csv", f"text,{cats}\nok,0,0,0,0,0,0\nyeah right,0,1,0,0,0,0\n")
    loaded = readers.read_isarcasmeval(tmp_path)
    records = by_id(loaded)
    assert sorted(records) == ["test-00000", "test-00001", "train-00000", "train-00002", "train-00003"]
    assert records["train-00000"].types == ("sarcasm", "rhetorical_question")
    assert records["train-00000"].rephrase == "bad weather"
    assert records["test-00000"].types == ("irony",) and records["test-00001"].types == ()
    assert any("empty tweet (row index 1) dropped" in w for w in loaded.warnings)
    assert "isarcasmeval train: 1 duplicate text(s) kept as separate records" in loaded.warnings


# --- SemEval-2018 ---------------------------------------------------------------------------------------

def semeval_files(root: Path, task: str, gold_labels=("1", "0"), input_indices=("1", "2")):
    write(root, f"semeval2018-task3/train/SemEval2018-T3-train-task{task}.txt",
          "Tweet Index\tLabel\tTweet text\n1\t1\tSweet \"video. Just in time\n2\t0\tplain\n")
    write(root, f"semeval2018-task3/goldtest_Task{task}/SemEval2018-T3_gold_test_task{task}_emoji.txt",
          "Tweet index\tLabel\tTweet text\n"
          + "".join(f"{i}\t{label}\ttext #not\n" for i, label in zip(("1", "2"), gold_labels)))
    write(root, f"semeval2018-task3/test_Task{task}/SemEval2018-T3_input_test_task{task}.txt",
          "tweet index\ttweet text\n" + "".join(f"{i}\tclean text {i}\n" for i in input_indices))


def test_semeval2018_joins_gold_labels_to_hashtag_free_text(tmp_path):
    semeval_files(tmp_path, "A")
    records = by_id(readers.read_semeval2018_a(tmp_path))
    assert records["train-00001"].text == 'Sweet "video. Just in time' and records["train-00001"].label == 1
    assert records["test-00001"].text == "clean text 1" and records["test-00001"].label == 1
    assert records["test-00002"].label == 0
    assert not any("#not" in r.text for r in records.values())


def hashtag_file(root: Path, rows: str = "1\t1\tSweet #Sarcasm video #not\n2\t0\tplain\n"):
    write(root, f"semeval2018-task3/{readers.SE18_HASHTAG_FILE}", "Tweet index\tLabel\tTweet text\n" + rows)


def test_semeval2018_b_has_four_classes_and_auxiliary_labels_on_train(tmp_path):
    semeval_files(tmp_path, "B", gold_labels=("3", "2"))
    hashtag_file(tmp_path)
    records = by_id(readers.read_semeval2018_b(tmp_path))
    assert records["test-00001"].label == 3 and records["test-00002"].label == 2
    # the first irony hashtag of the original text; ironic = label != 0
    assert records["train-00001"].aux == (("ironic", 1), ("hashtag", readers.SE18_HASHTAGS.index("#sarcasm")))
    assert records["train-00002"].aux == (("ironic", 0), ("hashtag", 0))
    assert records["test-00001"].aux == ()


def test_semeval2018_b_training_tweet_missing_from_the_hashtag_file(tmp_path):
    semeval_files(tmp_path, "B")
    hashtag_file(tmp_path, rows="1\t1\tSweet #not\n")
    with pytest.raises(DataError, match="no row for training tweet train-00002"):
        readers.read_semeval2018_b(tmp_path)


def test_semeval2018_index_mismatch_is_an_error(tmp_path):
    semeval_files(tmp_path, "A", input_indices=("1", "3"))
    with pytest.raises(DataError, match=r"input_test_taskA.txt:3: tweet index 3 does not match index 2"):
        readers.read_semeval2018_a(tmp_path)


def test_semeval2018_label_outside_task_a(tmp_path):
    semeval_files(tmp_path, "A", gold_labels=("1", "2"))
    with pytest.raises(DataError, match=r"gold_test_taskA_emoji.txt:3: label '2' is not one of '0', '1'"):
        readers.read_semeval2018_a(tmp_path)


def test_semeval2018_missing_column(tmp_path):
    semeval_files(tmp_path, "A")
    write(tmp_path, "semeval2018-task3/train/SemEval2018-T3-train-taskA.txt", "Tweet index\tLabel\tTweet text\n1\t1\n")
    with pytest.raises(DataError, match=r"train-taskA.txt:2: expected 3 TAB-separated fields, found 2"):
        readers.read_semeval2018_a(tmp_path)


# --- Riloff / Ptacek two-line files ---------------------------------------------------------------------

def test_two_line_reader_handles_crlf_and_lf(tmp_path):
    write(tmp_path, "riloff2013/adgcn/train.raw", "@ user thank you boo\r\n1\r\nnot fun\r\n0\r\n")
    write(tmp_path, "riloff2013/adgcn/test.raw", "love mondays\n1\n")
    records = readers.read_riloff(tmp_path).records
    assert [(r.id, r.text, r.label, r.split) for r in records] == [
        ("train-00000", "@ user thank you boo", 1, "train"),
        ("train-00001", "not fun", 0, "train"),
        ("test-00000", "love mondays", 1, "test"),
    ]


@pytest.mark.parametrize("content, problem", [
    ("text\n1\norphan\n", r"train.raw:3: odd number of lines"),
    ("text\n1\nother\nyes\n", r"train.raw:4: label 'yes' is not one of '0', '1'"),
])
def test_two_line_reader_errors(tmp_path, content, problem):
    write(tmp_path, "ptacek2014/csdgcn/train.raw", content)
    write(tmp_path, "ptacek2014/csdgcn/test.raw", "a\n0\n")
    with pytest.raises(DataError, match=problem):
        readers.read_ptacek(tmp_path)


# --- SARC pol --------------------------------------------------------------------------------------------

def sarc_files(root: Path, train_pairs: int, test_pairs: int) -> None:
    for split, pairs in (("train", train_pairs), ("test", test_pairs)):
        lines = []
        for i in range(pairs):
            lines.append(f"{2 * i + 1} 1 user{i} oh *sure* comment {i}")
            lines.append(f"{2 * i + 2} 0 other{i} plain comment {i}")
        write(root, f"sarc/pol_haroldrubio/user_tok/{split}_pol_users.txt", "\n".join(lines) + "\n")


def test_sarc_pol_reads_author_and_raw_text(tmp_path):
    sarc_files(tmp_path, 2, 1)
    records = by_id(readers.read_sarc_pol(tmp_path))
    assert records["train-00001"].speaker == "user0" and records["train-00001"].text == "oh *sure* comment 0"
    assert records["train-00004"].label == 0 and records["test-00002"].split == "test"


def test_sarc_pol_short_line_is_an_error(tmp_path):
    sarc_files(tmp_path, 1, 1)
    write(tmp_path, "sarc/pol_haroldrubio/user_tok/test_pol_users.txt", "1 1 author\n")
    with pytest.raises(DataError, match=r"test_pol_users.txt:1: expected 'example_number label author text"):
        readers.read_sarc_pol(tmp_path)


def test_sarc_pol_imbalanced_is_20_percent_deterministic_subset(tmp_path):
    sarc_files(tmp_path, 41, 9)  # 41 not -> 10 sarcastic; 9 not -> 2 sarcastic
    balanced = by_id(readers.read_sarc_pol(tmp_path))
    first = readers.read_sarc_pol_imbalanced(tmp_path).records
    assert [r.id for r in first] == [r.id for r in readers.read_sarc_pol_imbalanced(tmp_path).records]
    for split, n_not, n_sarcastic in (("train", 41, 10), ("test", 9, 2)):
        rows = [r for r in first if r.split == split]
        assert sum(r.label == 0 for r in rows) == n_not
        assert sum(r.label == 1 for r in rows) == n_sarcastic
    assert all(balanced[r.id] == r for r in first)
    assert [r.id for r in first] == [i for i in balanced if i in {r.id for r in first}]  # file order kept


# --- MUStARD and Sarc7 ------------------------------------------------------------------------------------

def mustard_item(show: str, sarcasm: bool, label: str | None = None) -> dict:
    item = {"utterance": f"line from {show}", "speaker": "SHELDON", "context": ["first", "second"],
            "context_speakers": ["A", "B"], "show": show, "sarcasm": sarcasm}
    if label is not None:
        item["label"] = label
    return item


@pytest.fixture
def mustard_dir(tmp_path):
    items = {"1_1": mustard_item("FRIENDS", True), "2_1": mustard_item("BBT", False),
             "3_1": mustard_item("GOLDENGIRLS", True), "4_1": mustard_item("FRIENDS", False)}
    write(tmp_path, "mustard/sarcasm_data.json", json.dumps(items))
    folds = {"description": "test", "folds": [
        {"train_ids": ["1_1", "2_1"], "test_ids": ["3_1", "4_1"]},
        {"train_ids": ["3_1", "4_1"], "test_ids": ["1_1", "2_1"]},
    ]}
    write(tmp_path, "mustard/split_5fold_ids.json", json.dumps(folds))
    write(tmp_path, "mustard/split_indices.p", b"not a pickle: reading it would fail")
    return tmp_path


def test_mustard_split_folds_and_context(mustard_dir, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the pickle must never be loaded")

    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    loaded = readers.read_mustard(mustard_dir)
    assert [(r.id, r.split, r.label) for r in loaded.records] == [
        ("2_1", "train", 0), ("3_1", "train", 1), ("1_1", "test", 1), ("4_1", "test", 0),
    ]
    assert loaded.records[0].context == ("first", "second") and loaded.records[0].speaker == "SHELDON"
    assert loaded.folds[1].test_ids == ("1_1", "2_1")


def test_mustard_fold_with_unknown_id(mustard_dir):
    folds = {"folds": [{"train_ids": ["1_1"], "test_ids": ["9_9"]}]}
    write(mustard_dir, "mustard/split_5fold_ids.json", json.dumps(folds))
    with pytest.raises(DataError, match=r"split_5fold_ids.json:fold 1: 1 id\(s\) not in the corpus, e.g. '9_9'"):
        readers.read_mustard(mustard_dir)


def test_mustard_missing_field(mustard_dir):
    write(mustard_dir, "mustard/sarcasm_data.json", json.dumps({"1_1": {"utterance": "x"}}))
    with pytest.raises(DataError, match=r"sarcasm_data.json:record 1_1: missing field\(s\) speaker, context, show"):
        readers.read_mustard(mustard_dir)


def test_sarc7_normalises_labels_and_counts_disagreements(mustard_dir):
    items = {"1_1": mustard_item("FRIENDS", True, "Polite sarcasm"),
             "2_1": mustard_item("BBT", False, "deadpan sarcasm "),   # disagrees with the flag
             "3_1": mustard_item("GOLDENGIRLS", True, "Not sarcasm"),  # disagrees with the flag
             "4_1": mustard_item("FRIENDS", False, "not sarcasm")}
    write(mustard_dir, "sarc7/sarcasmdata.json", json.dumps(items))
    loaded = readers.read_sarc7(mustard_dir)
    records = by_id(loaded)
    assert (records["1_1"].label, records["1_1"].types) == (5, ("polite",))
    assert (records["2_1"].label, records["2_1"].types) == (2, ("deadpan",))
    assert (records["3_1"].label, records["3_1"].types) == (0, ())
    assert len(loaded.folds) == 2
    assert loaded.warnings == [
        "sarc7: 2 of 4 labels disagree with MUStARD's sarcasm flag (the Sarc7 label is used as given)"]


def test_sarc7_unknown_type(mustard_dir):
    write(mustard_dir, "sarc7/sarcasmdata.json", json.dumps({"1_1": mustard_item("BBT", True, "Witty sarcasm")}))
    with pytest.raises(DataError, match=r"sarcasmdata.json:record 1_1: label 'Witty sarcasm' is not one of the Sarc7"):
        readers.read_sarc7(mustard_dir)


# --- KoCoSa and ToSarcasm ---------------------------------------------------------------------------------

def kocosa_table(labels: list[str], responses: list[str] | None = None) -> str:
    rows = [str(i) for i in range(len(labels))]
    responses = responses or [f"B: 응답 {i}" for i in rows]
    return json.dumps({
        "Context": {i: "A: 안녕\nB: 네\n(A few minutes later)\nA: 그래" for i in rows},
        "Response": dict(zip(rows, responses)),
        "Sarcasm_Label": dict(zip(rows, labels)),
        "Sarcasm_Explanation": {i: "설명" if label == "Sarcasm" else "" for i, label in zip(rows, labels)},
    }, ensure_ascii=False)


def test_kocosa_strips_speaker_prefixes(tmp_path):
    dev = kocosa_table(["Sarcasm", "Non-Sarcasm"], ["B: 정말 대단하네", "A: 고마워"])
    write(tmp_path, "kocosa/KoCoSa_dev.json", dev)
    write(tmp_path, "kocosa/KoCoSa_test.json", kocosa_table(["Non-Sarcasm"]))
    loaded = readers.read_kocosa(tmp_path)
    first = loaded.records[0]
    assert (first.id, first.split, first.text, first.speaker, first.label) == (
        "dev-00000", "dev", "정말 대단하네", "B", 1)
    assert first.context == ("안녕", "네", "(A few minutes later)", "그래")
    assert "설명" not in {first.text, *first.context}
    assert loaded.records[-1].split == "test"
    assert "train split is not public" in loaded.warnings[0]


@pytest.mark.parametrize("table, problem", [
    (json.dumps({"Context": {}, "Response": {}}), r"KoCoSa_dev.json:top level: missing field\(s\) Sarcasm_Label"),
    (kocosa_table(["Sarcastic"]),
     r"KoCoSa_dev.json:record 0: label 'Sarcastic' is not one of 'Non-Sarcasm', 'Sarcasm'"),
    (kocosa_table(["Sarcasm"], ["no prefix"]), r"KoCoSa_dev.json:record 0: response 'no prefix' has no 'A: '/'B: '"),
])
def test_kocosa_errors(tmp_path, table, problem):
    write(tmp_path, "kocosa/KoCoSa_dev.json", table)
    write(tmp_path, "kocosa/KoCoSa_test.json", kocosa_table(["Sarcasm"]))
    with pytest.raises(DataError, match=problem):
        readers.read_kocosa(tmp_path)


def tosarcasm_files(root: Path, train: list) -> None:
    write(root, "tosarcasm/train.json", json.dumps(train, ensure_ascii=False))
    for split in ("dev", "test"):
        write(root, f"tosarcasm/{split}.json", json.dumps([{"text": "好", "topic": "新闻", "label": "0"}]))


def test_tosarcasm_reads_topic_and_three_splits(tmp_path):
    tosarcasm_files(tmp_path, [{"text": "总算整明白了。", "topic": "扎克伯格", "label": "1"}])
    records = readers.read_tosarcasm(tmp_path).records
    assert [(r.id, r.split) for r in records] == [
        ("train-00000", "train"), ("dev-00000", "dev"), ("test-00000", "test")]
    assert (records[0].text, records[0].topic, records[0].label) == ("总算整明白了。", "扎克伯格", 1)


@pytest.mark.parametrize("train, problem", [
    ([{"text": "a", "topic": "t", "label": "1"}, {"text": "b", "topic": "t", "label": "2"}],
     r"train.json:item 2: label '2' is not one of '0', '1'"),
    ([{"text": "a", "label": "1"}], r"train.json:item 1: missing field\(s\) topic"),
    ({"text": "a"}, r"train.json: expected a JSON list"),
])
def test_tosarcasm_errors(tmp_path, train, problem):
    tosarcasm_files(tmp_path, train)
    with pytest.raises(DataError, match=problem):
        readers.read_tosarcasm(tmp_path)


def test_non_utf8_bytes_name_the_line(tmp_path):
    write(tmp_path, "riloff2013/adgcn/train.raw", b"fine\n1\ncaf\xe9\n0\n")
    write(tmp_path, "riloff2013/adgcn/test.raw", "a\n0\n")
    with pytest.raises(DataError, match=r"train.raw:3: not valid UTF-8 \(byte 0xe9\)"):
        readers.read_riloff(tmp_path)
