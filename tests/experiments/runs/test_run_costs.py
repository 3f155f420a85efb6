"""A run's training time is its own: one-time work (reading word vectors, building their cache,
tokenising) is timed apart as ``setup_seconds``."""
import time

from toy_corpus import train_toy, write_corpus

from experiments.runs.footprint import RunMeter
from experiments.runs.protocol import TrainConfig
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
