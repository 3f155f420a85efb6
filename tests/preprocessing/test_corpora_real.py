"""Every corpus on the real data: counts must equal the folders' SOURCE.md (skipped without the data)."""
from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from click.testing import CliRunner

from experiments.cli import main
from preprocessing.corpora import get_corpus, load_corpus
from preprocessing.fetch import fetch

# corpus -> split -> (records, label counts by index), from SOURCE.md
EXPECTED = {
    "isarcasm": {"train": (2814, {0: 2333, 1: 481}), "test": (709, {0: 590, 1: 119})},
    "isarcasm-ids": {"train": (3577, {0: 2958, 1: 619}), "test": (907, {0: 749, 1: 158})},
    # 3,468 train rows minus the empty tweet (row index 1062, labelled 0)
    "isarcasmeval": {"train": (3467, {0: 2600, 1: 867}), "test": (1400, {0: 1200, 1: 200})},
    # task B: the sarcastic tweets; a tweet counts once under each of its categories
    # (sarcasm, irony, satire, understatement, overstatement, rhetorical_question)
    "isarcasmeval-b": {"train": (867, {0: 713, 1: 155, 2: 25, 3: 10, 4: 40, 5: 101}),
                       "test": (200, {0: 180, 1: 20, 2: 49, 3: 1, 4: 10, 5: 11})},
    "semeval2018-a": {"train": (3834, {0: 1923, 1: 1911}), "test": (784, {0: 473, 1: 311})},
    "semeval2018-b": {"train": (3834, {0: 1923, 1: 1390, 2: 316, 3: 205}),
                      "test": (784, {0: 473, 1: 164, 2: 85, 3: 62})},
    "riloff": {"train": (1333, {0: 1051, 1: 282}), "test": (148, {0: 113, 1: 35})},
    "ptacek": {"train": (8497, {0: 5020, 1: 3477}), "test": (1063, {0: 635, 1: 428})},
    "sarc-pol": {"train": (13668, {0: 6834, 1: 6834}), "test": (3406, {0: 1703, 1: 1703})},
    "sarc-pol-imbalanced": {"train": (8542, {0: 6834, 1: 1708}), "test": (2128, {0: 1703, 1: 425})},
    # speaker-independent split: test = FRIENDS
    "mustard": {"train": (334, {0: 141, 1: 193}), "test": (356, {0: 204, 1: 152})},
    "kocosa": {"dev": (1321, {0: 520, 1: 801}), "test": (1037, {0: 467, 1: 570})},
    "tosarcasm": {"train": (2925, {0: 1317, 1: 1608}), "dev": (973, {0: 295, 1: 678}), "test": (973, {0: 350, 1: 623})},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counts_match_source_md(real_data_dir, name):
    dataset = load_corpus(name, real_data_dir)
    assert dataset.splits == list(EXPECTED[name])
    for split, (size, labels) in EXPECTED[name].items():
        assert len(dataset.split(split)) == size
        assert dict(dataset.label_counts(split)) == labels


def test_isarcasm_ids_types_and_coverage(real_data_dir):
    dataset = load_corpus("isarcasm-ids", real_data_dir)
    types = Counter(t for r in dataset.split("train") for t in r.types)
    assert types == {"sarcasm": 258, "irony": 191, "satire": 66, "overstatement": 52,
                     "rhetorical_question": 44, "understatement": 8}
    assert all(r.text is None for r in dataset.records)
    assert dataset.warnings[0].startswith("isarcasm-ids: 0 of 4,484 ids have text")


def test_isarcasmeval_categories_and_warnings(real_data_dir):
    dataset = load_corpus("isarcasmeval", real_data_dir)
    train_types = Counter(t for r in dataset.split("train") for t in r.types)
    assert train_types == {"sarcasm": 713, "irony": 155, "satire": 25, "understatement": 10,
                           "overstatement": 40, "rhetorical_question": 101}
    assert sum(r.rephrase is not None for r in dataset.split("train")) == 867
    test_types = Counter(t for r in dataset.split("test") for t in r.types)
    assert test_types == {"sarcasm": 180, "irony": 20, "satire": 49, "understatement": 1,
                          "overstatement": 10, "rhetorical_question": 11}
    assert any("empty tweet (row index 1062) dropped" in w for w in dataset.warnings)
    assert "isarcasmeval train: 11 duplicate text(s) kept as separate records" in dataset.warnings


def test_semeval2018_test_text_has_no_irony_hashtags(real_data_dir):
    # the gold file's own text has these tags in 333 of 784 tweets; the joined input text in none
    test = load_corpus("semeval2018-a", real_data_dir).split("test")
    assert not [r.id for r in test if re.search(r"#(irony|sarcasm|not)\b", r.text)]


def test_sarc_pol_imbalanced_is_a_subset_keeping_every_non_sarcastic(real_data_dir):
    balanced = {r.id: r for r in load_corpus("sarc-pol", real_data_dir).records}
    imbalanced = load_corpus("sarc-pol-imbalanced", real_data_dir).records
    assert all(balanced[r.id] == r for r in imbalanced)
    assert sum(r.label == 0 for r in imbalanced) == sum(r.label == 0 for r in balanced.values())


@pytest.mark.parametrize("name", ["mustard", "sarc7"])
def test_mustard_folds(real_data_dir, name):
    dataset = load_corpus(name, real_data_dir)
    sarcastic = {r.id for r in load_corpus("mustard", real_data_dir).records if r.label == 1}
    assert len(dataset.folds) == 5
    for fold in dataset.folds:
        assert (len(fold.train_ids), len(fold.test_ids)) == (552, 138)
        assert sum(i in sarcastic for i in fold.test_ids) == 69
        assert not set(fold.train_ids) & set(fold.test_ids)


def test_sarc7_classes(real_data_dir):
    dataset = load_corpus("sarc7", real_data_dir)
    names = get_corpus("sarc7").label_names
    counts = {names[label]: n for label, n in dataset.label_counts().items()}
    assert counts == {"not sarcasm": 343, "deadpan": 110, "polite": 89, "obnoxious": 70, "brooding": 33,
                      "self-deprecating": 23, "raging": 14, "manic": 8}
    assert dataset.warnings == [("sarc7: 44 of 690 labels disagree with MUStARD's sarcasm flag "
                                 "(the Sarc7 label is used as given)")]


def test_data_list_json_shows_every_corpus(real_data_dir):
    result = CliRunner().invoke(main, ["--data-dir", str(real_data_dir), "data", "list", "--json"])
    assert result.exit_code == 0, result.output
    listed = {c["name"]: c for c in json.loads(result.stdout)}
    assert set(listed) == set(EXPECTED) | {"sarc7"}
    assert all(c["available"] for c in listed.values())
    for name, splits in EXPECTED.items():
        assert {s: v["records"] for s, v in listed[name]["splits"].items()} == {s: n for s, (n, _) in splits.items()}
    assert listed["sarc7"]["classes"] == 8


def test_catalog_checksums_match_the_data(real_data_dir):
    result = CliRunner().invoke(main, ["--data-dir", str(real_data_dir), "data", "verify"])
    assert result.exit_code == 0, result.output
    assert "mismatch" not in result.stdout and "missing" not in result.stdout


def test_fetch_from_the_real_mirror(real_data_dir, tmp_path):
    statuses = {r.status for r in fetch(get_corpus("mustard"), tmp_path, mirror=real_data_dir)}
    assert statuses <= {"linked", "copied"}
    assert len(load_corpus("mustard", tmp_path).records) == 690
