"""Where runs and results go is checked before any work, and made only by what writes into it: a command
refused after its options are read leaves no empty --output-dir or --results-dir behind."""
import pytest
from click.testing import CliRunner
from toy_corpus import write_corpus

from experiments.cli import main
from experiments.runs.one.store import writable_folder
from preprocessing.errors import IsarcasmError


def test_a_folder_that_does_not_exist_yet_is_checked_in_its_parent_and_not_made(tmp_path):
    assert writable_folder(tmp_path / "a" / "b", "--output-dir") == tmp_path / "a" / "b"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("under", ["", "sub"])
def test_a_file_where_the_folder_would_be_is_one_line(tmp_path, under):
    (tmp_path / "taken").write_text("a file")
    with pytest.raises(IsarcasmError, match=r"--results-dir .* is not a writable folder \(.*taken is not a folder\)"):
        writable_folder(tmp_path / "taken" / under, "--results-dir")


@pytest.mark.parametrize("args", [
    ["cross-eval", "--corpora", ","],
    ["reproduce", "table7", "--models", "nonesuch"],
    ["benchmark", "mine", "--predictions", "{tmp}", "--estimator", "{tmp}/e.py"],
])
def test_a_refused_command_leaves_no_empty_folder(tmp_path, args):
    runs, results = tmp_path / "new" / "runs", tmp_path / "new" / "results"
    corpus = write_corpus(tmp_path / "toy.csv")
    args = [arg.replace("{tmp}", str(tmp_path)) for arg in args]
    result = CliRunner().invoke(main, ["--data-dir", str(corpus.parent), *args,
                                       "--output-dir", str(runs), "--results-dir", str(results)])
    assert result.exit_code != 0 and "Traceback" not in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert not (tmp_path / "new").exists()


def test_a_study_makes_its_folders_when_it_writes(tmp_path):
    corpus = write_corpus(tmp_path / "toy.csv")
    experiment = tmp_path / "toy.toml"
    experiment.write_text(f"name = 'toy'\n[[cells]]\ncorpus = '{corpus}'\nmodel = 'tfidf-lr'\n")
    runs, results = tmp_path / "deep" / "runs", tmp_path / "deep" / "results"
    result = CliRunner().invoke(main, ["benchmark", "tfidf-lr", "--experiments", str(experiment), "--seeds", "1",
                                       "--split-col", "split", "--output-dir", str(runs), "--results-dir", str(results)])
    assert result.exit_code == 0, result.output
    assert (results / "benchmark-tfidf-lr.json").is_file() and any(runs.rglob("metrics.json"))
