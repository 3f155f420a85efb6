"""A quiet console: with ``-q`` the commands print results and errors only, and never a line of
TensorFlow, absl, CUDA or Ray, in the command's process or in its worker processes; TensorFlow's
native start-up lines come back with ``TF_CPP_MIN_LOG_LEVEL=0``.

Each command runs as a user runs it, in its own Python process (TensorFlow's start-up lines are
written once per process, while it is imported).  The reproduction is the smallest one that still
trains in a worker process: one toy cell, ``--quick``, ``--jobs 2``.
"""
import logging
import os
import re
import subprocess
import sys

from toy_corpus import write_corpus

from experiments.runs.console import ABSL_NOTICE, native_lines_kept
from locations import ROOT

#: What a line of TensorFlow, absl, CUDA, oneDNN, XLA or Ray looks like.
FOREIGN = re.compile(r"absl|InitializeLog|cuda|cudart|oneDNN|tensorflow|retracing|^[IWEF]\d{4} |\bray\b|raylet",
                     re.IGNORECASE | re.MULTILINE)

START_UP = (f"{ABSL_NOTICE}\n"
            "I0000 00:00:1795597928.256793    9337 port.cc:153] oneDNN custom operations are on.\n"
            "I0000 00:00:1795597928.257155    9337 cudart_stub.cc:31] Could not find cuda drivers on your machine.\n"
            "I0000 00:00:1795598240.288118   20085 cpu_feature_guard.cc:227] This TensorFlow binary is optimized.\n"
            "To enable the following instructions: AVX2 AVX512F, rebuild TensorFlow.\n"
            "2025-09-17 14:44:05.176998: E external/local_xla/xla/stream_executor/cuda/cuda_fft.cc:467] Unable to "
            "register cuFFT factory\n")


def started(*args) -> subprocess.Popen:
    """``isarcasm ARGS`` as a user runs it, in a Python process of its own, started: independent commands run
    at once (each mostly keeps one core busy)."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    environment.pop("TF_CPP_MIN_LOG_LEVEL", None)  # as a fresh shell has it: the suite's own default applies
    code = "import sys; from experiments.cli import main; sys.argv[0] = 'isarcasm'; main()"
    return subprocess.Popen([sys.executable, "-c", code, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=environment)


def finished(*processes: subprocess.Popen) -> list[subprocess.CompletedProcess]:
    """The processes' exit codes and output, once each has ended (killed after 300 s, as subprocess.run does)."""
    done = []
    try:
        for process in processes:
            stdout, stderr = process.communicate(timeout=300)
            done.append(subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr))
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.communicate()
    return done


def test_native_start_up_lines_are_filtered_by_tf_cpp_min_log_level():
    assert native_lines_kept(START_UP, 3) == ""
    assert native_lines_kept(START_UP, 0) == START_UP
    errors = native_lines_kept(START_UP, 2)
    assert errors.splitlines() == [ABSL_NOTICE, START_UP.splitlines()[-1]]  # the notice goes with what is shown
    other = "Traceback (most recent call last):\n  File \"x.py\", line 1\nImportError: no\n"
    assert native_lines_kept(START_UP + other, 3) == other  # what is not TensorFlow's is never lost
    assert native_lines_kept(other + START_UP, 3) == other


def test_train_evaluate_predict_and_a_quick_reproduction_print_no_foreign_line_with_q(tmp_path):
    corpus = write_corpus(tmp_path / "toy.csv")
    runs, results = tmp_path / "runs", tmp_path / "results"
    common = ["--split-col", "split", "--set", "embeddings=random", "--output-dir", runs]
    experiment = tmp_path / "toy.toml"
    experiment.write_text(f"name = 'toy'\n[[cells]]\ncorpus = '{corpus}'\nmodel = 'cnn'\n")  # --jobs 2: one worker
    train, reproduce = finished(  # the quick reproduction trains other runs (2 epochs), never train's
        started("--data-dir", tmp_path, "-q", "train", "--corpus", corpus, "--model", "cnn", "--epochs", "1",
                *common),
        started("--data-dir", tmp_path, "-q", "reproduce", experiment, "--quick", "--jobs", "2", "--results-dir",
                results, *common))
    assert train.returncode == 0, train.stderr
    run = next(runs.glob("train-*/toy/cnn/seed-0"))
    evaluate, predict = finished(
        started("--data-dir", tmp_path, "-q", "evaluate", run, "--corpus", corpus, "--split-col", "split"),
        started("--data-dir", tmp_path, "-q", "predict", run, "--text", "coffee exam yeah right"))
    for name, done in {"train": train, "evaluate": evaluate, "predict": predict, "reproduce": reproduce}.items():
        assert done.returncode == 0, f"{name}: {done.stderr}"
        assert not FOREIGN.search(done.stderr), f"{name} printed: {done.stderr}"
        assert done.stderr.strip() == "", f"{name}: -q prints results and errors only: {done.stderr}"
    assert predict.stdout.startswith("label\tp_sarcastic\ttext\n")
    assert "Smoke run" in reproduce.stdout and "⚑" not in reproduce.stdout


def test_tf_cpp_min_log_level_0_shows_tensorflows_lines_again():
    def imported(code: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "0"})

    hooked = imported("from experiments.runs.console import set_up_console; set_up_console(30); import tensorflow")
    assert hooked.returncode == 0, hooked.stderr
    if not FOREIGN.search(hooked.stderr):  # nothing shown: fine only if this TensorFlow build prints nothing
        assert not FOREIGN.search(imported("import tensorflow").stderr), "TF_CPP_MIN_LOG_LEVEL=0 hid TensorFlow's lines"


def test_only_kerass_one_trace_per_model_alarm_is_dropped_from_tensorflows_logger(caplog):
    from experiments.runs.console import set_up_console

    set_up_console(logging.WARNING)
    tensorflow = logging.getLogger("tensorflow")
    with caplog.at_level(logging.WARNING):
        tensorflow.warning("5 out of the last 7 calls to <function TensorFlowTrainer.make_predict_function.<locals>."
                           "one_step_on_data_distributed at 0x7f> triggered tf.function retracing. Tracing is expensive")
        tensorflow.warning("5 out of the last 7 calls to <function my_step at 0x7f> triggered tf.function retracing.")
        tensorflow.warning("something else")
    assert [r.getMessage()[:40] for r in caplog.records if r.name == "tensorflow"] == [
        "5 out of the last 7 calls to <function m", "something else"]
