"""Cross-dataset evaluation and benchmarking on two tiny corpora (one model, one seed, one epoch)."""
import csv
import io
import json

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.metrics import f1_score
from markdown_tables import unpadded
from toy_corpus import write_corpus, train_toy

from experiments.cli import main
from experiments.reports.cross import cross_csv, cross_markdown
from experiments.runs.one.operating_point import constant_floors
from experiments.reports.significance import compare_runs
from experiments.results.files import load_results
from experiments.results.schema import Result
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.one.store import run_dir
from experiments.runs.one.outputs import read_predictions
from experiments.studies import cross_eval
from preprocessing.corpora import load_corpus

ONE_EPOCH = TrainConfig(epochs=1, embeddings="random")
VARIANT = "epochs-1-embeddings-random"  # the store name suffix of ONE_EPOCH


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """Two corpora, and a cnn run on alpha already made by a table7 reproduction with the same settings."""
    root = tmp_path_factory.mktemp("cross")
    alpha, beta = write_corpus(root / "alpha.csv", seed=0), write_corpus(root / "beta.csv", seed=1)
    table_run = run_dir(root / "runs", f"table7-{VARIANT}", str(alpha), "cnn", 0)
    train_toy(load_corpus(str(alpha), root, split_col="split"), "cnn", table_run, root, ONE_EPOCH)
    return root, alpha, beta, table_run


def cli(root, *args):
    common = ["--seeds", "1", "--epochs", "1", "--set", "embeddings=random", "--split-col", "split",
              "--output-dir", str(root / "runs"), "--results-dir", str(root / "results")]
    return CliRunner().invoke(main, [*args, *common])


@pytest.fixture(scope="module")
def cross(store):
    root, alpha, beta, _ = store
    result = cli(root, "cross-eval", "--models", "cnn", "--corpora", f"{alpha},{beta}")
    assert result.exit_code == 0, result.output
    return load_results(root / "results" / f"cross-{VARIANT}.json"), unpadded(result.output)


def cell(result, train, test):
    return next(c for c in result.cells if (c["train_corpus"], c["test_corpus"]) == (train, test))


def test_the_matrix_reuses_the_table_run_and_trains_the_rest_under_cross(store, cross):
    root, _, _, table_run = store
    result, _ = cross
    assert [(c["train_corpus"], c["test_corpus"]) for c in result.cells] == [
        ("alpha", "alpha"), ("alpha", "beta"), ("beta", "alpha"), ("beta", "beta")]
    assert cell(result, "alpha", "beta")["runs"] == [str(table_run)]
    assert not (root / "runs" / f"cross-{VARIANT}" / "alpha").exists()
    runs = [table_run, root / "runs" / f"cross-{VARIANT}" / "beta" / "cnn" / "seed-0"]
    compute = sum(json.loads((run / "metrics.json").read_text())["train_seconds"] for run in runs)
    assert result.training_runs == 2 and result.compute_seconds == pytest.approx(compute, abs=0.1)
    assert sum(origin["runs"] for origin in result.run_origins) == 2
    assert (root / "runs" / f"cross-{VARIANT}" / "beta" / "cnn" / "seed-0" / "metrics.json").is_file()


def test_the_diagonal_is_the_runs_own_test_result(store, cross):
    _, _, _, table_run = store
    result, _ = cross
    own = json.loads((table_run / "metrics.json").read_text())["test"]
    assert cell(result, "alpha", "alpha")["metrics"]["f1_sarcastic"]["values"] == [own["f1_sarcastic"]]
    assert cell(result, "alpha", "alpha")["metrics"]["f1_macro"]["values"] == [own["f1_macro"]]


def test_off_diagonal_cells_are_saved_evaluations_with_their_predictions(store, cross):
    _, _, _, table_run = store
    result, _ = cross
    # Saved under the corpus' stem and the evaluation's key (the data's content and the options).
    [path] = (table_run / "evaluations").glob("beta-*.json")
    saved = json.loads(path.read_text())
    assert saved["split"] == "test" and saved["trained_on"].endswith("alpha.csv")
    assert path.name == f"beta-{saved['key'][:12]}.json" and saved["options"]["split_col"] == "split"
    predictions = read_predictions(path.with_name(f"beta-{saved['key'][:12]}.predictions.tsv"))
    assert len(predictions.ids) == 40
    recomputed = f1_score(predictions.gold, predictions.probabilities[:, 1] >= 0.5, zero_division=0)
    assert cell(result, "alpha", "beta")["metrics"]["f1_sarcastic"]["values"] == [pytest.approx(recomputed)]
    assert saved["test"]["f1_sarcastic"] == pytest.approx(recomputed)


def test_the_matrix_is_written_as_markdown_csv_and_heatmap(store, cross):
    root, _, _, _ = store
    result, output = cross
    value = cell(result, "beta", "alpha")["metrics"]["f1_sarcastic"]["mean"]
    assert "| train \\ test | alpha | beta |" in output
    assert f"| beta | {value:.3f} ± 0.000 |" in output
    rows = list(csv.DictReader((root / "results" / f"cross-{VARIANT}.csv").open()))
    assert len(rows) == 8 and {r["metric"] for r in rows} == {"f1_sarcastic", "f1_macro"}
    assert (root / "results" / f"cross-{VARIANT}" / "heatmap-cnn.png").stat().st_size > 10_000


def test_a_second_cross_eval_trains_and_evaluates_nothing(store, cross, monkeypatch):
    root, alpha, beta, _ = store

    def fail(*args, **kwargs):
        raise AssertionError("nothing should be trained or evaluated again")

    monkeypatch.setattr("experiments.runs.many.scheduler.train_run", fail)
    monkeypatch.setattr("experiments.runs.one.inference.load_run", fail)
    result = cli(root, "cross-eval", "--models", "cnn", "--corpora", f"{alpha},{beta}")
    assert result.exit_code == 0, result.output
    again = json.loads((root / "results" / f"cross-{VARIANT}.json").read_text())
    assert [c["metrics"] for c in again["cells"]] == [c["metrics"] for c in cross[0].cells]


def test_an_unknown_model_stops_before_training(store):
    root, alpha, beta, _ = store
    result = cli(root, "cross-eval", "--models", "cnnn", "--corpora", f"{alpha},{beta}")
    assert result.exit_code == 1 and "unknown model 'cnnn'; did you mean 'cnn'?" in result.output


def test_benchmark_ranks_the_model_and_tests_it_against_each_classic_run(store, cross):
    root, alpha, beta, table_run = store
    # An experiment file called table7, so the fixture's table7 cnn run is the classic run of its cell.
    experiment = root / "mini.toml"
    experiment.write_text(f"name = 'table7'\n[[cells]]\ncorpus = '{alpha}'\nmodel = 'cnn'\n"
                          f"[[cells]]\ncorpus = '{alpha}'\nmodel = 'lstm'\n")
    result = cli(root, "benchmark", "3cnn", "--experiments", f"{experiment},cross", "--corpora", f"{alpha},{beta}",
                 "--resamples", "500")
    assert result.exit_code == 0, result.output
    saved = json.loads((root / "results" / "benchmark-3cnn.json").read_text())
    table_cell = saved["cells"][0]
    assert (table_cell["experiment"], table_cell["cell"]) == (f"table7-{VARIANT}", "alpha")
    assert [r["model"] for r in table_cell["classics"]] == ["cnn"] and table_cell["not_found"] == ["lstm"]
    classic = table_cell["classics"][0]
    own = json.loads((run_dir(root / "runs", f"table7-{VARIANT}", str(alpha), "3cnn", 0) / "metrics.json").read_text())
    assert table_cell["candidate"]["mean"] == own["test"]["f1_sarcastic"]
    assert table_cell["classic_rank"]["rank"] == (2 if classic["mean"] > own["test"]["f1_sarcastic"] else 1)
    assert table_cell["classic_rank"]["of"] == 2
    # The table cell also ranks the reference rows, scored for it; the cross cells have none.
    assert [r["model"] for r in table_cell["references"]] == ["all-sarcastic", "majority", "tfidf-lr"]
    assert table_cell["of"] == 5
    expected = compare_runs({0: read_predictions(run_dir(root / "runs", f"table7-{VARIANT}", str(alpha), "3cnn", 0)
                                                 / "predictions.tsv")},
                            {0: read_predictions(table_run / "predictions.tsv")}, n_resamples=500)
    assert classic["p_value"] == expected["combined"]["p_value"]
    assert classic["delta"] == pytest.approx(own["test"]["f1_sarcastic"] - classic["mean"])
    # Cross cells: the candidate's run on alpha is reused from its table run; cnn's cross runs are its classics.
    cross_cells = [c for c in saved["cells"] if c["experiment"] == f"cross-{VARIANT}"]
    assert [c["cell"] for c in cross_cells] == ["alpha → alpha", "alpha → beta", "beta → alpha", "beta → beta"]
    assert all([r["model"] for r in c["classics"]] == ["cnn"] and c["references"] == [] for c in cross_cells)
    # Missing classic runs are listed with the command that makes them, with the same protocol options.
    commands = {m["command"] for m in saved["missing"]}
    options = f"--seeds 1 --epochs 1 --set embeddings=random --output-dir {root / 'runs'} --split-col split"
    assert f"isarcasm reproduce {experiment} --models lstm --corpora {alpha} {options}" in commands
    assert f"isarcasm cross-eval --models lstm,att-lstm,dense-lstm,siarn,miarn --corpora {alpha},{beta} {options}" \
        in commands
    assert "## Classic runs not found" in result.output and "| alpha | f1_sarcastic |" in unpadded(result.output)
    assert np.isfinite(classic["p_value"]) and 0 < classic["p_value"] <= 1
    comparisons = [r for c in saved["cells"] for r in [*c["classics"], *c["references"]]]
    assert all(r["p_value"] <= r["p_holm"] <= min(1, len(comparisons) * r["p_value"]) for r in comparisons)
    assert f"Of {len(comparisons)} paired comparisons" in result.output


def test_benchmark_refuses_experiments_it_cannot_pair(store):
    root, alpha, _, _ = store
    experiment = root / "folded.toml"
    experiment.write_text(f"name = 'folded'\n[[cells]]\ncorpus = '{alpha}'\nmodel = 'cnn'\nfolds = true\n")
    result = cli(root, "benchmark", "3cnn", "--experiments", str(experiment))
    assert result.exit_code == 1 and "benchmark pairs runs on one test split per seed" in result.output
    assert "Traceback" not in result.output


def test_each_column_gets_the_floors_of_labelling_every_text_sarcastic_or_the_majority_class(store):
    root, alpha, _, _ = store
    dataset = load_corpus(str(alpha), root, split_col="split")
    gold = np.array([r.label for r in dataset.split("test")])
    floors = constant_floors(cross_eval.test_share(dataset))
    floor, majority = floors["all_sarcastic"], floors["majority"]
    assert majority["f1_macro"] == pytest.approx(f1_score(gold, np.full_like(gold, int(gold.mean() > 0.5)),
                                                          average="macro"))
    assert floor["sarcastic_share"] == pytest.approx(gold.mean())
    assert floor["f1_sarcastic"] == pytest.approx(f1_score(gold, np.ones_like(gold)))
    assert floor["f1_macro"] == pytest.approx(f1_score(gold, np.ones_like(gold), average="macro"))


def synthetic(scores: dict, corpora: list[str], floors: dict | None) -> Result:
    """A cross result of one seed per cell: ``scores`` (model, train, test) -> sarcastic-class F1, macro-F1
    half of it; ``floors``: the all-sarcastic floor per column (None: saved before floors were recorded)."""
    def stats(mean):
        return {"mean": mean, "std": 0.0, "values": [mean]}

    cells = [{"model": m, "train_corpus": a, "test_corpus": b, "seeds": [0], "runs": [],
              "metrics": {"f1_sarcastic": stats(v), "f1_macro": stats(v / 2)}} for (m, a, b), v in scores.items()]
    return Result("cross", "cross", cells, {
        "title": "Cross", "models": list(dict.fromkeys(m for m, _, _ in scores)), "corpora": corpora,
        "train_corpora": list(dict.fromkeys(a for _, a, _ in scores)), "seeds": [0], "git_commit": "abc",
        "wall_seconds": 1, **({"all_sarcastic": floors} if floors else {})})


def test_the_report_summarises_in_domain_against_out_of_domain():
    scores = {("lstm", "a", "a"): 0.8, ("lstm", "a", "b"): 0.4, ("lstm", "b", "a"): 0.5, ("lstm", "b", "b"): 0.6,
              ("cnn", "a", "a"): 0.6, ("cnn", "a", "b"): 0.2, ("cnn", "b", "a"): 0.3, ("cnn", "b", "b"): 0.4}
    floors = {"a": {"sarcastic_share": 0.25, "f1_sarcastic": 0.4, "f1_macro": 0.2},
              "b": {"sarcastic_share": 0.5, "f1_sarcastic": 2 / 3, "f1_macro": 1 / 3}}
    result = synthetic(scores, ["a", "b"], floors)
    text = unpadded(cross_markdown(result))
    # lstm: in-domain (0.8 + 0.6) / 2, out-of-domain (0.4 + 0.5) / 2; macro-F1 is half of each here. Beside
    # each, the mean gain over the column's floor: in-domain (0.4 - 0.067) / 2, out-of-domain (-0.267 + 0.1) / 2.
    assert "| lstm | 0.700 | 0.450 | +0.167 | -0.083 | 0.350 | 0.225 | +0.083 | -0.042 |" in text
    assert "sarcastic share: a 25%, b 50%)" in text and "majority" not in text  # saved before the majority floor
    assert "gain over its column's floor (the column's *all sarcastic* score for that metric)" in text
    mean_over_models = text.split("## Mean over the 2 models: sarcastic-class F1")[1]
    assert "| a | **0.700** | 0.300 |" in mean_over_models
    assert "| *all sarcastic* | *0.400* | *0.667* |" in mean_over_models
    result = result.updated(majority={name: constant_floors(floor["sarcastic_share"])["majority"]
                                      for name, floor in floors.items()})
    macro = unpadded(cross_markdown(result)).split("## Mean over the 2 models: macro-F1")[1]
    assert "| *majority* | *0.429* | *0.333* |" in macro  # a: F1 of the other class 2 * 0.75 / 1.75, halved
    assert "(the higher of the column's *all sarcastic* and *majority* scores for that metric)" in cross_markdown(result)
    assert "Wall time 0 min 01 s. " in text
    result = result.updated(training_runs=2, compute_seconds=3725)
    assert ("Wall time 0 min 01 s for this invocation; the 2 training runs took 1 h 02 min of training compute"
            in cross_markdown(result))
    result = synthetic(scores, ["a", "b"], None)  # results saved before the floors were recorded still print
    assert "all sarcastic" not in cross_markdown(result)
    assert "| lstm | 0.700 | 0.450 | 0.350 | 0.225 |" in unpadded(cross_markdown(result))  # and no gain to show


def test_in_domain_against_out_of_domain_is_read_by_the_gain_over_each_columns_floor():
    """A user's file that is half sarcastic: out of domain the raw F1 is higher than in domain, only because
    that column's floors are higher; the summary gives the gains, which say the opposite."""
    scores = {("cnn", "tweets", "tweets"): 0.45, ("cnn", "tweets", "mine"): 0.6}
    floors = {"tweets": constant_floors(0.17), "mine": constant_floors(0.5)}
    result = synthetic(scores, ["tweets", "mine"], {c: f["all_sarcastic"] for c, f in floors.items()})
    result = result.updated(majority={c: f["majority"] for c, f in floors.items()})
    [row] = [line for line in unpadded(cross_markdown(result)).splitlines() if line.startswith("| cnn |")]
    raw_in, raw_out, gain_in, gain_out, macro_in, macro_out, macro_gain_in, macro_gain_out = \
        [float(part) for part in row.strip("|").split("|")[1:]]
    assert (raw_in, raw_out) == (0.45, 0.6)
    assert gain_in == round(0.45 - 2 * 0.17 / 1.17, 3) and gain_out == round(0.6 - 2 / 3, 3) and gain_out < 0 < gain_in
    # macro-F1 against the better floor of each column: labelling every text with its majority class
    assert macro_gain_in == round(0.225 - floors["tweets"]["majority"]["f1_macro"], 3)
    assert macro_gain_out == round(0.3 - max(f["f1_macro"] for f in floors["mine"].values()), 3)
    rows = list(csv.DictReader(io.StringIO(cross_csv(result))))
    on_mine = next(r for r in rows if (r["test_corpus"], r["metric"]) == ("mine", "f1_sarcastic"))
    assert (on_mine["floor_all_sarcastic"], on_mine["floor_majority"]) == ("0.6667", "0.0000")  # a tie: not sarcastic
    on_tweets = next(r for r in rows if (r["test_corpus"], r["metric"]) == ("tweets", "f1_macro"))
    assert float(on_tweets["floor_majority"]) == pytest.approx(floors["tweets"]["majority"]["f1_macro"], abs=1e-4)


def test_benchmark_finds_a_classic_run_that_its_reproduction_reused_from_another_experiment(store, cross):
    root, _, beta, _ = store
    # cnn on beta was trained by cross-eval only; a table6 reproduction of that cell reuses it.
    experiment = root / "beta-table.toml"
    experiment.write_text(f"name = 'table6'\n[[cells]]\ncorpus = '{beta}'\nmodel = 'cnn'\n")
    result = cli(root, "benchmark", "lstm", "--experiments", str(experiment), "--resamples", "200")
    assert result.exit_code == 0, result.output
    saved = json.loads((root / "results" / "benchmark-lstm.json").read_text())
    assert saved["missing"] == [] and [r["model"] for r in saved["cells"][0]["classics"]] == ["cnn"]
    cross_run = run_dir(root / "runs", f"cross-{VARIANT}", str(beta), "cnn", 0)
    own = json.loads((cross_run / "metrics.json").read_text())["test"]["f1_sarcastic"]
    assert saved["cells"][0]["classics"][0]["mean"] == own
    assert not (root / "runs" / f"table6-{VARIANT}" / "beta" / "cnn").exists()


def test_a_test_only_file_is_a_column_with_its_floor(store, tmp_path):
    """A researcher's labelled file with a test split alone: the models trained on the other corpora are
    evaluated on it, in the same matrix, with its all-sarcastic floor; it has no row."""
    root, alpha, _, _ = store
    mine = tmp_path / "mine.csv"
    with mine.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text", "label", "split"])
        for i in range(40):
            writer.writerow([f"m{i}", "monday coffee yeah right" if i % 2 else "monday coffee is fine", i % 2, "test"])
    result = cli(root, "cross-eval", "--models", "cnn", "--corpora", f"{alpha},{mine}")
    assert result.exit_code == 0, result.output
    saved = load_results(root / "results" / f"cross-{VARIANT}.json")
    assert saved.train_corpora == ["alpha"] and saved.corpora == ["alpha", "mine"]
    on_mine = cell(saved, "alpha", "mine")
    assert on_mine["metrics"]["f1_sarcastic"]["values"] and not any(c["train_corpus"] == "mine" for c in saved.cells)
    assert saved.all_sarcastic["mine"]["sarcastic_share"] == 0.5
    table = cross_markdown(saved)
    row_names = [line.split("|")[1].strip() for line in table.splitlines() if line.startswith("| ")]
    assert "alpha" in row_names and "mine" not in row_names and "*0.667*" in table  # floor: 2 * 0.5 / 1.5
    only = cli(root, "cross-eval", "--models", "cnn", "--corpora", str(mine))
    assert only.exit_code == 1 and "at least one corpus with a training split" in only.output


def write_test_file(path, flipped=False):
    """A test-only labelled file of 40 texts, every other one sarcastic (``flipped``: every fourth of the
    other half, so the two files differ in their labels and in their class share, and so in their scores
    even for a model that predicts one class)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text", "label", "split"])
        for i in range(40):
            sarcastic = i % 4 == 0 if flipped else bool(i % 2)
            writer.writerow([f"m{i}", "monday coffee yeah right" if i % 2 else "monday coffee is fine", int(sarcastic),
                             "test"])
    return path


def test_two_files_with_one_stem_are_two_columns_each_with_its_own_numbers(store, tmp_path):
    root, alpha, _, table_run = store
    first, second = write_test_file(tmp_path / "a" / "sub.csv"), write_test_file(tmp_path / "b" / "sub.csv", True)
    result = cli(root, "cross-eval", "--models", "cnn", "--corpora", f"{alpha},{first},{second}")
    assert result.exit_code == 0, result.output
    saved = load_results(root / "results" / f"cross-{VARIANT}.json")
    assert saved.corpora == ["alpha", "a/sub", "b/sub"]
    assert saved.files == {"alpha": str(alpha), "a/sub": str(first), "b/sub": str(second)}
    for label, path in (("a/sub", first), ("b/sub", second)):
        [evaluation] = [json.loads(p.read_text()) for p in (table_run / "evaluations").glob("sub-*.json")
                        if json.loads(p.read_text())["corpus"] == str(path)]
        assert cell(saved, "alpha", label)["metrics"]["f1_sarcastic"]["values"] == [evaluation["test"]["f1_sarcastic"]]
    assert cell(saved, "alpha", "a/sub")["metrics"] != cell(saved, "alpha", "b/sub")["metrics"]
    assert "| train \\ test | alpha | a/sub | b/sub |" in unpadded(result.output)
    rows = list(csv.DictReader((root / "results" / f"cross-{VARIANT}.csv").open()))
    assert {r["test_corpus"] for r in rows} == {"alpha", "a/sub", "b/sub"}


def test_a_file_named_like_a_corpus_never_takes_the_corpus_name(store, tmp_path):
    root, alpha, _, _ = store
    mine = write_test_file(tmp_path / "mine" / "riloff.csv")
    result = cli(root, "cross-eval", "--models", "cnn", "--corpora", f"{alpha},{mine}")
    assert result.exit_code == 0, result.output
    saved = load_results(root / "results" / f"cross-{VARIANT}.json")
    assert saved.corpora == ["alpha", "mine/riloff"] and "riloff" not in saved.all_sarcastic
    assert saved.all_sarcastic["mine/riloff"]["sarcastic_share"] == 0.5


def test_the_same_file_twice_or_two_training_files_sharing_a_run_folder_are_refused(store, tmp_path):
    root, alpha, _, _ = store
    twice = cli(root, "cross-eval", "--models", "cnn", "--corpora", f"{alpha},{alpha.parent}/./{alpha.name}")
    assert twice.exit_code == 1 and "is given twice" in twice.output and "Traceback" not in twice.output
    copy = tmp_path / "copy" / "alpha.csv"
    copy.parent.mkdir()
    copy.write_bytes(alpha.read_bytes().replace(b"monday", b"tuesday"))
    shared = cli(root, "cross-eval", "--models", "cnn", "--corpora", f"{alpha},{copy}")
    assert shared.exit_code == 1 and "would train into the same run folder" in shared.output
    assert not (root / "runs" / f"cross-{VARIANT}" / "alpha").exists()


def test_a_column_without_sarcastic_text_is_undefined_and_averaged_nowhere(store, tmp_path):
    root, alpha, _, _ = store
    plain = write_test_file(tmp_path / "plain.csv")
    rows = plain.read_text().splitlines()
    plain.write_text("\n".join([rows[0], *(r.rsplit(",", 2)[0] + ",0,test" for r in rows[1:])]) + "\n")
    result = cli(root, "cross-eval", "--models", "cnn", "--corpora", f"{alpha},{plain}")
    assert result.exit_code == 0, result.output
    saved = load_results(root / "results" / f"cross-{VARIANT}.json")
    on_plain = cell(saved, "alpha", "plain")["metrics"]
    assert on_plain["f1_sarcastic"]["mean"] is None and on_plain["f1_macro"]["mean"] is None
    output = unpadded(result.output)
    assert "| alpha | **" in output and "| undefined |" in output
    own = cell(saved, "alpha", "alpha")["metrics"]["f1_sarcastic"]["mean"]
    assert f"| cnn | {own:.3f} | — |" in output  # the out-of-domain mean has no cell to average
    rows = [r for r in csv.DictReader((root / "results" / f"cross-{VARIANT}.csv").open()) if r["test_corpus"] == "plain"]
    assert {(r["mean"], r["n_seeds"]) for r in rows} == {("", "0")}
    assert "plain" not in saved.all_sarcastic and "plain" not in saved.majority  # its floors are as undefined
