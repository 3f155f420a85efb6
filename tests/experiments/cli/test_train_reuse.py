"""``isarcasm train`` places its run in the store as the studies do, so it reuses a finished run of its
configuration hash from another experiment's folder."""
from click.testing import CliRunner
from toy_corpus import write_corpus

from experiments.cli import main


def test_train_under_another_experiment_reuses_the_finished_run_of_the_same_configuration(tmp_path):
    corpus, runs = write_corpus(tmp_path / "toy.csv"), tmp_path / "runs"

    def train(experiment: str, *more: str):
        result = CliRunner().invoke(main, ["train", "--corpus", str(corpus), "--split-col", "split", "--model", "cnn",
                                           "--epochs", "1", "--set", "embeddings=random", "--output-dir", str(runs),
                                           "--experiment", experiment, *more])
        assert result.exit_code == 0, result.output
        return result.output

    first = train("a")
    own = runs / "a-epochs-1-embeddings-random/toy/cnn/seed-0"
    assert f"run: {own} (trained in" in first
    assert f"run: {own} (already finished, reused" in train("b")
    assert not (runs / "b-epochs-1-embeddings-random").exists()  # nothing trained or written for b
    assert "(trained in" in train("b", "--batch-size", "16")  # another configuration is trained
