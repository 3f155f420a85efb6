"""Options that would do nothing are refused in one line (issue 33): nothing is silently ignored,
and a user file's own validation rows are used, never dropped."""
import csv
import shutil

import pytest
from click.testing import CliRunner
from toy_corpus import write_corpus

from experiments.cli import main
from experiments.runs.one.protocol import make_splits
from locations import FIXTURES
from preprocessing.corpora import load_corpus
from preprocessing.errors import IsarcasmError


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("data") / "toy.csv")


def refused(args: list[str], message: str, data_dir=None) -> None:
    result = CliRunner().invoke(main, [*(["--data-dir", str(data_dir)] if data_dir else []), *args])
    assert result.exit_code == 1, result.output
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


@pytest.mark.parametrize("extra, message", [
    (["--epochs", "1", "--quick"], "--quick sets epochs 2, max_train 600: give --epochs or --quick, not both"),
    (["--experiment", ""], "--experiment '' cannot be a folder name"),
    (["--set", "context=all"], "has no dialogue context, so context all would read nothing"),
])
def test_train_refuses_an_option_that_would_do_nothing(toy, tmp_path, extra, message):
    refused(["train", "--corpus", str(toy), "--split-col", "split", "--model", "cnn", "--set", "embeddings=random",
             "--output-dir", str(tmp_path / "runs"), *extra], message)
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("args, message", [
    (["cross-eval", "--corpora", ","], "--corpora ',' names nothing"),
    (["cross-eval", "--models", " , "], "--models ' , ' names nothing"),
    (["reproduce", "table6", "--corpora", ""], "--corpora '' names nothing"),
    (["data", "stats", "riloff", "--split-col", "split"],
     "corpus 'riloff' is built in and has its own columns and splits: --split-col is for a .csv/.tsv/.jsonl file"),
    (["data", "stats", "riloff", "--text-col", "tweet"], "--text-col is for a .csv/.tsv/.jsonl file"),
])
def test_an_empty_list_or_a_file_option_for_a_built_in_corpus_is_refused(tmp_path, args, message):
    folders = ["--output-dir", str(tmp_path / "runs"), "--results-dir", str(tmp_path / "res")]
    refused([*args, *(folders if args[0] != "data" else [])], message, tmp_path)


def test_evaluate_refuses_split_col_for_a_built_in_corpus(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(FIXTURES / "run-094c709", run)
    refused(["evaluate", str(run), "--corpus", "riloff", "--split-col", "split"],
            "corpus 'riloff' is built in and has its own columns and splits: --split-col", tmp_path)
    assert not (run / "evaluations").exists()


def test_evaluate_and_train_refuse_text_file_for_a_file_corpus(toy, tmp_path):
    """--text-file supplies isarcasm-ids' texts; a file corpus holds its own, so it would be ignored."""
    run = tmp_path / "run"
    shutil.copytree(FIXTURES / "run-094c709", run)
    texts = tmp_path / "texts.tsv"
    texts.write_text("1\tyeah right\n")
    message = f"{toy} is a file corpus and holds its own texts: --text-file supplies the texts of 'isarcasm-ids'"
    refused(["evaluate", str(run), "--corpus", str(toy), "--split-col", "split", "--text-file", str(texts)], message)
    assert not (run / "evaluations").exists()
    refused(["train", "--corpus", str(toy), "--split-col", "split", "--model", "cnn", "--set", "embeddings=random",
             "--text-file", str(texts), "--output-dir", str(tmp_path / "runs")], message)
    assert not (tmp_path / "runs").exists()


def with_splits(tmp_path, names: dict[str, int]):
    """A file with ``names[split]`` rows per split, a quarter of each sarcastic."""
    path = tmp_path / "splits.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text", "label", "split"])
        for split, count in names.items():
            writer.writerows([f"{split}{i}", f"text {i} yeah right" if i % 4 == 0 else f"text {i}", int(i % 4 == 0),
                              split] for i in range(count))
    return load_corpus(str(path), tmp_path, split_col="split")


def test_a_user_files_validation_rows_are_the_validation_split_and_recorded(tmp_path):
    splits = make_splits(with_splits(tmp_path, {"train": 40, "validation": 12, "test": 8}), seed=0)
    assert (len(splits.train), len(splits.validation), len(splits.test)) == (40, 12, 8)
    assert {r.split for r in splits.validation} == {"validation"}
    assert splits.validation_source == "the corpus' own validation split"
    dev = make_splits(with_splits(tmp_path, {"train": 40, "dev": 12, "test": 8}), seed=0)
    assert (len(dev.validation), dev.validation_source) == (12, "official dev split")  # as before


@pytest.mark.parametrize("names, unused", [({"train": 40, "val": 12, "test": 8}, "'val'"),
                                           ({"train": 40, "dev": 6, "validation": 6, "test": 8}, "'validation'")])
def test_a_split_no_run_reads_is_refused_not_dropped(tmp_path, names, unused):
    with pytest.raises(IsarcasmError, match=f"split\\(s\\) {unused} would be unused"):
        make_splits(with_splits(tmp_path, names), seed=0)


def test_a_study_refuses_context_on_a_corpus_without_it_before_training(toy, tmp_path):
    experiment = tmp_path / "toy.toml"
    experiment.write_text(f"name = 'toy'\n[[cells]]\ncorpus = '{toy}'\nmodel = 'cnn'\n")
    refused(["reproduce", str(experiment), "--split-col", "split", "--set", "context=last", "--set", "embeddings=random",
             "--seeds", "1", "--output-dir", str(tmp_path / "runs"), "--results-dir", str(tmp_path / "res")],
            "has no dialogue context, so context last would read nothing")
    assert not list((tmp_path / "runs").rglob("seed-*"))
