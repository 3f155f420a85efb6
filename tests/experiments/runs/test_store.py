"""The run store: atomic writes, resume detection, no silent overwrite."""
import json
import os
import stat

import pytest

from experiments.runs.one.provenance import recorded_config_hash
from experiments.runs.one.store import RunWriter, is_finished, recorded_hash, run_dir, write_json
from experiments.results.files import write_result_files
from experiments.results.schema import Result
from preprocessing.errors import IsarcasmError


#: Four configurations by their hashes: a finished run's config.json hashes to the hash its run records.
CONFIGS = {recorded_config_hash(config): config for config in ({"corpus": corpus} for corpus in "xyzw")}
ABC, DEF, HASH, GHI = CONFIGS


def finish(writer: RunWriter, config_hash: str) -> None:
    """The files that make a run finished: config.json, model.keras, and metrics.json with the hash."""
    write_json(writer.path("config.json"), {**CONFIGS[config_hash], "config_hash": config_hash})
    writer.path("model.keras").write_bytes(b"model")
    write_json(writer.path("metrics.json"), {"config_hash": config_hash})


def test_run_dir_layout(tmp_path):
    assert run_dir(tmp_path, "table7", "isarcasm", "lstm", 3) == tmp_path / "table7/isarcasm/lstm/seed-3"
    assert run_dir(tmp_path, "x", "/some/where/my.csv", "cnn", 0) == tmp_path / "x/my/cnn/seed-0"


def test_write_json_is_atomic_and_leaves_no_temp_files(tmp_path):
    write_json(tmp_path / "a/m.json", {"f1": 0.5})
    assert json.loads((tmp_path / "a/m.json").read_text()) == {"f1": 0.5}
    assert [p.name for p in (tmp_path / "a").iterdir()] == ["m.json"]


def test_writer_commits_only_at_the_end_and_resume_sees_the_hash(tmp_path):
    target = tmp_path / "run"
    writer = RunWriter(target, ABC)
    finish(writer, ABC)
    assert not target.exists()  # nothing visible before commit
    writer.commit()
    assert is_finished(target, ABC) and not is_finished(target, "other")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_finished_run_is_never_overwritten_silently(tmp_path):
    target = tmp_path / "run"
    writer = RunWriter(target, ABC)
    finish(writer, ABC)
    writer.commit()
    with pytest.raises(IsarcasmError, match="--force"):
        RunWriter(target, DEF)
    forced = RunWriter(target, DEF, force=True)
    finish(forced, DEF)
    forced.commit()
    assert is_finished(target, DEF)


def test_aborted_run_leaves_nothing(tmp_path):
    writer = RunWriter(tmp_path / "run", ABC)
    write_json(writer.path("config.json"), {})
    writer.abort()
    assert list(tmp_path.iterdir()) == []


def test_results_of_an_earlier_invocation_are_kept_not_replaced(tmp_path, capsys):
    first = write_result_files(Result("table", "t", [], {"wall_seconds": 3600}), tmp_path, "a,b\n", "# first\n")
    assert [p.name for p in first] == ["t.json", "t.csv", "t.md"]
    write_result_files(Result("table", "t", [], {"wall_seconds": 5}), tmp_path, "a,b\n", "# second\n")
    kept = sorted((tmp_path / "previous").iterdir())
    assert [p.suffix for p in kept] == [".csv", ".json", ".md"] and all(p.stem.startswith("t-") for p in kept)
    assert json.loads(next(p for p in kept if p.suffix == ".json").read_text())["wall_seconds"] == 3600
    assert (tmp_path / "t.md").read_text() == "# second\n"
    assert "earlier t results moved to" in capsys.readouterr().err


def test_under_q_the_moved_results_line_is_not_printed(tmp_path, capsys):
    import logging

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # what -q sets: results and errors only
    try:
        for _ in range(2):
            write_result_files(Result("table", "t", []), tmp_path, None, "# t\n")
    finally:
        root.setLevel(level)
    assert (tmp_path / "previous").is_dir() and capsys.readouterr().err == ""


def test_results_and_runs_get_the_usual_file_modes_not_tempfiles_owner_only_ones(tmp_path):
    old = os.umask(0o022)
    try:
        write_json(tmp_path / "results" / "x.json", {"a": 1})
        writer = RunWriter(tmp_path / "runs" / "seed-0", HASH)
        finish(writer, HASH)
        run = writer.commit()
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "results" / "x.json").stat().st_mode) == 0o644
    assert stat.S_IMODE(run.stat().st_mode) == 0o755
    assert stat.S_IMODE((run / "metrics.json").stat().st_mode) == 0o644


def test_a_run_missing_its_model_or_config_or_with_a_truncated_metrics_file_is_not_finished(tmp_path):
    from experiments.runs.one.store import is_damaged

    target = tmp_path / "run"
    writer = RunWriter(target, ABC)
    finish(writer, ABC)
    writer.commit()
    assert is_finished(target, ABC) and not is_damaged(target)
    for damage in (lambda: (target / "model.keras").unlink(), lambda: (target / "config.json").write_text("[1"),
                   lambda: (target / "metrics.json").write_text('{"config_hash": "ab')):
        damage()
        assert not is_finished(target, ABC) and is_damaged(target)
        RunWriter(target, ABC).abort()  # a damaged run may be replaced without --force
        writer = RunWriter(target, ABC)
        finish(writer, ABC)
        writer.commit()


def test_the_claim_on_a_run_is_exclusive_and_removes_a_killed_process_leftovers(tmp_path):
    import multiprocessing
    import time

    from experiments.runs.one.store import run_claim

    target = tmp_path / "exp" / "seed-0"
    (tmp_path / "exp" / ".seed-0.staging-dead").mkdir(parents=True)
    ctx = multiprocessing.get_context("spawn")
    with run_claim(target):
        assert not (tmp_path / "exp" / ".seed-0.staging-dead").exists()
        other = ctx.Process(target=_claim_and_touch, args=(str(target), str(tmp_path / "other-got-it")))
        other.start()
        time.sleep(1.0)
        assert not (tmp_path / "other-got-it").exists()  # it waits while this process holds the claim
    other.join(30)
    assert other.exitcode == 0 and (tmp_path / "other-got-it").exists()


def _claim_and_touch(target: str, flag: str) -> None:
    from pathlib import Path

    from experiments.runs.one.store import run_claim

    with run_claim(Path(target)):
        Path(flag).touch()


def test_predictions_name_the_sarcastic_probability_as_everywhere_and_old_files_still_read(tmp_path):
    import numpy as np

    from experiments.runs.one.outputs import predictions_tsv, read_predictions

    text = predictions_tsv(["a", "b"], np.eye(2), np.array([[0.9, 0.1], [0.2, 0.8]]), False)
    assert text.splitlines()[0] == "id\tgold\tp_not_sarcastic\tp_sarcastic"
    assert predictions_tsv(["a"], np.eye(3)[:1], np.array([[0.5, 0.3, 0.2]]), False).startswith("id\tgold\tp_0\tp_1\tp_2\n")
    new, old = tmp_path / "new.tsv", tmp_path / "old.tsv"
    new.write_text(text)
    old.write_text(text.replace("p_not_sarcastic\tp_sarcastic", "prob_0\tprob_1"))  # written before the rename
    assert np.array_equal(read_predictions(new).probabilities, read_predictions(old).probabilities)


def test_one_lookup_tells_a_finished_a_failed_and_a_missing_run_apart(tmp_path):
    from experiments.runs.one.spec import RunPlace
    from experiments.runs.one.store import RunResult, RunState, RunStore, run_state

    FINISHED, FAILED, DAMAGED, MISSING = RunState.FINISHED, RunState.FAILED, RunState.DAMAGED, RunState.MISSING

    own, other, failed, damaged = (tmp_path / name for name in ("own", "other", "failed", "damaged"))
    writer = RunWriter(other, ABC)
    finish(writer, ABC)
    writer.commit()
    write_json(failed / "failed.json", {"config_hash": ABC, "failed": "non-finite loss"})
    write_json(damaged / "metrics.json", {"config_hash": ABC})  # no model, no config
    assert [run_state(p, ABC) for p in (own, other, failed, damaged)] == [MISSING, FINISHED, FAILED, DAMAGED]
    assert run_state(other, "other") == MISSING and run_state(failed) == FAILED
    # a finished run anywhere comes before a failed one (an outcome, not "missing"), and either before none
    lookup = RunStore.lookup
    assert lookup(RunPlace(failed, other), ABC) == RunResult(other, {"config_hash": ABC}, skipped=True)
    found = lookup(RunPlace(damaged, failed), ABC)
    assert found.directory == failed and found.failure == "non-finite loss" and found.skipped
    assert lookup(RunPlace(own, other), "other") is None and lookup(RunPlace(own), ABC) is None
    # what a study reuses: the folder of a finished run only (a failed one is trained again, to report its failure)
    assert RunStore.finished(RunPlace(failed, other), ABC) == other
    assert RunStore.finished(RunPlace(damaged, failed), ABC) is None
    assert RunStore.finished(RunPlace(own, other), "other") is None


def finished_metrics(writer: RunWriter) -> dict:
    """A ``write`` for :meth:`RunStore.produce`: a finished run of the writer's configuration."""
    finish(writer, writer.config_hash)
    return {"config_hash": writer.config_hash}


def test_produce_writes_a_run_once_then_finds_it_and_force_writes_it_again(tmp_path):
    from experiments.runs.one.spec import RunPlace
    from experiments.runs.one.store import RunStore

    place, calls = RunPlace(tmp_path / "exp" / "seed-0"), []

    def write(writer):
        calls.append(writer.staging)
        return finished_metrics(writer)

    first = RunStore.produce(place, ABC, write)
    assert first.directory == place.directory and not first.skipped and is_finished(place.directory, ABC)
    again = RunStore.produce(place, ABC, write)
    assert again.skipped and again.metrics == first.metrics and len(calls) == 1
    assert not RunStore.produce(place, ABC, write, force=True).skipped and len(calls) == 2
    assert sorted(p.name for p in (tmp_path / "exp").iterdir()) == [".seed-0.lock", "seed-0"]  # no staging folder left
    with pytest.raises(IsarcasmError, match="--force"):  # another configuration's run is never replaced silently
        RunStore.produce(place, DEF, write)


def test_a_run_is_placed_by_its_hash_never_by_its_folder(tmp_path):
    """The store finds a run of the same configuration hash in any experiment's folder (a finished one before a
    failed one); a run of other settings in the run's own folder is neither reused nor overwritten silently."""
    from experiments.runs.one.spec import RunPlace, RunSpec
    from experiments.runs.one.store import FAILED, RunStore

    store = RunStore(tmp_path)
    spec = RunSpec("x", "cnn", 0)
    quick, full = (RunStore.produce(store.place(name, spec, config_hash), config_hash, finished_metrics).directory
                   for name, config_hash in (("table7", DEF), ("cross", ABC)))
    write_json(run_dir(tmp_path, "broken", "x", "cnn", 1) / FAILED, {"config_hash": HASH, "failed": "non-finite loss"})
    RunStore.produce(RunPlace(tmp_path / ".reference" / "x" / "cnn" / "seed-0"), GHI, finished_metrics)  # hidden
    place = store.place("table7", spec, ABC)
    assert place.directory == quick and place.found == full
    reused = RunStore.produce(place, ABC, lambda writer: pytest.fail("a run of the same hash was trained"))
    assert reused.directory == full and reused.skipped and recorded_hash(quick) == DEF  # the other run is untouched
    assert store.place("table7", spec, DEF).found is None  # its own folder holds it
    assert store.place("new", RunSpec("x", "cnn", 1), HASH).found == run_dir(tmp_path, "broken", "x", "cnn", 1)
    written = RunStore.produce(store.place("later", RunSpec("x", "cnn", 1), HASH), HASH, finished_metrics, force=True)
    assert written.directory == run_dir(tmp_path, "later", "x", "cnn", 1) and not written.skipped
    assert store.place("new", RunSpec("x", "cnn", 1), HASH).found == written.directory  # finished before failed,
    # found by the same store: a run written after the store was first asked (another experiment of one invocation)
    missing = store.place("table7", spec, GHI)
    assert missing.found is None  # the materialised reference runs are not the store's (Settings.place asks the set)
    with pytest.raises(IsarcasmError, match=r"table7/x/cnn/seed-0 already holds a finished run of other settings.*"
                                            r"--output-dir, or --name.*--force"):
        RunStore.produce(missing, GHI, finished_metrics)
    assert recorded_hash(quick) == DEF


def test_produce_aborts_on_an_error_and_names_the_run_not_its_staging_folder(tmp_path):
    from experiments.runs.one.spec import RunPlace
    from experiments.runs.one.store import RunStore

    place = RunPlace(tmp_path / "exp" / "seed-0")

    def full_disk(writer):
        write_json(writer.path("config.json"), {})
        raise OSError(28, "No space left on device", str(writer.path("model.keras")))

    with pytest.raises(OSError) as raised:
        RunStore.produce(place, ABC, full_disk)
    assert raised.value.filename == str(place.directory / "model.keras")
    assert [p.name for p in (tmp_path / "exp").iterdir()] == [".seed-0.lock"]  # nothing of the run is left


def test_produce_looks_again_once_it_holds_the_claim(tmp_path):
    """Another process finishes the run while this one waits for its claim: this one returns it, unwritten."""
    import multiprocessing
    import time

    from experiments.runs.one.spec import RunPlace
    from experiments.runs.one.store import RunStore

    place, started = RunPlace(tmp_path / "exp" / "seed-0"), tmp_path / "started"
    other = multiprocessing.get_context("spawn").Process(target=_claim_and_finish,
                                                         args=(str(place.directory), str(started)))
    other.start()
    while not started.exists() and other.is_alive():
        time.sleep(0.05)
    assert not is_finished(place.directory)  # the first look finds nothing: the other process holds the claim

    def never(writer):
        raise AssertionError("written twice")

    found = RunStore.produce(place, ABC, never)
    other.join(30)
    assert found.skipped and found.directory == place.directory and other.exitcode == 0


def _claim_and_finish(target: str, started: str) -> None:
    import time
    from pathlib import Path

    from experiments.runs.one.store import run_claim, write_run

    with run_claim(Path(target)):
        Path(started).touch()
        time.sleep(1.0)
        write_run(Path(target), ABC, finished_metrics)


def test_a_run_folder_holding_a_link_out_of_it_is_refused_wherever_runs_are_gathered(tmp_path):
    """``scored_runs`` (a store's finished runs, for a comparison of seeds) reads each run's config.json: a
    config.json that is a link to another file is refused, naming the link, as ``is_finished`` refuses it."""
    from experiments.runs.one.store import scored_runs

    run = tmp_path / "store" / "toy" / "cnn" / "seed-0"
    run.mkdir(parents=True)
    write_json(run / "metrics.json", {"config_hash": "abc"})
    write_json(tmp_path / "other.json", {"corpus": "elsewhere"})
    (run / "config.json").symlink_to(tmp_path / "other.json")
    for read in (lambda: scored_runs(tmp_path / "store"), lambda: is_finished(run)):
        with pytest.raises(IsarcasmError, match=r"seed-0/config\.json: a link to .*other\.json, outside the run"):
            read()
