"""Training and prediction throughput of every baseline on each Keras backend (TensorFlow, JAX, torch).

One worker process per backend (``KERAS_BACKEND`` is fixed when Keras is imported), all
single-threaded (one intra-op and one inter-op thread, the same environment for the three),
driven in turn by this process so that the backends are measured alternately under the
same machine load: for each model every worker builds and compiles it, then the workers
take turns at each epoch and each prediction pass; only one worker computes at a time.

The data is iSarcasm's training split (as a faithful run makes it: seed 0, 10% held out
for validation, the default preprocessing, GloVe's 100 dimensions with random vectors)
when the corpus is found (``--data-dir``, default ``../shared/data``), else random token
ids of the same size.  Paper-sized models, batch 128 for training (Adam, cross-entropy, the
F1 metric of a real run) and 256 for prediction, as ``isarcasm train`` uses them.

Printed per model and backend: the first epoch's seconds (graph tracing or compilation
included), training examples/s over the later epochs (median), prediction examples/s
(median, after a warm-up pass), then the fastest backend per model.

Usage: ``python benchmarks/backend_throughput.py [--models lstm,cnn] [--epochs 4] [--backends tensorflow,jax,torch]``.
A machine without the corpus or spaCy (a lent GPU machine) reads the arrays made here:
``--save-inputs isarcasm.npz`` here, ``--inputs isarcasm.npz --backends jax,torch`` there; only
Keras, the backend, numpy and tabulate (the tables; one pure-Python wheel) are needed there.
Timings depend on the machine and its load: the header prints both.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from experiments.reports.format import table  # noqa: E402

BACKENDS = ("tensorflow", "jax", "torch")
MODELS = ("lstm", "att-lstm", "cnn", "3cnn", "siarn", "miarn", "dense-lstm")
#: One thread everywhere, so that no backend wins by using more cores than another.
SINGLE_THREAD = {
    "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
    "TF_NUM_INTRAOP_THREADS": "1", "TF_NUM_INTEROP_THREADS": "1",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
    "TF_CPP_MIN_LOG_LEVEL": "2",
}
TRAIN_BATCH, PREDICT_BATCH = 128, 256


# --- the data: prepared once, here, and read by every worker ------------------------------------

def real_inputs(data_dir: Path) -> tuple[dict, np.ndarray, dict, str]:
    """iSarcasm's training split as a faithful run (seed 0) builds it."""
    from experiments.runs.one.inputs import FitTexts, ModelInputs  # the corpus path only
    from experiments.runs.one.protocol import TrainConfig, make_splits
    from preprocessing.config import PreprocessConfig
    from preprocessing.corpora import load_corpus

    dataset = load_corpus("isarcasm", data_dir)
    train = make_splits(dataset, 0, TrainConfig().validation_fraction).train
    texts = [r.text for r in train]
    inputs = ModelInputs.fit(PreprocessConfig(language=dataset.language), ("tokens", "lexicon"), FitTexts(texts), data_dir)
    arrays = inputs.build(texts)
    labels = np.array([r.label for r in train])
    sizes = {"vocab_size": len(inputs.preprocessor.vocab), "max_len": int(inputs.preprocessor.max_len),
             "lexicon_dim": inputs.lexicon_dim}
    return arrays, labels, sizes, f"iSarcasm training split ({data_dir})"


def synthetic_inputs(n: int = 2814, vocab_size: int = 8000, max_len: int = 50, lexicon_dim: int = 43):
    """Random tweets of 5-``max_len`` tokens, the size of iSarcasm's training split."""
    rng = np.random.default_rng(0)
    lengths = rng.integers(5, max_len + 1, size=n)
    tokens = rng.integers(1, vocab_size, size=(n, max_len)).astype("int32")
    tokens[np.arange(max_len) >= lengths[:, None]] = 0
    arrays = {"tokens": tokens, "lexicon": rng.normal(size=(n, lexicon_dim)).astype("float32")}
    sizes = {"vocab_size": vocab_size, "max_len": max_len, "lexicon_dim": lexicon_dim}
    return arrays, rng.integers(0, 2, size=n), sizes, "random token ids (iSarcasm not found)"


# --- a worker: one backend, commands on stdin, one JSON reply per line -------------------------

def worker(data_path: str) -> None:
    reply = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # whatever the libraries print goes to stderr, not into the replies
    import keras  # KERAS_BACKEND is set by the parent

    backend = keras.backend.backend()
    if backend == "tensorflow":
        import tensorflow as tf  # the backend keras has loaded
        tf.config.threading.set_intra_op_parallelism_threads(1)
        tf.config.threading.set_inter_op_parallelism_threads(1)
    elif backend == "torch":
        import torch  # the backend keras has loaded
        torch.set_num_threads(1)
        torch.set_num_interop_threads(1)
    from baselines import MODELS as REGISTRY
    from baselines import ModelConfig, build_model
    try:
        from experiments.runs.one.selection import selection_metric  # the F1 a real run logs
        metric = selection_metric(2)
    except ImportError:  # a lent GPU machine without scikit-learn: Keras' F1, the same per-batch work
        metric = keras.metrics.F1Score(average=None, name="f1")

    loaded = np.load(data_path)
    sizes = json.loads(str(loaded["sizes"]))
    labels = np.eye(2, dtype="float32")[loaded["labels"]]
    n = len(labels)
    model = inputs = None
    versions = {"tensorflow": "tensorflow", "jax": "jax", "torch": "torch"}
    module = __import__(versions[backend])
    answer({"ready": backend, "version": module.__version__}, reply)
    for line in sys.stdin:
        command = json.loads(line)
        started = time.perf_counter()
        if command["do"] == "build":
            keras.utils.set_random_seed(0)
            spec = REGISTRY.get(command["model"])
            inputs = {key: loaded[key] for key in spec.inputs}
            model = build_model(spec.name, ModelConfig(**sizes))
            model.compile(optimizer=keras.optimizers.Adam(learning_rate=1e-3), loss="categorical_crossentropy",
                          metrics=[metric])
        elif command["do"] == "epoch":
            model.fit(inputs, labels, batch_size=TRAIN_BATCH, epochs=1, shuffle=True, verbose=0)
        elif command["do"] == "predict":
            model.predict(inputs, batch_size=PREDICT_BATCH, verbose=0)
        elif command["do"] == "quit":
            return
        answer({"seconds": time.perf_counter() - started, "n": n}, reply)


def answer(message: dict, reply) -> None:
    reply.write(json.dumps(message) + "\n")
    reply.flush()


class Worker:
    def __init__(self, backend: str, data_path: Path):
        env = {**os.environ, **SINGLE_THREAD, "KERAS_BACKEND": backend}
        self.backend = backend
        self.process = subprocess.Popen([sys.executable, __file__, "--worker", str(data_path)], env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True, cwd=ROOT)
        self.ready = self.receive()

    def send(self, **command) -> dict:
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        return self.receive()

    def receive(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.backend} worker stopped (run it alone to see why: KERAS_BACKEND="
                               f"{self.backend} python {__file__} --worker DATA.npz)")
        return json.loads(line)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.write(json.dumps({"do": "quit"}) + "\n")
            self.process.stdin.flush()
            self.process.wait(timeout=60)


def measure(model: str, workers: list[Worker], epochs: int, predictions: int) -> dict[str, dict]:
    """Build on every backend, then alternate: epoch 1 on each, epoch 2 on each, ..., then prediction passes."""
    times = {w.backend: {"epochs": [], "predict": []} for w in workers}
    for w in workers:
        w.send(do="build", model=model)
    for _ in range(epochs):
        for w in workers:
            reply = w.send(do="epoch")
            times[w.backend]["epochs"].append(reply["seconds"])
            times[w.backend]["n"] = reply["n"]
    for w in workers:
        w.send(do="predict")  # warm-up: trace or compile the predict function
    for _ in range(predictions):
        for w in workers:
            times[w.backend]["predict"].append(w.send(do="predict")["seconds"])
    return times


def accelerator() -> str:
    """The GPU the backends can use, as ``nvidia-smi`` names it, or "no GPU"."""
    try:
        found = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                               text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        found = ""
    return found.replace("\n", " + ") or "no GPU"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated model names")
    parser.add_argument("--backends", default=",".join(BACKENDS), help="comma-separated Keras backends")
    parser.add_argument("--epochs", type=int, default=4, help="epochs per model and backend, the first one included")
    parser.add_argument("--predictions", type=int, default=3, help="timed prediction passes (after a warm-up)")
    parser.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--inputs", type=Path, help="arrays saved by --save-inputs (instead of the corpus)")
    parser.add_argument("--save-inputs", type=Path, help="save the arrays for --inputs elsewhere, then stop")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker)
    if args.epochs < 2:
        parser.error("--epochs must be at least 2: the first epoch is timed on its own")

    if args.inputs:
        saved = np.load(args.inputs)
        arrays = {key: saved[key] for key in saved.files if key not in ("labels", "sizes", "source")}
        labels, sizes, source = saved["labels"], json.loads(str(saved["sizes"])), str(saved["source"])
    elif (args.data_dir / "isarcasm").is_dir():
        arrays, labels, sizes, source = real_inputs(args.data_dir)
    else:
        arrays, labels, sizes, source = synthetic_inputs()
    if args.save_inputs:
        np.savez_compressed(args.save_inputs, labels=labels, sizes=json.dumps(sizes), source=source, **arrays)
        return print(f"saved {len(labels)} examples of {source} to {args.save_inputs}")
    with tempfile.TemporaryDirectory() as folder:
        data_path = Path(folder) / "data.npz"
        np.savez(data_path, labels=labels, sizes=json.dumps(sizes), **arrays)
        workers = [Worker(backend, data_path) for backend in args.backends.split(",")]
        try:
            print(f"{len(labels)} examples of {source}; max_len {sizes['max_len']}, vocab {sizes['vocab_size']}; "
                  f"batch {TRAIN_BATCH} (train) / {PREDICT_BATCH} (predict); {args.epochs} epochs, "
                  f"{args.predictions} prediction passes; one thread per backend; "
                  + ", ".join(f"{w.backend} {w.ready['version']}" for w in workers)
                  + f"; {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, {accelerator()}, "
                  f"load average before {os.getloadavg()[0]:.2f}", flush=True)
            rows, fastest, started = [], [], time.time()
            for model in args.models.split(","):
                times = measure(model, workers, args.epochs, args.predictions)
                rates = {}
                for backend, t in times.items():
                    n = t["n"]
                    train = n / statistics.median(t["epochs"][1:])
                    predict = n / statistics.median(t["predict"])
                    rates[backend] = (train, predict)
                    rows.append([model, backend, f"{t['epochs'][0]:.1f}", f"{train:,.0f}", f"{predict:,.0f}"])
                fastest.append([model, max(rates, key=lambda b: rates[b][0]), max(rates, key=lambda b: rates[b][1])])
                print(f"  {model} done ({time.time() - started:.0f} s): " + "; ".join(
                    " ".join(row[1:]) for row in rows[-len(rates):]), file=sys.stderr, flush=True)
        finally:
            for w in workers:
                w.close()
    print(table(rows, ["model", "backend", "epoch 1 s", "train ex/s", "predict ex/s"]))
    print()
    print(table(fastest, ["model", "fastest training", "fastest prediction"]))
    print(f"load average after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
