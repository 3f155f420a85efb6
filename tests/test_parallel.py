"""``reproduce --jobs N``: runs trained in worker processes give the same numbers and files as one at a time."""
import json

from click.testing import CliRunner
from toy_corpus import write_corpus

from experiments.cli import main


def reproduce(tmp_path, experiment, folder: str, jobs: int):
    args = ["reproduce", str(experiment), "--quick", "--seeds", "2", "--embeddings", "random", "--split-col", "split",
            "--output-dir", str(tmp_path / folder / "runs"), "--results-dir", str(tmp_path / folder / "results"),
            "--jobs", str(jobs)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return result, json.loads((tmp_path / folder / "results/toy-quick-embeddings-random.json").read_text())


def test_two_jobs_give_the_numbers_of_one(tmp_path):
    corpus = write_corpus(tmp_path / "toy.csv")
    experiment = tmp_path / "toy.toml"
    experiment.write_text("name = 'toy'\n" + "".join(f"[[cells]]\ncorpus = '{corpus}'\nmodel = '{model}'\n"
                                                     for model in ("lstm", "cnn")))
    _, alone = reproduce(tmp_path, experiment, "one", jobs=1)
    output, together = reproduce(tmp_path, experiment, "two", jobs=2)
    assert [c["metrics"] for c in together["cells"]] == [c["metrics"] for c in alone["cells"]]
    assert [c["model"] for c in together["cells"]] == ["lstm", "cnn"]  # the experiment's order, not finishing order
    assert output.output.count("F1(sarcastic)") == 2  # one summary line per cell
    again, _ = reproduce(tmp_path, experiment, "two", jobs=2)
    assert again.output.count("2 reused") == 2
