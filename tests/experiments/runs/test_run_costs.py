"""A run's training time is its own: one-time work (reading word vectors, building their cache,
tokenising) is timed apart as ``setup_seconds``."""
import time

from toy_corpus import train_toy, write_corpus

from experiments.runs.one.footprint import RunMeter
from experiments.runs.one.protocol import TrainConfig
from preprocessing.corpora import load_corpus


def test_work_timed_apart_is_not_training():
    meter = RunMeter()
    assert meter.apart(lambda: time.sleep(0.3) or "done") == "done"
    assert meter.setup_seconds() >= 0.3 and meter.seconds() < 0.2


def test_the_first_run_on_a_vectors_file_does_not_count_the_cache_build_as_training(tmp_path, monkeypatch):
    from embeddings import vectors

    monkeypatch.setenv("ISARCASM_CACHE", str(tmp_path / "cache"))
    corpus = write_corpus(tmp_path / "toy.csv")
    words = "movie weather monday traffic coffee exam train meeting yeah right is fine".split()
    glove = tmp_path / "tiny-glove.txt"
    glove.write_text("".join(f"{word} {' '.join(str((i + j) % 5 / 5) for j in range(8))}\n"
                             for i, word in enumerate(words)))
    parse = vectors.parse_vectors

    def slow_parse(source, progress=True):  # a GloVe read of minutes, in seconds
        time.sleep(3)
        return parse(source, progress)

    monkeypatch.setattr(vectors, "parse_vectors", slow_parse)
    started = time.time()
    run = train_toy(load_corpus(str(corpus), tmp_path, split_col="split"), "cnn", tmp_path / "run", tmp_path,
                    TrainConfig(epochs=1, batch_size=32, embeddings=str(glove)))
    wall = time.time() - started
    assert run.metrics["setup_seconds"] >= 3
    assert run.metrics["train_seconds"] <= wall - 3 + 0.2


def test_a_sweep_is_recorded_by_every_run_it_trains(monkeypatch):
    from experiments.runs.one import provenance

    monkeypatch.delenv(provenance.SWEEP_ENV, raising=False)
    provenance.start_sweep(3)
    swept = provenance.record()["sweep"]
    assert swept["jobs"] == 3 and swept["started"].endswith("Z") and "load" in swept
    assert provenance.sweep_text(swept).endswith(f"--jobs 3, load {swept['load']:.1f}")
    assert provenance.sweep_text(None) == "not recorded"


def test_a_benchmark_table_with_costs_from_two_sweeps_says_so(tmp_path):
    import json
    from types import SimpleNamespace

    from experiments.runs.one.provenance import recorded_config_hash
    from experiments.studies.benchmark import cost_sweeps

    runs = []
    for name, started, costs in (("a", "2026-11-20T10:00:00Z", {"train_seconds": 5.0}),
                                 ("b", "2026-11-21T09:30:00Z", {"train_seconds": 400.0}),
                                 ("c", "2026-11-22T08:00:00Z", {"entrant": "predictions", "train_seconds": 0.0})):
        run = tmp_path / name
        run.mkdir()
        (run / "metrics.json").write_text(json.dumps(costs))
        (run / "config.json").write_text(json.dumps({"sweep": {"started": started, "jobs": 2, "load": 3.14},
                                                     "config_hash": recorded_config_hash({})}))
        runs.append(SimpleNamespace(run=run))
    # outside predictions (c) record no cost, so their sweep does not count
    assert cost_sweeps(runs) == ["2026-11-20 10:00 UTC, --jobs 2, load 3.1", "2026-11-21 09:30 UTC, --jobs 2, load 3.1"]
    assert cost_sweeps(runs[:1] * 2) == ["2026-11-20 10:00 UTC, --jobs 2, load 3.1"]
