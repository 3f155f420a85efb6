"""benchmark ranks a model among the reference rows too (all-sarcastic, majority, TF-IDF + LR, scored where
missing), tests it against each, accepts them in --against, and says in its rank line which of them score
above it; outside predictions show no training time or memory, which the suite did not measure."""
import json

import pytest
from click.testing import CliRunner
from markdown_tables import unpadded
from toy_corpus import write_corpus

from experiments.cli import main
from experiments.reports.significance import compare_runs
from experiments.runs.entrants.registry import recorded_costs
from experiments.runs.one.store import run_dir
from experiments.runs.one.outputs import read_predictions

pytestmark = pytest.mark.usefixtures("clean_entrants")  # the entrant registry is left as found
RUNS = "table7-epochs-1-embeddings-random"  # the store folder of table7 runs under --epochs 1 --embeddings random


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A toy corpus (a quarter sarcastic: test ids test0, test4, ...) in an experiment file called table7,
    with no classic run: only the reference rows are there to compare with."""
    root = tmp_path_factory.mktemp("bench-refs")
    corpus = write_corpus(root / "toy.csv")
    experiment = root / "mini.toml"
    experiment.write_text(f"name = 'table7'\n[[cells]]\ncorpus = '{corpus}'\nmodel = 'cnn'\n")
    return root, corpus, experiment


def predictions(folder, sarcastic):
    """A predictions folder calling sarcastic the test texts whose number ``sarcastic`` accepts."""
    folder.mkdir()
    (folder / "toy.tsv").write_text("id\tp_sarcastic\n" + "".join(f"test{i}\t{0.9 if sarcastic(i) else 0.1}\n"
                                                                  for i in range(40)))
    return folder


def benchmark(root, experiment, name, folder, *args):
    return CliRunner().invoke(main, ["benchmark", name, "--predictions", str(folder), "--experiments",
                                     str(experiment), "--seeds", "1", *args, "--epochs", "1", "--set",
                                     "embeddings=random", "--split-col", "split", "--resamples", "300",
                                     "--output-dir", str(root / "runs"), "--results-dir", str(root / "results")])


def test_against_the_references_an_entrant_below_tfidf_lr_says_so(store, tmp_path):
    root, corpus, experiment = store
    # Every sarcastic text and 5 of the others: F1 0.8, above the floor (0.4), below TF-IDF + LR (1.0 here).
    folder = predictions(tmp_path / "eager", lambda i: i % 4 == 0 or i % 8 == 1)
    result = benchmark(root, experiment, "eager", folder, "--against", "majority,tfidf-lr")
    assert result.exit_code == 0, result.output
    cell = json.loads((root / "results" / "benchmark-eager.json").read_text())["cells"][0]
    assert cell["classics"] == [] and [row["model"] for row in cell["references"]] == ["majority", "tfidf-lr"]
    assert (cell["candidate"]["mean"], cell["rank"], cell["of"]) == (pytest.approx(0.8), 2, 3)
    assert "| 2 of 3; below TF-IDF + LR (1.000) | tfidf-lr 1.000 |" in unpadded(result.output)
    # The reference run is scored (trained) in the experiment's folder and paired like any run.
    tfidf = run_dir(root / "runs", RUNS, str(corpus), "tfidf-lr", 0)
    own = run_dir(root / "runs", RUNS, str(corpus), "eager", 0)
    expected = compare_runs({0: read_predictions(own / "predictions.tsv")},
                            {0: read_predictions(tfidf / "predictions.tsv")}, n_resamples=300)
    assert cell["references"][1]["p_value"] == expected["combined"]["p_value"]
    assert all("p_holm" in row for row in cell["references"])
    assert not run_dir(root / "runs", RUNS, str(corpus), "all-sarcastic", 0).exists()  # not asked for
    # Outside predictions: the suite measured neither training time nor memory.
    metrics = json.loads((own / "metrics.json").read_text())
    assert not {"train_seconds", "peak_memory_mb"} & set(metrics)
    report = unpadded((root / "results" / "benchmark-eager.md").read_text())
    assert "| 2 | **eager** | 0.800 ± 0.000 | 0.855 ± 0.000 | 37.5% ± 0.0% | — | — | — | — | 1 |" in report
    assert "| 1 | *tfidf-lr* (reference) | 1.000 ± 0.000 |" in report


def test_an_entrant_below_the_floor_is_not_a_bare_rank_1(store, tmp_path):
    root, _, experiment = store
    # Every other text, from test1, and every second sarcastic one: F1 0.286, below the floor (0.4).
    folder = predictions(tmp_path / "poor", lambda i: i % 2 == 1 or i % 8 == 0)
    result = benchmark(root, experiment, "poor", folder)
    assert result.exit_code == 0, result.output
    cell = json.loads((root / "results" / "benchmark-poor.json").read_text())["cells"][0]
    assert [row["model"] for row in cell["references"]] == ["all-sarcastic", "majority", "tfidf-lr"]
    assert cell["not_found"] == ["cnn"]  # the classic runs are still only read, never trained here
    assert "| 3 of 4; below TF-IDF + LR (1.000) and below the all-sarcastic floor (0.400) |" in unpadded(result.output)


def test_an_unknown_against_name_is_one_line_listing_the_valid_ones(store, tmp_path):
    root, _, experiment = store
    folder = predictions(tmp_path / "typo", lambda i: i % 4 == 0)
    result = benchmark(root, experiment, "typo", folder, "--against", "cnn,tfidf")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert "--against: unknown model 'tfidf'" in result.output
    assert "cnn" in result.output and "all-sarcastic, majority, tfidf-lr" in result.output
    assert not (root / "results" / "benchmark-typo.json").exists()


def test_runs_of_outside_predictions_written_before_show_no_cost():
    """Such runs recorded 0 s of training and the suite's own memory: not the model's costs."""
    old = {"entrant": "predictions", "train_seconds": 0.0, "predict_texts_per_second": None, "peak_memory_mb": 679.0}
    assert recorded_costs(old) == {}
    trained = {"train_seconds": 12.5, "peak_memory_mb": 900.0, "test": {}}
    assert recorded_costs(trained) == {"train_seconds": 12.5, "peak_memory_mb": 900.0}
