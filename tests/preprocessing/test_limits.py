"""Bounds before allocation (preprocessing/limits.py): a tiny input that claims a huge size is refused in one
line, fast, before anything of that size is allocated; see docs/reliability.md.

The vectors header is read under ``ulimit -v`` (RLIMIT_AS) in a child process, so an allocation of the
claimed size would fail there rather than succeed slowly; the others are refused before the allocation
they guard (a run's padded ids, a model's tensors, a model file's weights), which the time they take
and the missing run folder show.
"""
from __future__ import annotations

import gzip
import json
import logging
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from locations import FIXTURES, ROOT
from toy_corpus import write_corpus

from experiments.cli import main
from experiments.runs.many.scheduler import capped_jobs, cores
from preprocessing.errors import IsarcasmError
from preprocessing.limits import (MAX_RESAMPLES, MAX_SEEDS, MEMORY_ENV, RAY_TIMEOUT_ENV, ROWS, VECTORS, memory_budget,
                                  parse_size)


#: Reads the vectors file argv[1] in a process that may map at most 1 GiB.
UNDER_ULIMIT = """
import resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from embeddings.vectors import parse_vectors
from preprocessing.errors import IsarcasmError
try:
    parse_vectors(Path(sys.argv[1]), progress=False)
except IsarcasmError as exc:
    print(exc)
    sys.exit(1)
"""


def read_under_ulimit(path: Path, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", UNDER_ULIMIT, str(path)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT), **env})


def one_line(result) -> str:
    """The one error line (a run's progress lines may come before it)."""
    errors = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and "Traceback" not in result.output, result.output
    return errors[0]


def test_a_31_byte_vectors_file_claiming_two_billion_words_is_refused_from_its_size(tmp_path):
    path = tmp_path / "huge.txt"
    path.write_text("2000000000 1000000\nthe 0.1 0.2\n")
    started = time.perf_counter()
    child = read_under_ulimit(path)
    assert child.returncode == 1, child.stderr
    assert "header claims 2,000,000,000 words of 1,000,000 numbers" in child.stdout
    assert "fix the first line" in child.stdout
    assert time.perf_counter() - started < 60


def test_a_gzipped_vectors_header_is_refused_from_the_memory_budget(tmp_path):
    """A gzipped file's size says nothing about its lines: the matrix the header claims must fit the budget."""
    path = tmp_path / "huge.txt.gz"
    path.write_bytes(gzip.compress(b"100000 100000\nthe " + b"0 " * 10 + b"\n"))
    child = read_under_ulimit(path)  # the 1 GiB ulimit makes the budget 768 MiB; the header claims 37 GiB
    assert child.returncode == 1, child.stderr
    assert "100,000 x 100,000 vectors would take 37.3 GiB" in child.stdout
    assert MEMORY_ENV in child.stdout


def test_a_vectors_header_the_file_holds_still_loads(tmp_path):
    path = tmp_path / "small.txt"
    path.write_text("2 3\nthe 0.1 0.2 0.3\na 1 2 3\n")
    child = read_under_ulimit(path)
    assert child.returncode == 0, child.stdout + child.stderr


def keras_file(path: Path, member_bytes: int, compression: int) -> Path:
    """A zip like a .keras file whose weights member holds ``member_bytes`` zeros."""
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        archive.writestr("config.json", "{}")
        with archive.open("model.weights.h5", "w", force_zip64=True) as member:
            for _ in range(member_bytes >> 20):
                member.write(bytes(1 << 20))
    return path


def test_a_keras_file_that_expands_like_a_zip_bomb_is_refused_before_keras_opens_it(tmp_path):
    from baselines import load_model

    path = keras_file(tmp_path / "bomb.keras", 80 << 20, zipfile.ZIP_DEFLATED)
    assert path.stat().st_size < 1 << 20
    with pytest.raises(IsarcasmError, match=r"model.weights.h5 declares 80.0 MiB packed into .*zip bomb"):
        load_model(path)


def test_a_keras_file_whose_weights_exceed_the_budget_is_refused(tmp_path, monkeypatch):
    from baselines import load_model

    monkeypatch.setenv(MEMORY_ENV, "2M")
    path = keras_file(tmp_path / "big.keras", 1 << 20, zipfile.ZIP_STORED)
    with pytest.raises(IsarcasmError, match=r"loading this model would take 3.0 MiB, more than the 2.0 MiB"):
        load_model(path)


@pytest.fixture
def corpus(tmp_path) -> Path:
    return write_corpus(tmp_path / "toy.csv")


def train(corpus: Path, tmp_path: Path, *options: str):
    args = ["train", "--corpus", str(corpus), "--model", "cnn", "--set", "embeddings=random", "--epochs", "1",
            "--split-col", "split", "--output-dir", str(tmp_path / "runs"), *options]
    started = time.perf_counter()
    result = CliRunner().invoke(main, args)
    return result, time.perf_counter() - started


def test_max_len_of_a_billion_is_refused_by_its_declared_range(corpus, tmp_path):
    result, _ = train(corpus, tmp_path, "--set", "max_len=1000000000")
    assert result.exit_code == 1 and "max_len must be" in result.output and "1000000000" in result.output, result.output
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").rglob("*.keras"))


def test_padded_ids_beyond_the_memory_budget_are_refused_before_they_are_allocated(corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("ISARCASM_MEMORY_LIMIT", "2M")
    result, seconds = train(corpus, tmp_path, "--set", "max_len=10000")
    assert result.exit_code == 1
    line = one_line(result)
    assert "padded token ids of 144 texts at max_len 10,000 would take" in line, line
    assert "lower --max-len" in line
    assert seconds < 60
    assert not list((tmp_path / "runs").rglob("*.keras"))


def test_a_pairwise_model_at_a_long_max_len_is_refused_before_it_is_built(corpus, tmp_path):
    """10,000 positions are cheap as ids (8 MiB) but MIARN's pair tensor is batch x T x T x (k + 1)."""
    result, _ = train(corpus, tmp_path, "--set", "max_len=10000", "--model", "miarn")
    assert result.exit_code == 1
    line = one_line(result)
    assert "training miarn" in line and "lower --max-len or --batch-size" in line, line
    assert not list((tmp_path / "runs").rglob("*.keras"))


def test_a_batch_size_beyond_the_data_is_no_cost_at_all(corpus, tmp_path, monkeypatch):
    """Keras never makes a batch larger than the training split, so a huge --batch-size costs nothing more
    and is not refused (the estimate takes the batch Keras will make)."""
    result, _ = train(corpus, tmp_path, "--batch-size", "1048576")
    assert result.exit_code == 0, result.output


def test_a_memory_budget_from_the_environment_is_a_size(monkeypatch):
    monkeypatch.setenv(MEMORY_ENV, "1.5G")
    assert memory_budget() == 3 << 29
    assert parse_size("512M") == 512 << 20 and parse_size("4096") == 4096
    for wrong in ("lots", "-1G", "nanG", "0"):
        with pytest.raises(IsarcasmError, match="is not a size"):
            parse_size(wrong)


@pytest.mark.parametrize("value", ["1e308", "inf", "0", "-5", "soon", "86401"])
def test_a_ray_timeout_beyond_a_day_or_no_number_is_refused_in_one_line(monkeypatch, value):
    from preprocessing.limits import ray_timeout

    monkeypatch.setenv(RAY_TIMEOUT_ENV, value)
    with pytest.raises(IsarcasmError, match=f"ISARCASM_RAY_TIMEOUT='{value}' is not a number of seconds greater "
                                            "than 0 and at most 86,400"):
        ray_timeout()
    monkeypatch.setenv(RAY_TIMEOUT_ENV, "86400")
    assert ray_timeout() == 86_400


def test_a_malformed_gzip_limit_is_refused_not_ignored(monkeypatch):
    from preprocessing.fileio import MAX_DECOMPRESSED, max_decompressed

    for wrong in ("lots", "2GB!", "-1", "0"):
        monkeypatch.setenv("ISARCASM_MAX_GZIP_BYTES", wrong)
        with pytest.raises(IsarcasmError, match=f"ISARCASM_MAX_GZIP_BYTES='{re.escape(wrong)}' is not a size"):
            max_decompressed()
    monkeypatch.setenv("ISARCASM_MAX_GZIP_BYTES", "4G")
    assert max_decompressed() == 4 << 30
    monkeypatch.setenv("ISARCASM_MAX_GZIP_BYTES", "")
    assert max_decompressed() == MAX_DECOMPRESSED


def test_jobs_beyond_the_cores_are_capped_in_one_line(caplog):
    with caplog.at_level(logging.WARNING):
        assert capped_jobs(1000) == cores()
    assert [record.getMessage() for record in caplog.records] == [
        f"--jobs 1000 capped to {cores()}, the cores this process may use"]
    caplog.clear()
    assert capped_jobs(1) == 1 and not caplog.records


@pytest.mark.parametrize("command, option, limit", [
    (["reproduce", "table7"], "--seeds", MAX_SEEDS),
    (["benchmark", "cnn"], "--resamples", MAX_RESAMPLES),
])
def test_seeds_and_resamples_are_bounded(command, option, limit, tmp_path):
    result = CliRunner().invoke(main, [*command, option, str(limit + 1), "--output-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert f"{limit + 1} is not in the range" in one_line(result) and f"{limit}" in result.output


@pytest.fixture
def silent_port():
    """A port that accepts connections (the kernel's backlog) and never says a word."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()[1]


@pytest.mark.parametrize("address, timeout, problem", [("127.0.0.1:1", None, "Connection refused"),
                                                       ("192.0.2.1:6379", "2", ""),  # by the network
                                                       ("127.0.0.1:SILENT", "2", "no answer")])
def test_an_address_where_no_ray_cluster_answers_fails_in_one_line_within_the_timeout(address, timeout, problem,
                                                                                     tmp_path, monkeypatch,
                                                                                     silent_port):
    """Ray itself retries an unreachable cluster for minutes (more than five, measured) and waited on a silent
    port for more than 153 s; a refused port fails at once, an address that never answers (192.0.2.1 is
    TEST-NET-1) or a port that accepts and never speaks as Ray after $ISARCASM_RAY_TIMEOUT."""
    pytest.importorskip("ray", reason="Ray is an optional extra (pip install -e '.[ray]')")
    address = address.replace("SILENT", str(silent_port))
    if timeout:
        monkeypatch.setenv(RAY_TIMEOUT_ENV, timeout)
    experiment = tmp_path / "toy.toml"
    experiment.write_text(f"name = 'toy'\n[[cells]]\ncorpus = '{write_corpus(tmp_path / 'toy.csv')}'\n"
                          "model = 'cnn'\n")
    started = time.perf_counter()
    result = CliRunner().invoke(main, ["reproduce", str(experiment), "--quick", "--set", "embeddings=random",
                                       "--split-col", "split", "--executor", "ray", "--address", address,
                                       "--output-dir", str(tmp_path / "runs"),
                                       "--results-dir", str(tmp_path / "results")])
    assert result.exit_code == 1, result.output
    assert f"--address {address}: no Ray cluster there ({problem}" in result.output.strip().splitlines()[-1]
    assert time.perf_counter() - started < 30


def test_a_grpc_server_passes_the_ray_probe():
    """The probe asks for what a Ray head (gRPC) answers: a server of the same gRPC core is not refused."""
    pytest.importorskip("ray", reason="Ray is an optional extra (pip install -e '.[ray]')")
    from concurrent import futures

    import grpc

    from experiments.runs.many.cluster import check_ray_address

    server = grpc.server(futures.ThreadPoolExecutor(1))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        check_ray_address(f"127.0.0.1:{port}")
        check_ray_address(f"ray://127.0.0.1:{port}")
    finally:
        server.stop(None)


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz"])
def test_a_line_longer_than_any_record_is_refused_with_its_number_before_it_fills_the_memory(tmp_path, monkeypatch,
                                                                                             suffix):
    from preprocessing import fileio

    monkeypatch.setattr(fileio, "MAX_LINE", 64)
    text = "text,label\nshort one,1\n" + "x" * 65 + ",0\nlast,0\n"
    path = tmp_path / f"long{suffix}"
    path.write_bytes(gzip.compress(text.encode()) if suffix.endswith(".gz") else text.encode())
    result = CliRunner().invoke(main, ["data", "stats", str(path)])
    assert result.exit_code == 1, result.output
    assert f"{path}:3: a line of more than 64 characters" in result.output
    assert "Traceback" not in result.output
    path.write_bytes(text.replace("x" * 65, "x" * 60).encode() if suffix == ".csv" else
                     gzip.compress(text.replace("x" * 65, "x" * 60).encode()))
    assert CliRunner().invoke(main, ["data", "stats", str(path)]).exit_code == 0  # a line within the bound


def test_a_gzip_of_nuls_given_as_vectors_is_refused_from_its_first_line(tmp_path):
    """2 MB of NUL bytes is one endless line, which gensim would read whole (it once took 6.4 GB)."""
    from embeddings.vectors import parse_vectors

    path = tmp_path / "nul.txt.gz"
    path.write_bytes(gzip.compress(b"\0" * (2 << 20)))
    with pytest.raises(IsarcasmError, match=r"nul.txt.gz:1: a first line of more than 1,048,576 bytes"):
        parse_vectors(path, progress=False)


@pytest.mark.parametrize("suffix", [".csv.gz", ".tsv.gz", ".jsonl.gz"])
def test_a_gzip_of_more_rows_than_the_bound_is_refused_at_the_first_line_past_it(tmp_path, monkeypatch, suffix):
    """A 69 KB gzip of 12 million CSV rows took 3.5 GB and 175 s in ``data stats``; the row bound stops it
    where it passes (here lowered to 100 through the environment)."""
    monkeypatch.setenv(ROWS.variable, "100")
    sep = "\t" if suffix == ".tsv.gz" else ","
    rows = ['{"text": "same", "label": 1}\n'] * 1000 if suffix == ".jsonl.gz" else \
        [f"text{sep}label\n"] + [f"same{sep}1\n"] * 1000
    path = tmp_path / f"many{suffix}"
    path.write_bytes(gzip.compress("".join(rows).encode()))
    result = CliRunner().invoke(main, ["data", "stats", str(path)])
    assert result.exit_code == 1, result.output
    assert f"{path}: more than 100 lines, far more than any corpus holds" in one_line(result)
    assert "raise $ISARCASM_MAX_ROWS" in result.output
    monkeypatch.setenv(ROWS.variable, "1001")
    assert CliRunner().invoke(main, ["data", "stats", str(path)]).exit_code == 0  # within the bound


def test_a_vectors_file_of_more_lines_than_the_bound_is_refused_before_gensim_parses_it(tmp_path, monkeypatch):
    """A 230 KB gzip of 20 million duplicate vector lines was still parsing after 245 s."""
    from embeddings.vectors import parse_vectors

    monkeypatch.setenv(VECTORS.variable, "100")
    path = tmp_path / "many.txt.gz"
    path.write_bytes(gzip.compress(b"the 0.1 0.2\n" * 1000))
    with pytest.raises(IsarcasmError, match=r"many.txt.gz: more than 100 lines.*raise \$ISARCASM_MAX_VECTORS"):
        parse_vectors(path, progress=False)
    monkeypatch.setenv(MEMORY_ENV, "4K")  # within the line bound, the matrix must fit the memory budget
    monkeypatch.setenv(VECTORS.variable, "1000")
    with pytest.raises(IsarcasmError, match=r"its 1,000 vectors of 2 numbers would take 7.8 KiB, more than the 4.0"):
        parse_vectors(path, progress=False)


@pytest.mark.parametrize("bound", [ROWS, VECTORS], ids=["rows", "vectors"])
@pytest.mark.parametrize("wrong", ["lots", "-1", "0", "1.5", "1e6"])
def test_a_malformed_line_bound_is_refused_not_ignored(monkeypatch, wrong, bound):
    monkeypatch.setenv(bound.variable, wrong)
    with pytest.raises(IsarcasmError, match=f"{bound.variable}='{re.escape(wrong)}' is not a number of lines"):
        bound.limit()
    monkeypatch.setenv(bound.variable, "10_000_000")
    assert bound.limit() == 10_000_000
    monkeypatch.delenv(bound.variable)
    assert bound.limit() == bound.default


def test_a_keras_file_whose_weights_declare_more_than_it_holds_is_refused_before_keras_reads_them(tmp_path):
    """A dataset of unwritten chunks declares gigabytes in a few kilobytes (Keras would read it whole: a
    padded model took 7.7 GB in ``predict``); its declared shape is read from the weights' metadata."""
    import h5py

    from baselines import load_model

    weights = tmp_path / "model.weights.h5"
    with h5py.File(weights, "w") as store:
        store.create_dataset("layers/embedding/vars/0", shape=(1 << 20, 1000), dtype="float32", chunks=(1024, 100))
    path = tmp_path / "padded.keras"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("config.json", "{}")
        archive.write(weights, "model.weights.h5")
    assert path.stat().st_size < 1 << 20
    with pytest.raises(IsarcasmError, match=r"its model.weights.h5 declares 3.9 GiB of weights in .* KiB.*padded"):
        load_model(path)


@pytest.mark.parametrize("kind, document", [
    ("json", lambda depth: "[" * depth + "]" * depth),
    ("json", lambda depth: '{"a": ' * depth + "1" + "}" * depth),
    ("toml", lambda depth: "v = " + "[" * (depth - 1) + "]" * (depth - 1)),  # the file's own table is a level
    ("toml", lambda depth: f"[{'.'.join(['t'] * (depth - 1))}]\nx = 1"),
], ids=["json arrays", "json objects", "toml arrays", "toml tables"])
def test_json_and_toml_are_read_to_the_depth_bound_and_refused_past_it_naming_the_file(tmp_path, kind, document):
    """At MAX_DEPTH a document reads; one level more is refused, and so is one deep enough that the parser
    itself recurses past Python's limit (a RecursionError traceback before the bound).  The refusal is a
    ValueError too, as a parser's own error, so a reader that takes a malformed file for a damaged one does."""
    from preprocessing.fileio import NestedTooDeep, json_value, toml_value
    from preprocessing.limits import MAX_DEPTH

    parse = json_value if kind == "json" else toml_value
    path = tmp_path / f"file.{kind}"
    assert parse(document(MAX_DEPTH), path)
    for depth in (MAX_DEPTH + 1, 100_000):
        with pytest.raises(NestedTooDeep, match=rf"^{re.escape(str(path))}: nested more than 100 levels") as caught:
            parse(document(depth), path)
        assert isinstance(caught.value, ValueError) and isinstance(caught.value, IsarcasmError)


def test_json_and_toml_are_parsed_in_one_place():
    """A source scan: no module but preprocessing/fileio.py parses JSON or TOML itself, so every file the
    suite reads passes the depth bound (benchmarks/ read only their own children's output)."""
    parse = re.compile(r"\b(json|tomllib)\.loads?\b")
    sources = [p for folder in ("baselines", "embeddings", "experiments", "preprocessing")
               for p in (ROOT / folder).rglob("*.py")]
    found = [f"{p.relative_to(ROOT)}: {line.strip()}" for p in sources for line in p.read_text().splitlines()
             if parse.search(line) and not line.lstrip().startswith(("#", '"""'))]
    assert found == ["preprocessing/fileio.py: return _bounded(json.loads, text, path, row)",
                     "preprocessing/fileio.py: return _bounded(tomllib.loads, text, path, None)"], found


def test_a_keras_file_whose_config_is_nested_thousands_deep_is_refused_before_keras_reads_it(tmp_path):
    from baselines import load_model

    path = tmp_path / "deep.keras"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("config.json", "[" * 5000 + "]" * 5000)
    with pytest.raises(IsarcasmError, match=r"deep\.keras's config\.json: nested more than 100 levels deep"):
        load_model(path)


#: ``predict`` on the run folder argv[1] in a process that may map at most 1 GiB, as a user runs it.
PREDICT_UNDER_ULIMIT = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from experiments.cli import main
main(["predict", sys.argv[1], "--text", "hello"])
"""


def test_a_model_whose_config_declares_an_embedding_its_weights_do_not_hold_is_refused_before_keras_builds_it(
        tmp_path):
    """A run's model.keras whose config.json declares an embedding of 6,000,000 x 100 (2.2 GiB) beside its
    own 1 MB of weights: Keras built the layer first (13 GB in 94 s) before its weights failed to load.  Sized
    from the config, before TensorFlow is imported, it is refused within 1 GiB of address space."""
    run = Path(shutil.copytree(FIXTURES / "run-094c709", tmp_path / "run"))
    with zipfile.ZipFile(FIXTURES / "run-094c709" / "model.keras") as archive:
        members = {member.filename: archive.read(member) for member in archive.infolist()}
    config = json.loads(members["config.json"])
    embedding = next(layer for layer in config["config"]["layers"] if layer["class_name"] == "Embedding")
    embedding["config"]["input_dim"] = 6_000_000
    members["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(run / "model.keras", "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    child = subprocess.run([sys.executable, "-c", PREDICT_UNDER_ULIMIT, str(run)], capture_output=True, text=True,
                           timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert child.returncode == 1 and child.stdout == "", child.stderr
    assert child.stderr == (f"Error: {run}/model.keras: refused: its config.json declares 2.2 GiB of weights (the "
                            'largest: Embedding "embedding" of 6,000,000 x 100, 2.2 GiB) but its weights hold 965.7 '
                            "KiB, which no model file written by Keras does; use the model.keras a training run "
                            "wrote\n")
