"""Named word vectors (``--embeddings glove-6b-full``, ``glove-twitter-100``): each is fetched from (a stand-in of)
its upstream archive into its catalog file, trains end to end as a named variant whose config names the vectors
and their checksum, and a missing file is one line with the command that fetches it.  The default's runs keep the
configuration hash of the shipped reference runs."""
import gzip
import hashlib
import json
from dataclasses import replace

import pytest
from click.testing import CliRunner
from locations import ROOT
from test_cli_data import assert_one_line_error
from toy_corpus import write_corpus
from upstream_hosts import glove_zip, place, serving

from embeddings.vectors import DEFAULT, NAMED_VECTORS, named_vectors_path
from experiments.cli import main
from experiments.runs.one.protocol import TrainConfig, experiment_name
from experiments.runs.one.training import data_files
from preprocessing.fileio import content_sha256
from preprocessing.fetch import UPSTREAM_ENV
from preprocessing.specs import RESOURCES, Upstream

#: The catalog files of the named vectors.
CATALOG_FILES = {"glove-6b-full": "glove/glove.6B.100d.txt.gz",
                 "glove-twitter-100": "glove/glove.twitter.27B.100d.txt.gz"}
#: The toy corpus' words each tiny vectors file holds: the default's one, the full file's all twelve.
TOY_WORDS = "movie weather monday traffic coffee exam train meeting yeah right is fine".split()
WORDS = {"glove": TOY_WORDS[:1], "glove-6b-full": TOY_WORDS, "glove-twitter-100": TOY_WORDS[:6]}
#: Where ``train`` stores the default's runs of one epoch (the experiment file's protocol has one epoch already).
TRAIN = "train-epochs-1-batch-size-32"
EXPERIMENT = "name = 'toy'\ntitle = 'toy'\nsource = 'tests'\n[train]\nepochs = 1\nbatch_size = 32\n" \
             "[[cells]]\ncorpus = '{corpus}'\nmodel = 'cnn'\n"


def vectors_text(words, dim=8) -> bytes:
    """A tiny GloVe text: one word and ``dim`` numbers a line, no header."""
    return "".join(f"{word} {' '.join(f'{(i + j) % 7 / 10 - 0.3:.1f}' for j in range(dim))}\n"
                   for i, word in enumerate(words)).encode()


def write_vectors(path, words) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(vectors_text(words), mtime=0))


def fetch_as_from_the_internet(data, root, patch) -> None:
    """``isarcasm data fetch NAME`` of every optional named vectors, from a local server standing in for GloVe's
    host: each archive is a small one built here, and the catalog's published checksums are set to its own."""
    hosts = root / "hosts"
    with serving(hosts) as server:
        patch.setenv(UPSTREAM_ENV, server.base)
        for name in CATALOG_FILES:
            spec = RESOURCES._items[name]
            file = spec.files[0]
            text = vectors_text(WORDS[name])
            archive = glove_zip([text], file.derivation.make.keywords["member"])
            place(hosts, file.derivation.inputs[0].url, archive)
            upstream = Upstream(file.derivation.inputs[0].url, f"sha256:{hashlib.sha256(archive).hexdigest()}")
            pinned = hashlib.sha256(text).hexdigest() if file.sha256 else None
            file = replace(file, sha256=pinned, derivation=replace(file.derivation, inputs=(upstream,)))
            patch.setitem(RESOURCES._items, name, replace(spec, files=(file,)))
            result = cli(data, "data", "fetch", name)
            assert result.exit_code == 0, result.output
            assert f"made       {CATALOG_FILES[name]}" in result.output


def cli(data, *args):
    return CliRunner().invoke(main, ["--data-dir", str(data), *args])


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A data directory with a tiny file for each named vectors; ``train`` of the default and of glove-6b-full,
    and ``reproduce`` of a toy experiment with glove-twitter-100 (one epoch each)."""
    root = tmp_path_factory.mktemp("named")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ISARCASM_CACHE", str(root / "cache"))
        data = root / "data"
        write_vectors(named_vectors_path(DEFAULT, data), WORDS[DEFAULT])
        fetch_as_from_the_internet(data, root, patch)
        corpus = write_corpus(root / "toy.csv")
        train = ["train", "--corpus", str(corpus), "--split-col", "split", "--model", "cnn", "--epochs", "1",
                 "--batch-size", "32", "--output-dir", str(root / "runs")]
        for embeddings in (DEFAULT, "glove-6b-full"):
            result = cli(data, *train, "--set", f"embeddings={embeddings}")
            assert result.exit_code == 0, result.output
        (root / "toy.toml").write_text(EXPERIMENT.format(corpus=corpus))
        result = cli(data, "reproduce", str(root / "toy.toml"), "--seeds", "1", "--split-col", "split",
                     "--set", "embeddings=glove-twitter-100", "--output-dir", str(root / "runs"),
                     "--results-dir", str(root / "results"), "--reference-dir", str(root / "none"))
        assert result.exit_code == 0, result.output
        yield root, data


def run_configs(root) -> dict[str, dict]:
    """Each stored run's config.json, by the name of the experiment folder it lives under."""
    return {path.relative_to(root / "runs").parts[0]: json.loads(path.read_text())
            for path in (root / "runs").rglob("config.json")}


def test_named_vectors_train_as_named_variants_whose_config_names_the_vectors_and_their_checksum(trained):
    root, data = trained
    configs = run_configs(root)
    assert sorted(configs) == ["toy-embeddings-glove-twitter-100", TRAIN, f"{TRAIN}-embeddings-glove-6b-full"]
    for folder, name in ((TRAIN, DEFAULT), (f"{TRAIN}-embeddings-glove-6b-full", "glove-6b-full"),
                         ("toy-embeddings-glove-twitter-100", "glove-twitter-100")):
        config, path = configs[folder], named_vectors_path(name, data)
        assert config["train"]["embeddings"] == name
        assert config["data_sha256"][path.name] == content_sha256(path)
    assert len({config["config_hash"] for config in configs.values()}) == 3


def test_each_run_starts_from_its_own_vectors_file(trained):
    """The coverage each run records counts the words of its own tiny file (1, 12 and 6 of the 12)."""
    root, _ = trained
    coverage = {path.relative_to(root / "runs").parts[0]: json.loads(path.read_text())["embedding_coverage"]
                for path in (root / "runs").rglob("metrics.json")}
    assert coverage[TRAIN].startswith("vectors for 1 of 12 vocabulary words")
    assert coverage[f"{TRAIN}-embeddings-glove-6b-full"].startswith("vectors for 12 of 12 vocabulary words")
    assert coverage["toy-embeddings-glove-twitter-100"].startswith("vectors for 6 of 12 vocabulary words")


def test_reproduce_with_named_vectors_writes_a_separately_named_results_set(trained):
    root, _ = trained
    assert sorted(path.name for path in (root / "results").glob("*.json")) == ["toy-embeddings-glove-twitter-100.json"]
    results = json.loads((root / "results" / "toy-embeddings-glove-twitter-100.json").read_text())
    assert results["train"]["embeddings"] == "glove-twitter-100"


@pytest.mark.parametrize("name", list(CATALOG_FILES))
def test_a_missing_named_vectors_file_is_one_line_with_the_command_that_fetches_it(tmp_path, name):
    corpus = write_corpus(tmp_path / "toy.csv")
    result = cli(tmp_path, "train", "--corpus", str(corpus), "--split-col", "split", "--model", "cnn",
                 "--set", f"embeddings={name}", "--output-dir", str(tmp_path / "runs"))
    assert_one_line_error(result, f"{tmp_path / CATALOG_FILES[name]}: word vectors file not found",
                          f"`isarcasm data fetch {name}`")  # from the upstream: no --mirror
    assert list((tmp_path / "runs").rglob("*")) == []  # nothing stored


def test_every_named_vectors_is_a_catalog_resource():
    assert all(name in RESOURCES for name in NAMED_VECTORS)


def test_a_name_that_is_neither_a_file_nor_named_vectors_lists_the_names(tmp_path):
    result = cli(tmp_path, "embeddings", "info", "--embeddings", "glove-6b")
    assert_one_line_error(result, "glove-6b: word vectors file not found",
                          f"a name ({', '.join(NAMED_VECTORS)})")


def shipped_run(key: str) -> dict:
    index = json.loads((ROOT / "docs" / "results" / "runs" / "table7.json").read_text())
    return next(run["config"] for run in index["runs"] if run["key"] == key)


def test_the_default_runs_keep_the_shipped_runs_settings_vectors_file_and_name(tmp_path):
    config = shipped_run("table7/isarcasm/lstm/seed-0")
    assert TrainConfig().identity() == config["train"]
    write_vectors(named_vectors_path(DEFAULT, tmp_path), ["movie"])
    vectors = data_files("isarcasm", tmp_path, TrainConfig())[-1]
    assert vectors.name in config["data_sha256"] and vectors.name.endswith(".wink341k.txt.gz")
    assert experiment_name("table7", TrainConfig()) == "table7"
    assert experiment_name("table7", TrainConfig(embeddings="glove-6b-full")) == "table7-embeddings-glove-6b-full"


def test_the_default_run_has_the_shipped_runs_configuration_hash(real_data_dir):
    from experiments.runs.one.spec import RunSpec
    from experiments.runs.one.training import expected_hash
    from preprocessing.corpora import load_corpus

    config = shipped_run("table7/isarcasm/lstm/seed-0")
    run = RunSpec("isarcasm", "lstm", 0, TrainConfig())
    assert expected_hash(run, load_corpus("isarcasm", real_data_dir), real_data_dir) == config["config_hash"]
