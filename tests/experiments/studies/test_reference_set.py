"""The reference set (experiments/runs/one/reference.py): runs exported from a toy store, verified against the
local data before any command uses them, refused in one line where the data, the file or its format differ."""
import json
import logging
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from toy_corpus import write_corpus

from experiments.cli import main
from experiments.results.files import load_results
from experiments.runs.one.protocol import RULES, TrainConfig
from experiments.runs.one.provenance import recorded_config_hash
from experiments.runs.one.reference import FORMAT, VERSION, Mismatch, ReferenceSet
from experiments.runs.one.reference_arrays import PARTS, unpacked
from experiments.runs.many.scheduler import LocalExecutor
from experiments.runs.one.spec import RunSpec
from experiments.runs.one.store import EPOCHS, METRICS, PREDICTIONS, REFERENCE_CACHE, RunStore, is_finished, read_config
from experiments.runs.one.outputs import read_predictions
from experiments.runs.one.training import expected_hash
from experiments.runs.one.trajectory import load_record, run_under
from experiments.studies.selection import reselect
from experiments.studies.settings import Corpora, Settings, TrainChoice
from preprocessing.fileio import content_sha256

FAST = TrainConfig(epochs=2, batch_size=32, embeddings="random")
EXPERIMENT = "name = 'toy'\ntitle = 'toy'\nsource = 'tests'\n[train]\nepochs = 2\nbatch_size = 32\nembeddings = 'random'\n" \
             "[[cells]]\ncorpus = '{corpus}'\nmodel = 'cnn'\n"


def cli(root: Path, *args: str):
    return CliRunner().invoke(main, ["--data-dir", str(root), *args], catch_exceptions=False)


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """A toy store (one cell, 2 seeds, 2 epochs), its results file and its reference set exported from it."""
    root = tmp_path_factory.mktemp("reference")
    corpus = write_corpus(root / "toy.csv")
    (root / "toy.toml").write_text(EXPERIMENT.format(corpus=corpus))
    made = cli(root, "reproduce", str(root / "toy.toml"), "--seeds", "2", "--split-col", "split", "--output-dir",
               str(root / "runs"), "--results-dir", str(root / "results"), "--reference-dir", str(root / "none"))
    assert made.exit_code == 0, made.output
    exported = cli(root, "runs", "export", "toy", "--results-dir", str(root / "results"), "--to", str(root / "ref"),
                   "--split-col", "split")
    assert exported.exit_code == 0, exported.output
    assert "toy: 2 runs ->" in exported.output
    return root, corpus


def settings_of(root: Path, store: Path, reference: Path | None) -> Settings:
    return Settings(Corpora(root, {"split_col": "split"}), RunStore(store), root / "results-x", TrainChoice.of(FAST),
                    executor=LocalExecutor(verbose=0), reference=reference and ReferenceSet(reference))


def spec(corpus: Path, seed: int) -> RunSpec:
    return RunSpec(str(corpus), "cnn", seed, FAST)


def test_the_export_holds_each_run_with_its_split_checksums_in_the_documented_format(shipped):
    root, _ = shipped
    index = json.loads((root / "ref" / "toy.json").read_text())
    assert (index["format"], index["version"], index["experiment"], index["arrays"]) == (FORMAT, VERSION, "toy",
                                                                                      "toy.npz")
    assert [run["key"] for run in index["runs"]] == ["toy/toy/cnn/seed-0", "toy/toy/cnn/seed-1"]
    run = index["runs"][0]
    assert {"config", "metrics", "history", "splits", "parameters", "directory"} <= set(run)
    assert run["splits"]["test"]["texts"] == 40 and len(run["splits"]["validation"]["sha256"]) == 64
    assert {"git_commit", "machine"} <= set(run["config"]) and run["config"]["config_hash"] == run["metrics"]["config_hash"]
    with np.load(root / "ref" / "toy.npz") as arrays:  # P(sarcastic)'s byte planes, P(not sarcastic) from it
        assert int(arrays["version"]) == VERSION == 2 and arrays["r0_test"].shape == (4, 2, 40)
        assert arrays["r0_test_p0_ulps"].shape == (2, 40)
        assert list(arrays["r0_test_ids"][:2]) == ["test0", "test1"]


def test_a_fresh_store_reproduces_the_cell_from_the_reference_set_without_training(shipped, monkeypatch):
    """Every file a reader reads is the exported run's, the report says where the runs came from, and
    nothing is trained."""
    root, _ = shipped
    monkeypatch.setattr("experiments.runs.one.training._train", lambda *a, **k: pytest.fail("a reference run was trained"))
    done = cli(root, "reproduce", str(root / "toy.toml"), "--seeds", "2", "--split-col", "split", "--output-dir",
               str(root / "fresh"), "--results-dir", str(root / "fresh-results"), "--reference-dir", str(root / "ref"))
    assert done.exit_code == 0, done.output
    assert "2 from the shipped reference set" in done.output
    original = json.loads((root / "results" / "toy.json").read_text())["cells"][0]
    again = json.loads((root / "fresh-results" / "toy.json").read_text())["cells"][0]
    assert again["metrics"] == original["metrics"] and again["operating_point"] == original["operating_point"]
    for old, new in zip(original["runs"], again["runs"]):
        old, new = Path(old), Path(new)
        assert new == root / "fresh" / REFERENCE_CACHE / "toy" / "toy" / "cnn" / old.name
        assert (new / PREDICTIONS).read_text() == (old / PREDICTIONS).read_text()
        assert json.loads((new / METRICS).read_text()) == json.loads((old / METRICS).read_text())
        assert np.array_equal(load_record(new / EPOCHS).test, load_record(old / EPOCHS).test)
        assert run_under(new, "grid") [0] == run_under(old, "grid")[0]


def test_the_one_lookup_of_a_finished_run_prefers_the_local_run(shipped):
    root, corpus = shipped
    local = settings_of(root, root / "runs", root / "ref")
    assert local.finished("toy", spec(corpus, 0)) == root / "runs" / "toy" / "toy" / "cnn" / "seed-0"
    assert not (root / "runs" / REFERENCE_CACHE).exists()  # nothing was materialised
    fresh = settings_of(root, root / "lookup", root / "ref")
    assert fresh.finished("toy", spec(corpus, 1)) == root / "lookup" / REFERENCE_CACHE / "toy" / "toy" / "cnn" / "seed-1"
    assert read_predictions(fresh.finished("toy", spec(corpus, 1)) / PREDICTIONS).ids[0] == "test0"


def of_other_settings(run: Path, to: Path) -> Path:
    """A finished copy of ``run`` at ``to`` whose config.json says it trained one epoch (another configuration
    hash, recorded in its config.json and metrics.json as training would): a run of other settings."""
    shutil.copytree(run, to)
    config = json.loads((to / "config.json").read_text())
    config = {**config, "train": {**config["train"], "epochs": 1}}
    config["config_hash"] = recorded_config_hash(config)
    metrics = json.loads((to / METRICS).read_text())
    (to / "config.json").write_text(json.dumps(config))
    (to / METRICS).write_text(json.dumps({**metrics, "config_hash": config["config_hash"]}))
    assert is_finished(to) and not is_finished(to, metrics["config_hash"])
    return to


def test_a_run_of_other_settings_in_the_cells_folder_is_never_reused_and_never_hides_the_reference_run(shipped,
                                                                                                       tmp_path):
    """A --quick run (any other settings) in the very folder of a cell's run: the cell takes the shipped run of
    its configuration hash, and the other run stays as it was."""
    root, corpus = shipped
    other = of_other_settings(root / "runs" / "toy" / "toy" / "cnn" / "seed-0",
                              tmp_path / "store" / "toy" / "toy" / "cnn" / "seed-0")
    settings = settings_of(root, tmp_path / "store", root / "ref")
    assert settings.finished("toy", spec(corpus, 0)) == tmp_path / "store" / REFERENCE_CACHE / "toy/toy/cnn/seed-0"
    assert settings.finished("toy", replace(spec(corpus, 0), train=replace(FAST, epochs=1))) == other
    assert is_finished(other, read_config(other)["config_hash"])


def test_a_local_run_of_the_cells_hash_in_any_folder_comes_before_the_shipped_one(shipped, tmp_path):
    root, corpus = shipped
    local = tmp_path / "store" / "elsewhere" / "toy" / "cnn" / "seed-1"
    shutil.copytree(root / "runs" / "toy" / "toy" / "cnn" / "seed-1", local)
    of_other_settings(root / "runs" / "toy" / "toy" / "cnn" / "seed-1", tmp_path / "store" / "toy/toy/cnn/seed-1")
    assert settings_of(root, tmp_path / "store", root / "ref").finished("toy", spec(corpus, 1)) == local
    assert not (tmp_path / "store" / REFERENCE_CACHE).exists()  # nothing was materialised


def test_a_reproduction_never_mixes_runs_of_other_settings_into_a_cell(shipped, tmp_path, monkeypatch):
    """Seed 0's folder holds a run of other settings, seed 1's run of the cell's settings is in another
    experiment's folder: nothing is trained, and every run of the cell has the cell's configuration hash."""
    root, corpus = shipped
    store = tmp_path / "store"
    of_other_settings(root / "runs" / "toy" / "toy" / "cnn" / "seed-0", store / "toy" / "toy" / "cnn" / "seed-0")
    shutil.copytree(root / "runs" / "toy" / "toy" / "cnn" / "seed-1", store / "elsewhere" / "toy" / "cnn" / "seed-1")
    monkeypatch.setattr("experiments.runs.one.training._train", lambda *a, **k: pytest.fail("a run was trained"))
    done = cli(root, "reproduce", str(root / "toy.toml"), "--seeds", "2", "--split-col", "split", "--output-dir",
               str(store), "--results-dir", str(tmp_path / "results"), "--reference-dir", str(root / "ref"))
    assert done.exit_code == 0, done.output
    assert "1 from the shipped reference set" in done.output
    cell = json.loads((tmp_path / "results" / "toy.json").read_text())["cells"][0]
    assert cell["runs"] == [str(store / REFERENCE_CACHE / "toy" / "toy" / "cnn" / "seed-0"),
                            str(store / "elsewhere" / "toy" / "cnn" / "seed-1")]
    data = Corpora(root, {"split_col": "split"}).load(str(corpus))
    assert [read_config(Path(run))["config_hash"] for run in cell["runs"]] == \
        [expected_hash(spec(corpus, seed), data, root) for seed in (0, 1)]


def test_report_selection_reads_the_reference_runs_of_a_results_file_made_elsewhere(shipped):
    root, _ = shipped
    result = load_results(root / "results" / "toy.json")
    elsewhere = result.updated(cells=[{**cell, "runs": [f"/gone/store/{Path(run).relative_to(root / 'runs')}"
                                                         for run in cell["runs"]]} for cell in result.cells])
    settings = settings_of(root, root / "report-store", root / "ref")
    rescored = reselect(settings.localised(elsewhere), "grid")
    assert rescored.cells[0]["metrics"] == reselect(result, "grid").cells[0]["metrics"]
    (root / "elsewhere").mkdir()
    (root / "elsewhere" / "toy.json").write_text(json.dumps(elsewhere.to_dict()))
    shown = cli(root, "report", "toy", "--results-dir", str(root / "elsewhere"), "--selection", "last",
                "--output-dir", str(root / "report-store"), "--reference-dir", str(root / "ref"), "--split-col", "split")
    assert shown.exit_code == 0, shown.output
    assert "2 of 2 runs from the reference set" in shown.output


def test_a_results_file_of_other_settings_never_reads_the_reference_runs_of_its_keys(shipped):
    """A results file whose runs were trained with other settings (here another learning rate) than the shipped
    runs of the same keys: its reports refuse rather than rescore other runs."""
    from preprocessing.errors import IsarcasmError

    root, _ = shipped
    result = load_results(root / "results" / "toy.json")
    older = result.updated(train={**result.train, "learning_rate": 0.5},
                           cells=[{**cell, "runs": [f"/gone/store/{Path(run).relative_to(root / 'runs')}"
                                                    for run in cell["runs"]]} for cell in result.cells])
    with pytest.raises(IsarcasmError, match="other settings than this results file"):
        settings_of(root, root / "report-store", root / "ref").localised(older)


@pytest.fixture
def changed_data(shipped):
    """Change the toy corpus in place for one test; restored after it."""
    root, corpus = shipped
    saved = corpus.read_bytes()

    def change(split: str, row: int, what: str):
        lines = saved.decode().splitlines()
        hits = [number for number, line in enumerate(lines) if line.startswith(f"{split}{row},")]
        fields = lines[hits[0]].split(",")  # id, text, label, split
        if what == "label":
            fields[2] = str(1 - int(fields[2]))
        else:
            fields[1] += " indeed"
        lines[hits[0]] = ",".join(fields)
        corpus.write_text("\n".join(lines) + "\n")
    yield change
    corpus.write_bytes(saved)


def refusals(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if "reference" in r.getMessage()]


def test_one_label_flipped_in_the_test_split_refuses_the_cells_reference_runs_in_one_line(shipped, changed_data,
                                                                                          caplog):
    root, corpus = shipped
    changed_data("test", 3, "label")
    settings = settings_of(root, root / "flipped", root / "ref")
    with caplog.at_level(logging.WARNING):
        assert settings.finished("toy", spec(corpus, 0)) is None and settings.finished("toy", spec(corpus, 1)) is None
    lines = refusals(caplog)
    assert len(lines) == 1 and "\n" not in lines[0]
    assert "corpus 'toy'" in lines[0] and "the test split" in lines[0]
    assert "train the cell here with `isarcasm reproduce toy --corpora toy --models cnn`" in lines[0]
    assert not (root / "flipped" / REFERENCE_CACHE).exists()
    with pytest.raises(Mismatch, match="the test split"):  # a reader of a results file: the line is the error
        settings_of(root, root / "flipped", root / "ref").shipped("toy/toy/cnn/seed-0", strict=True)


def test_the_retrain_command_a_refusal_suggests_names_the_results_the_file_backs_not_the_command_it_records(
        shipped, changed_data, caplog, monkeypatch):
    """A file whose index records its results under another results' name (Table 7's seeds 5-9) is named by
    BACKS; the command recorded at export (the shipped ones hold options since removed) is never suggested."""
    from experiments.runs.one import reference

    root, corpus = shipped
    changed_data("test", 3, "label")
    monkeypatch.setitem(reference.BACKS, "toy", "toy-ten")
    with caplog.at_level(logging.WARNING):
        settings_of(root, root / "flipped-backs", root / "ref").finished("toy", spec(corpus, 0))
    assert "`isarcasm reproduce toy-ten --corpora toy --models cnn`" in refusals(caplog)[0]
    assert ReferenceSet(root / "ref").keys("toy-ten") and not ReferenceSet(root / "ref").keys("toy")


def test_every_shipped_file_backs_an_experiment_that_reproduce_makes():
    """The command a refusal suggests, ``isarcasm reproduce <the results it backs>``, works on this isarcasm for
    every shipped file (their indexes record commands with options since removed: --protocol authors-code)."""
    from experiments.runs.one.reference import SHIPPED
    from experiments.studies.experiment import available

    shipped = ReferenceSet(SHIPPED)
    files = {path for path, _ in shipped.runs().values()}
    assert {path.stem for path in files} >= {"table7", "table7-seeds-5-9", "table7-authors-code", "table6"}
    assert {path.stem: shipped.backs(path) for path in files} == {
        "table7": "table7", "table7-seeds-5-9": "table7-seeds-10", "table7-authors-code": "table7-authors-code",
        "table6": "table6"}
    assert all(shipped.backs(path) in available() for path in files)


def test_a_changed_training_text_refuses_them_naming_the_data_file(shipped, changed_data, caplog):
    root, corpus = shipped
    changed_data("train", 5, "text")
    with caplog.at_level(logging.WARNING):
        assert settings_of(root, root / "changed", root / "ref").finished("toy", spec(corpus, 0)) is None
    assert "data file toy.csv" in refusals(caplog)[0]


def test_a_damaged_or_foreign_reference_file_is_refused_in_one_line(shipped, tmp_path, caplog):
    root, corpus = shipped
    damaged = tmp_path / "damaged"
    shutil.copytree(root / "ref", damaged)
    content = (damaged / "toy.npz").read_bytes()
    (damaged / "toy.npz").write_bytes(content[: len(content) // 2])
    with pytest.raises(Mismatch, match="damaged"):
        settings_of(root, tmp_path / "a", damaged).shipped("toy/toy/cnn/seed-0", strict=True)
    with caplog.at_level(logging.WARNING):
        assert settings_of(root, tmp_path / "b", damaged).finished("toy", spec(corpus, 0)) is None
    foreign = tmp_path / "foreign"
    shutil.copytree(root / "ref", foreign)
    index = json.loads((foreign / "toy.json").read_text())
    (foreign / "toy.json").write_text(json.dumps({**index, "version": VERSION + 1}))
    (foreign / "other.json").write_text(json.dumps({"runs": index["runs"]}))
    with caplog.at_level(logging.WARNING):
        assert settings_of(root, tmp_path / "c", foreign).finished("toy", spec(corpus, 0)) is None
    lines = refusals(caplog)
    assert any("damaged" in line for line in lines)
    assert any(f"version {VERSION + 1}" in line for line in lines)
    assert any("other.json is not a reference set" in line for line in lines)
    assert all("\n" not in line for line in lines)


def as_version_1(folder: Path, to: Path) -> None:
    """The reference set in ``folder`` rewritten as version 1 wrote it: every array as it is, deflated."""
    index = json.loads((folder / "toy.json").read_text())
    with np.load(folder / "toy.npz") as data:
        members = {name: data[name] for name in data.files}
    arrays = {f"{run['arrays']}_{part}": value for run in index["runs"]
              for part, value in unpacked(members, run["arrays"], index["version"]).items()}
    to.mkdir()
    np.savez_compressed(to / "toy.npz", version=np.asarray(1), **arrays)
    (to / "toy.json").write_text(json.dumps({**index, "version": 1, "arrays_sha256": content_sha256(to / "toy.npz")}))


def test_a_set_of_version_1_still_reads_and_materialises_the_same_runs(shipped, tmp_path):
    """The committed table7 set is of version 1: a run materialised from it and from the same run exported
    in version 2 are the same files, and score the same under every selection rule."""
    root, _ = shipped
    as_version_1(root / "ref", tmp_path / "v1")
    for seed in (0, 1):
        key = f"toy/toy/cnn/seed-{seed}"
        old = settings_of(root, tmp_path / "old", tmp_path / "v1").shipped(key, strict=True)
        new = settings_of(root, tmp_path / "new", root / "ref").shipped(key, strict=True)
        for name in (PREDICTIONS, METRICS, "config.json", "history.csv"):
            assert (old / name).read_bytes() == (new / name).read_bytes()
        assert all(np.array_equal(getattr(load_record(old / EPOCHS), part), getattr(load_record(new / EPOCHS), part))
                   for part in PARTS[:4])
        assert [run_under(old, rule)[0] for rule in RULES] == [run_under(new, rule)[0] for rule in RULES]
        original = root / "runs" / key  # and both are the run that was exported, to the last digit
        assert (new / PREDICTIONS).read_bytes() == (original / PREDICTIONS).read_bytes()
        assert np.array_equal(load_record(new / EPOCHS).validation, load_record(original / EPOCHS).validation)


def test_an_arrays_file_of_another_version_than_its_index_is_refused_as_damaged(shipped, tmp_path):
    root, _ = shipped
    as_version_1(root / "ref", tmp_path / "v1")
    index = json.loads((tmp_path / "v1" / "toy.json").read_text())
    (tmp_path / "v1" / "toy.json").write_text(json.dumps({**index, "version": 2}))
    with pytest.raises(Mismatch, match="damaged"):
        settings_of(root, tmp_path / "a", tmp_path / "v1").shipped("toy/toy/cnn/seed-0", strict=True)


def test_retrain_leaves_the_reference_set_out(shipped, monkeypatch):
    root, _ = shipped
    seen = {}

    def fake_run(spec, seeds, settings, **_):
        seen["reference"] = settings.reference and settings.reference.folder
        raise SystemExit(0)

    monkeypatch.setattr("experiments.cli.reproduce.run_experiment", fake_run)
    for flags, expected in (([], root / "ref"), (["--retrain"], None)):
        cli(root, "reproduce", str(root / "toy.toml"), "--split-col", "split", "--output-dir", str(root / "r"),
            "--results-dir", str(root / "rr"), "--reference-dir", str(root / "ref"), *flags)
        assert seen["reference"] == expected


def test_export_refuses_a_results_file_whose_runs_are_missing(shipped, tmp_path):
    root, _ = shipped
    result = json.loads((root / "results" / "toy.json").read_text())
    result["cells"][0]["runs"][1] = "/gone/toy/toy/cnn/seed-7"
    (tmp_path / "toy.json").write_text(json.dumps(result))
    refused = CliRunner().invoke(main, ["--data-dir", str(root), "runs", "export", "toy", "--results-dir",
                                        str(tmp_path), "--to", str(tmp_path / "ref"), "--split-col", "split"])
    assert refused.exit_code == 1 and "1 of 2 runs of 'toy'" in refused.output
    assert len(refused.output.strip().splitlines()) == 1 and not (tmp_path / "ref" / "toy.json").exists()


def test_benchmark_ranks_a_new_model_against_the_reference_runs_on_a_fresh_store(shipped, monkeypatch):
    """The benchmark's classic rows and paired tests read the reference runs; only the new model is scored."""
    root, _ = shipped
    monkeypatch.setattr("experiments.runs.one.training._train", lambda *a, **k: pytest.fail("a classic run was trained"))
    ranked = cli(root, "benchmark", "tfidf-lr", "--experiments", str(root / "toy.toml"), "--seeds", "2",
                 "--epochs", "2", "--batch-size", "32", "--set", "embeddings=random", "--split-col", "split",
                 "--output-dir", str(root / "bench"), "--results-dir", str(root / "bench-results"),
                 "--reference-dir", str(root / "ref"))
    assert ranked.exit_code == 0, ranked.output
    result = json.loads((root / "bench-results" / "benchmark-tfidf-lr.json").read_text())
    assert "not found" not in ranked.output.lower() and "cnn" in ranked.output
    assert "2 classic runs came from the reference set" in ranked.output
    assert (root / "bench" / REFERENCE_CACHE / "toy" / "toy" / "cnn" / "seed-1" / PREDICTIONS).is_file()
    assert result["cells"]


def test_the_retrain_command_is_the_one_that_made_the_results_without_where_it_wrote():
    from experiments.studies.reference_set import retrain_command

    made = ("isarcasm -q --data-dir /data reproduce table7 --seeds 10 --references --jobs 2 --output-dir /sweep "
            "--results-dir=/res --corpora isarcasm --protocol authors-code")
    assert retrain_command(made, "table7-authors-code") == "isarcasm reproduce table7 --seeds 10 --protocol authors-code"
    assert retrain_command("pytest -x", "toy") == "isarcasm reproduce toy"


def test_verify_retrains_a_sample_and_finds_it_the_same_to_the_last_digit(shipped):
    """Same code, same machine: a reference run retrained from its own configuration repeats exactly."""
    root, _ = shipped
    checked = cli(root, "runs", "verify", "toy", "--sample", "1", "--seed", "3", "--output-dir", str(root / "check"),
                  "--reference-dir", str(root / "ref"), "--split-col", "split")
    assert checked.exit_code == 0, checked.output
    assert "the same to the last digit" in checked.output and "1 of 1 retrained runs repeat" in checked.output
    assert "trained on a CPU like this one" in checked.output
    assert len(list((root / "check" / ".reference-check" / "toy" / "toy" / "cnn").glob("seed-*"))) == 1


def test_verify_says_first_when_the_shipped_runs_come_from_another_cpu(shipped, monkeypatch):
    """Shipped runs trained on another CPU need not repeat to the last digit: verify says so before its verdicts."""
    from experiments.runs.one import provenance

    root, _ = shipped
    here = provenance.machine()
    monkeypatch.setattr(provenance, "machine", lambda: {**here, "vector_isa": [*here.get("vector_isa", []), "avx_new"]})
    checked = cli(root, "runs", "verify", "toy", "--sample", "1", "--seed", "3", "--output-dir", str(root / "check2"),
                  "--reference-dir", str(root / "ref"), "--split-col", "split")
    assert checked.exit_code == 0, checked.output
    assert "not trained on a CPU known to be like this one (avx_new only here)" in checked.output


def test_a_run_that_differs_is_said_to_differ(shipped):
    from experiments.runs.one.reference import repeats

    root, _ = shipped
    compared = repeats(root / "runs" / "toy" / "toy" / "cnn" / "seed-0", root / "runs" / "toy" / "toy" / "cnn" / "seed-1")
    assert not compared["identical"] and compared["largest_difference"] > 0 and len(compared["f1"]) == 2


def results_of(root: Path, folder: Path, seeds: list[int], experiment: str = "toy", store: str | None = None) -> None:
    """The fixture's results file, naming the runs of ``seeds`` only (in ``store``, as made on another machine,
    when given), as ``folder/<experiment>.json``."""
    result = json.loads((root / "results" / "toy.json").read_text())
    result["experiment"] = experiment
    result["cells"][0]["runs"] = [f"{store}/{Path(run).relative_to(root / 'runs')}" if store else run
                                  for run in result["cells"][0]["runs"] if int(run.rsplit("-", 1)[1]) in seeds]
    folder.mkdir(exist_ok=True)
    (folder / f"{experiment}.json").write_text(json.dumps(result))


def export_to(root: Path, results: Path, to: Path, *args: str):
    return CliRunner().invoke(main, ["--data-dir", str(root), "runs", "export", *args, "--results-dir", str(results),
                                     "--to", str(to), "--split-col", "split"])


def test_an_export_under_another_name_leaves_out_the_runs_the_set_ships_and_records_its_results(shipped, tmp_path):
    """Seeds 5-9 joining a set that ships seeds 0-4: seed 0 is shipped by one file, the results file of both
    seeds by another, which records it; a fresh store reads both seeds of the results file made elsewhere."""
    root, _ = shipped
    results_of(root, tmp_path / "first", [0], "toy-first")
    assert export_to(root, tmp_path / "first", tmp_path / "set", "toy-first").exit_code == 0
    results_of(root, tmp_path / "elsewhere", [0, 1], store="/gone/store")  # read from the store --output-dir
    more = export_to(root, tmp_path / "elsewhere", tmp_path / "set", "toy", "--name", "toy-more", "--output-dir",
                     str(root / "runs"))
    assert more.exit_code == 0, more.output
    assert "toy: 1 runs ->" in more.output and "1 already shipped in toy-first.json, left out" in more.output
    index = json.loads((tmp_path / "set" / "toy-more.json").read_text())
    assert [run["key"] for run in index["runs"]] == ["toy/toy/cnn/seed-1"] and index["arrays"] == "toy-more.npz"
    assert index["elsewhere"] == {"toy/toy/cnn/seed-0": "toy-first.json"} and index["experiment"] == "toy"
    assert index["results"]["name"] == "toy"
    assert index["results"]["sha256"] == content_sha256(tmp_path / "elsewhere" / "toy.json")
    assert sorted(ReferenceSet(tmp_path / "set").keys("toy")) == ["toy/toy/cnn/seed-1"]
    shown = cli(root, "report", "toy", "--results-dir", str(tmp_path / "elsewhere"), "--selection", "last",
                "--output-dir", str(tmp_path / "fresh"), "--reference-dir", str(tmp_path / "set"),
                "--split-col", "split")
    assert shown.exit_code == 0, shown.output
    assert "2 of 2 runs from the reference set" in shown.output
    again = export_to(root, root / "results", tmp_path / "set", "toy", "--name", "toy-more")  # the same runs again
    assert again.exit_code == 0, again.output


def test_an_export_that_would_contradict_or_drop_shipped_runs_is_refused_in_one_line(shipped, tmp_path):
    root, _ = shipped
    shutil.copytree(root / "ref", tmp_path / "other")  # the set ships seed 0 with another configuration
    index = json.loads((tmp_path / "other" / "toy.json").read_text())
    index["runs"][0]["config"]["config_hash"] = "0" * 64
    (tmp_path / "other" / "toy.json").write_text(json.dumps(index))
    contradicting = export_to(root, root / "results", tmp_path / "other", "toy", "--name", "toy-more")
    assert contradicting.exit_code == 1 and "with another configuration" in contradicting.output
    shutil.copytree(root / "ref", tmp_path / "fewer")  # toy.json rewritten from a results file of seed 0 only
    results_of(root, tmp_path / "seed-0", [0])
    dropping = export_to(root, tmp_path / "seed-0", tmp_path / "fewer", "toy")
    assert dropping.exit_code == 1 and "would drop them" in dropping.output and "toy/toy/cnn/seed-1" in dropping.output
    nothing = export_to(root, root / "results", tmp_path / "fewer", "toy", "--name", "toy-again")
    assert nothing.exit_code == 1 and "nothing to export" in nothing.output
    for refused in (contradicting, dropping, nothing):
        assert len(refused.output.strip().splitlines()) == 1
    assert not (tmp_path / "other" / "toy-more.json").exists() and not (tmp_path / "fewer" / "toy-again.json").exists()
    assert json.loads((tmp_path / "fewer" / "toy.json").read_text()) == json.loads((root / "ref" / "toy.json").read_text())


def test_results_are_found_in_the_results_folder_then_the_committed_results_never_the_sets_record(shipped, tmp_path):
    from experiments.results.files import ELEMENTS, ResultsFiles

    root, _ = shipped
    results_of(root, tmp_path / "here", [0, 1])
    here = json.loads((tmp_path / "here" / "toy.json").read_text())
    (tmp_path / "here" / "toy.json").write_text(json.dumps({**here, "title": "made here"}))
    results_of(root, tmp_path / "committed", [0])
    results_of(root, tmp_path / "committed" / ELEMENTS, [0, 1], "toy-element")
    files = ResultsFiles(tmp_path / "here", tmp_path / "committed")
    assert files.find("toy").title == "made here" and not files.found
    files = ResultsFiles(tmp_path / "empty", tmp_path / "committed")
    assert len(files.find("toy").cells[0]["runs"]) == 1  # the committed file, not the one the set records (2 runs)
    assert files.find("toy-element").experiment == "toy-element"
    assert list(files.found) == ["toy", "toy-element"]
    assert files.found["toy"] == str(tmp_path / "committed" / "toy.json")
    assert ResultsFiles(tmp_path / "empty", tmp_path / "nothing").find("toy") is None  # the set's record is no source
    missing = ResultsFiles(tmp_path / "empty", tmp_path / "committed").missing("toy-none")
    assert "\n" not in missing and str(tmp_path / "empty") in missing and str(tmp_path / "committed") in missing
