"""Every model on the Keras backend this process runs on: build, train, predict, save, reload.

Run by ``tests/experiments/runs/test_backends.py`` once per backend, in a subprocess (``KERAS_BACKEND`` is read
when Keras is imported and cannot change afterwards)::

    KERAS_BACKEND=jax python tests/backend_check.py REPORT.json WORKDIR

For each model it trains one epoch on a toy task, predicts, saves a ``.keras`` file, loads it
back with ``safe_mode`` and predicts again; then it runs one ``isarcasm train`` end to end on
the toy corpus.  Each check's outcome (``ok`` or the error) goes to REPORT.json, so one
failing model does not hide the others.
"""
from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE), str(HERE / "baselines")]

import keras  # noqa: E402  (after the path: the checkout's packages, not an installed copy)
import numpy as np  # noqa: E402
from experiments.runs.one.spec import RunSpec
from test_models import model_inputs, pad, small_config, toy_task  # noqa: E402
from toy_corpus import write_corpus  # noqa: E402

from baselines import build_model, load_model, main_output  # noqa: E402

CLASSIC = ["lstm", "att-lstm", "cnn", "3cnn", "siarn", "miarn", "dense-lstm"]
#: (check name, model, extra ModelConfig fields): the seven models, a context-aware and a multi-task one.
CASES = [(name, name, {}) for name in CLASSIC] + [
    ("siarn+context", "siarn", {"context_len": 6}),
    ("dense-lstm+multitask", "dense-lstm", {"aux_heads": {"aux": 3}}),
]
#: Texts of one word to the full length, and one that is all padding (an emoticon-only tweet).
SAMPLE_TEXTS = [[7], [5, 3], [2, 9, 4, 4, 8, 6, 3], [3, 4, 5, 6, 7, 8, 9, 10, 11, 12], []]


def data(name: str, extra: dict, texts, labels) -> tuple[dict, object]:
    """The inputs (with a context and a lexicon where the model reads them) and fit() targets."""
    tokens = texts if isinstance(texts, np.ndarray) else pad(texts, 10)
    inputs = model_inputs(name, tokens)
    if extra.get("context_len"):
        inputs["context"] = np.flip(tokens[:, : extra["context_len"]], axis=0).copy()
    if labels is None:
        return inputs, None
    if extra.get("aux_heads"):
        return inputs, {"label": labels, "aux": labels % 3}
    return inputs, labels


def check_model(name: str, extra: dict, directory: Path) -> dict:
    keras.utils.set_random_seed(0)
    model = build_model(name, small_config(num_classes=2, **extra))
    loss = "sparse_categorical_crossentropy"
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01),
                  loss={"label": loss, "aux": loss} if extra.get("aux_heads") else loss)
    x, y = data(name, extra, *toy_task(96, np.random.default_rng(1)))
    started = time.perf_counter()
    history = model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    loss_value = float(history.history["loss"][-1])
    sample, _ = data(name, extra, SAMPLE_TEXTS, None)
    expected = main_output(model.predict(sample, verbose=0))
    assert expected.shape == (len(SAMPLE_TEXTS), 2), expected.shape
    assert np.isfinite(expected).all() and np.isfinite(loss_value), (expected, loss_value)
    np.testing.assert_allclose(expected.sum(axis=1), 1.0, atol=1e-5)
    # Padded before the words (what cuDNN's LSTM kernel cannot take) gives the same probabilities.
    pre_padded = {**sample, "tokens": pad(SAMPLE_TEXTS, 10, pre=True)}
    np.testing.assert_allclose(main_output(model.predict(pre_padded, verbose=0)), expected, atol=1e-5)
    path = directory / f"{name}{'-' + '-'.join(extra) if extra else ''}.keras"
    model.save(path)
    loaded = load_model(path)
    np.testing.assert_array_equal(main_output(loaded.predict(sample, verbose=0)), expected)
    return {"loss": loss_value, "seconds": round(time.perf_counter() - started, 2)}


def check_random_initial_state(directory: Path) -> dict:
    """--initial-state random: states within ±0.01, new in every batch of training and prediction, and
    a saved model that draws the same ones each time it is loaded."""
    from test_initial_state import built, initial_states, predict

    from baselines.layers import INITIAL_STATE_SCALE, RandomStateLSTM

    model = built("lstm", "random")
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(*data("lstm", {}, *toy_task(96, np.random.default_rng(1))), batch_size=32, epochs=1, verbose=0)
    first = predict(model)
    assert np.isfinite(first).all() and not np.array_equal(predict(model), first)
    directory.mkdir(parents=True, exist_ok=True)
    model.save(directory / "random-state.keras")
    np.testing.assert_array_equal(*(predict(load_model(directory / "random-state.keras")) for _ in range(2)))
    layer = RandomStateLSTM(4, return_state=True)
    states, again = initial_states(layer), initial_states(layer, training=True)
    assert 0 < np.abs(states).max() <= INITIAL_STATE_SCALE and not np.array_equal(states, again)
    return {}


def check_train_command(directory: Path) -> dict:
    """``isarcasm train`` end to end on the toy corpus; the run records the backend."""
    from click.testing import CliRunner  # only this check uses the CLI

    from experiments.cli import main

    directory.mkdir(parents=True, exist_ok=True)
    corpus = write_corpus(directory / "toy.csv")
    args = ["--backend", keras.backend.backend(), "train", "--corpus", str(corpus), "--split-col", "split",
            "--model", "lstm", "--epochs", "1", "--set", "embeddings=random", "--output-dir", str(directory / "runs")]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    path = next((directory / "runs").rglob("config.json"))
    config = json.loads(path.read_text())
    return {"keras_backend": config["versions"]["keras_backend"], "hashed_backend": config.get("keras_backend"),
            "experiment": path.relative_to(directory / "runs").parts[0], "output": result.output[-300:]}


def check_tensorflow_run_not_reused(directory: Path) -> dict:
    """The TensorFlow run of tests/fixtures has another configuration hash here: it is not taken for this backend's."""
    from experiments.runs.one.protocol import TrainConfig  # only this check needs them
    from experiments.runs.one.training import expected_hash
    from preprocessing.corpora import load_corpus

    old_run = HERE / "fixtures" / "run-094c709"
    directory.mkdir(parents=True, exist_ok=True)
    os.chdir(directory)  # the corpus file's name, as given, is part of the hash: 'toy.csv' as the fixture has it
    write_corpus(Path("toy.csv"))
    dataset = load_corpus("toy.csv", Path("."), split_col="split")
    recorded = json.loads((old_run / "metrics.json").read_text())["config_hash"]
    settings = TrainConfig(epochs=1, batch_size=32, embeddings="random")
    return {"same_hash": expected_hash(RunSpec(dataset.name, "lstm", 0, settings), dataset, Path(".")) == recorded}


def main() -> None:
    report_path, directory = Path(sys.argv[1]), Path(sys.argv[2])
    directory.mkdir(parents=True, exist_ok=True)
    report = {"backend": keras.backend.backend(), "checks": {}}
    checks = [(case, check_model, (model, extra, directory)) for case, model, extra in CASES]
    checks.append(("random initial state", check_random_initial_state, (directory / "random-state",)))
    checks.append(("isarcasm train", check_train_command, (directory / "train",)))
    checks.append(("tensorflow run not reused", check_tensorflow_run_not_reused, (directory / "hash",)))
    for case, function, args in checks:
        try:
            report["checks"][case] = {"ok": True, **function(*args)}
        except Exception:  # noqa: BLE001 - the report says which check failed and why
            report["checks"][case] = {"ok": False, "error": traceback.format_exc()[-3000:]}
        report_path.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
