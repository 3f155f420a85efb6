"""`isarcasm evaluate` reuses a saved evaluation only for the same data content and options.

Before, a saved evaluation was found by the evaluated file's stem: another ``mine.csv``, or the same
one after an edit, printed the old numbers.  One toy run (one epoch) is evaluated on small files
that the tests write themselves.
"""
import csv
import json
import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from toy_corpus import write_corpus, train_toy

from experiments.cli import main
from experiments.runs.one.inference import evaluate_run, load_run
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.one.store import EVALUATIONS
from preprocessing.corpora import load_corpus

ONE_EPOCH = TrainConfig(epochs=1, batch_size=32, embeddings="random")
WORDS = "movie weather monday traffic coffee exam train meeting".split()


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    corpus = write_corpus(tmp_path_factory.mktemp("data") / "toy.csv")
    directory = tmp_path_factory.mktemp("runs") / "cnn"
    train_toy(load_corpus(str(corpus), corpus.parent, split_col="split"), "cnn", directory, corpus.parent, ONE_EPOCH)
    return directory


def write_rows(path: Path, n: int, seed: int, flip: bool = False) -> Path:
    """``n`` rows to evaluate on (no split column: every row is 'test'); ``flip`` swaps every label,
    which keeps the file's size."""
    rng = random.Random(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text", "label"])
        for i in range(n):
            label = int(i % 3 == 0)
            text = " ".join(rng.choice(WORDS) for _ in range(5)) + (" yeah right" if label else " is fine")
            writer.writerow([f"r{i}", text, 1 - label if flip else label])
    return path


def evaluate(run: Path, corpus: Path, *extra: str) -> tuple[str, Path, dict]:
    """``isarcasm evaluate`` twice over: its text output (whether it reused or saved, and where)
    and its --json output."""
    runner = CliRunner()
    text = runner.invoke(main, ["evaluate", str(run), "--corpus", str(corpus), *extra])
    assert text.exit_code == 0, text.output
    state, path = re.search(r"^  (saved|reused) (\S+)$", text.output, re.MULTILINE).groups()
    as_json = runner.invoke(main, ["evaluate", str(run), "--corpus", str(corpus), "--json", *extra])
    assert as_json.exit_code == 0, as_json.output
    result = json.loads(as_json.output)
    assert result["reused"] is True and result["evaluation_file"] == path  # the text call saved it
    assert Path(result["predictions_file"]).is_file()
    return state, Path(path), result


def test_same_name_other_folder_or_edited_file_never_shares_a_saved_evaluation(run, tmp_path):
    mine = write_rows(tmp_path / "x" / "mine.csv", 30, seed=1)
    state_a, path_a, result_a = evaluate(run, mine)
    assert state_a == "saved" and path_a.is_file() and path_a.parent == run / EVALUATIONS
    assert re.fullmatch(r"mine-[0-9a-f]{12}\.json", path_a.name)
    assert result_a["test"]["n"] == 30 and result_a["corpus"] == str(mine)

    other = write_rows(tmp_path / "y" / "mine.csv", 24, seed=2)
    state_b, path_b, result_b = evaluate(run, other)
    assert state_b == "saved" and path_b != path_a
    assert result_b["test"]["n"] == 24 and result_b["corpus"] == str(other)

    write_rows(mine, 36, seed=3)  # file A edited in place
    state_c, path_c, result_c = evaluate(run, mine)
    assert state_c == "saved" and path_c not in (path_a, path_b)
    assert result_c["test"]["n"] == 36

    assert len({json.dumps(r["test"], sort_keys=True) for r in (result_a, result_b, result_c)}) == 3
    assert len({r["key"] for r in (result_a, result_b, result_c)}) == 3
    # Every evaluation stays in the store, each under its own key.
    assert {json.loads(p.read_text())["test"]["n"] for p in (path_a, path_b, path_c)} == {30, 24, 36}


def test_an_edit_that_keeps_the_file_size_is_not_reused(run, tmp_path):
    mine = write_rows(tmp_path / "mine.csv", 30, seed=1)
    _, path, before = evaluate(run, mine)
    size = mine.stat().st_size
    write_rows(mine, 30, seed=1, flip=True)
    assert mine.stat().st_size == size
    state, flipped_path, after = evaluate(run, mine)
    assert state == "saved" and flipped_path != path
    assert after["test"]["confusion_matrix"] != before["test"]["confusion_matrix"]


def test_the_unchanged_file_is_reused_with_identical_numbers(run, tmp_path):
    mine = write_rows(tmp_path / "x" / "mine.csv", 30, seed=1)
    state, path, first = evaluate(run, mine)
    assert state == "saved"
    again = CliRunner().invoke(main, ["evaluate", str(run), "--corpus", str(mine)])
    assert again.exit_code == 0, again.output
    assert f"  reused {path}\n" in again.output
    second = json.loads(CliRunner().invoke(main, ["evaluate", str(run), "--corpus", str(mine), "--json"]).output)
    assert second["reused"] is True and second["test"] == first["test"] and second["evaluation_file"] == str(path)
    forced = json.loads(CliRunner().invoke(main, ["evaluate", str(run), "--corpus", str(mine), "--json",
                                                  "--force"]).output)
    assert forced["reused"] is False and forced["test"] == first["test"] and forced["evaluation_file"] == str(path)


def test_a_changed_threshold_or_column_option_is_not_reused(run, tmp_path):
    mine = write_rows(tmp_path / "mine.csv", 30, seed=1)
    _, path, first = evaluate(run, mine)
    loaded = load_run(run, tmp_path)
    dataset = load_corpus(str(mine), tmp_path)
    options = {"text_col": "text", "label_col": "label", "split_col": None}  # what the command passes
    assert evaluate_run(loaded, dataset, options=options)["evaluation_file"] == str(path)
    assert evaluate_run(loaded, dataset, options=options)["reused"] is True
    lower = evaluate_run(loaded, dataset, threshold=0.0, options=options)
    assert lower["reused"] is False and lower["threshold"] == 0.0 and lower["evaluation_file"] != str(path)
    assert lower["test"]["recall_sarcastic"] == 1.0  # every text is sarcastic at this threshold
    assert evaluate_run(loaded, dataset, threshold=0.0, options=options)["reused"] is True

    # The same file read through another column: another evaluation.
    with open(mine, newline="") as handle:
        rows = list(csv.DictReader(handle))
    two = tmp_path / "two.csv"
    with open(two, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text", "label", "gold"])
        writer.writerows([r["id"], r["text"], r["label"], 1 - int(r["label"])] for r in rows)
    by_label = evaluate(run, two)
    by_gold = evaluate(run, two, "--label-col", "gold")
    assert by_label[0] == by_gold[0] == "saved" and by_label[1] != by_gold[1]
    assert by_label[2]["test"]["confusion_matrix"] != by_gold[2]["test"]["confusion_matrix"]


def test_an_old_format_evaluation_is_never_reused(run, tmp_path):
    mine = write_rows(tmp_path / "old" / "mine.csv", 30, seed=1)
    folder = run / EVALUATIONS
    folder.mkdir(exist_ok=True)
    stale = {"run": str(run), "trained_on": "x", "corpus": str(mine), "split": "test", "threshold": 0.5,
             "test": {"n": 999, "f1_macro": 0.123, "accuracy": 0.5}}
    (folder / "mine.json").write_text(json.dumps(stale))
    (folder / "mine.predictions.tsv").write_text("id\tgold\tprob_0\tprob_1\n")
    state, path, result = evaluate(run, mine)
    assert state == "saved" and path.name != "mine.json" and result["test"]["n"] == 30

    # A saved file whose key is not the one its name stands for (copied, tampered) is recomputed.
    saved = json.loads(path.read_text())
    path.write_text(json.dumps({**saved, "key": "0" * 64, "test": stale["test"]}))
    again = json.loads(CliRunner().invoke(main, ["evaluate", str(run), "--corpus", str(mine), "--json"]).output)
    assert again["reused"] is False and again["test"]["n"] == 30


def test_a_saved_evaluation_with_a_score_out_of_its_range_is_recomputed(run, tmp_path):
    """An F1 of 1.7 in a saved evaluation (an edited file) is never printed: the evaluation is made again."""
    mine = write_rows(tmp_path / "range" / "mine.csv", 30, seed=1)
    state, path, result = evaluate(run, mine)
    saved = json.loads(path.read_text())
    path.write_text(json.dumps({**saved, "test": {**saved["test"], "f1_sarcastic": 1.7}}))
    again = json.loads(CliRunner().invoke(main, ["evaluate", str(run), "--corpus", str(mine), "--json"]).output)
    assert again["reused"] is False and again["test"]["f1_sarcastic"] == result["test"]["f1_sarcastic"] <= 1
