"""One training run: fit on train, select on validation, then (and only then) test.

:func:`train_run` is the single place where the protocol is carried out; the
``train`` command, the table reproductions and the cross-dataset matrix all
call it, so every number in the suite is obtained the same way.
"""
from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from sklearn.utils.class_weight import compute_class_weight
from tqdm import tqdm

from embeddings.matrix import embedding_matrix
from embeddings.vectors import initial_vectors, vectors_path
from experiments.runs import provenance
from experiments.runs.inputs import ModelInputs
from experiments.runs.metrics import best_threshold, score
from experiments.runs.protocol import Splits, TrainConfig, make_splits
from experiments.runs.store import (
    CONFIG,
    HISTORY,
    METRICS,
    MODEL,
    PREDICTIONS,
    RunWriter,
    find_finished,
    history_csv,
    is_finished,
    predictions_tsv,
    read_metrics,
    write_json,
    write_text,
)
from preprocessing.config import PreprocessConfig
from preprocessing.corpora import CORPORA, is_file_corpus
from preprocessing.errors import IsarcasmError
from preprocessing.lexicons import LEXICON_TOKENS
from preprocessing.records import Dataset, Record


@dataclass
class RunResult:
    directory: Path
    metrics: dict
    skipped: bool = False


def data_files(dataset_name: str, data_dir: Path, train: TrainConfig) -> list[Path]:
    """The files a run's numbers depend on (corpus files and the word vectors)."""
    if is_file_corpus(dataset_name) and dataset_name not in CORPORA:
        paths = [Path(dataset_name)]
    else:
        paths = [data_dir / f.path for f in CORPORA.get(dataset_name).files]

    vectors = vectors_path(train.embeddings, data_dir)  # None: random or word2vec, no file
    return paths if vectors is None else [*paths, vectors]


def modified_files(dataset_name: str, checksums: dict[str, str]) -> list[str]:
    """The registered corpus' files whose content differs from the catalog's sha256."""
    if dataset_name not in CORPORA:
        return []
    return [f.path for f in CORPORA.get(dataset_name).files if checksums.get(Path(f.path).name, f.sha256) != f.sha256]


def run_config(dataset: Dataset, model: str, seed: int, train: TrainConfig, preprocess: PreprocessConfig,
               data_dir: Path, splits: Splits, fold: int | None = None) -> dict:
    """The part of config.json that determines the result (and so the config hash).

    A plugin model's origin (its file's sha256, or its package) is part of it,
    so a run of an edited plugin is never taken for the old one.
    """
    from baselines.plugins import origin  # loads TensorFlow: only when a model is needed
    from baselines.registry import MODELS

    plugin = {"model_source": origin(model)} if origin(model) else {}
    spec = MODELS.get(model)
    lexicon = {"lexicon_tokens": LEXICON_TOKENS} if "lexicon" in spec.inputs else {}
    aux = aux_tasks(spec, dataset)
    backend = provenance.keras_backend()
    return {
        **plugin,
        # Another backend gives other numbers: never reuse a TensorFlow run for it (TensorFlow runs keep their hash).
        **({"keras_backend": backend} if backend != "tensorflow" else {}),
        **lexicon,
        **({"aux_tasks": {task: list(classes) for task, classes in aux.items()}} if aux else {}),
        "corpus": dataset.name,
        "model": model,
        "seed": seed,
        **({"fold": fold} if fold is not None else {}),
        "train": train.identity(),
        "preprocess": asdict(preprocess),
        "data_sha256": provenance.checksums(data_files(dataset.name, data_dir, train)),
        "splits": {"train": len(splits.train), "validation": len(splits.validation), "test": len(splits.test),
                   "validation_source": splits.validation_source},
    }


def expected_hash(dataset: Dataset, model: str, seed: int, train: TrainConfig, data_dir: Path,
                  fold: int | None = None) -> str:
    """The configuration hash :func:`train_run` gives this run with the default preprocessing: the
    same wherever the run is stored, so a study can find a finished run without training it."""
    splits = make_splits(dataset, seed, train.validation_fraction, train.max_train, fold)
    preprocess = PreprocessConfig(language=dataset.language)
    return provenance.config_hash(run_config(dataset, model, seed, train, preprocess, data_dir, splits, fold))


def aux_tasks(spec, dataset: Dataset) -> dict[str, tuple[str, ...]]:
    """The auxiliary tasks a run trains beside the label: the corpus' own, for a multi-task model."""
    return dict(dataset.aux_labels) if spec.multitask else {}


def aux_targets(dataset: Dataset, records: list[Record], tasks: dict[str, tuple[str, ...]]) -> dict[str, np.ndarray]:
    """One-hot targets of each auxiliary task; every record must carry them (training and validation do)."""
    out = {task: np.zeros((len(records), len(classes)), dtype="float32") for task, classes in tasks.items()}
    for row, record in enumerate(records):
        labels = dict(record.aux)
        for task in tasks:
            if task not in labels:
                raise IsarcasmError(f"corpus '{dataset.name}': record {record.id} has no '{task}' label for "
                                    "multi-task training")
            out[task][row, labels[task]] = 1.0
    return out


def set_determinism(seed: int) -> None:
    """Same seed, same numbers on CPU: seed every generator (Python, NumPy and the Keras backend's)
    and, on TensorFlow, ask for deterministic ops.  The other backends need no TensorFlow."""
    import keras  # loads the Keras backend: only when a model is needed

    keras.utils.set_random_seed(seed)
    if keras.backend.backend() == "tensorflow":
        import tensorflow as tf  # the backend keras has just loaded

        try:
            tf.config.experimental.enable_op_determinism()
        except (AttributeError, RuntimeError):
            pass


def targets(dataset: Dataset, records: list[Record]) -> np.ndarray:
    """The training targets: one-hot rows, or multi-hot rows for a multi-label corpus."""
    out = np.zeros((len(records), len(dataset.label_names)), dtype="float32")
    for row, record in enumerate(records):
        out[row, list(dataset.labels_of(record))] = 1.0
    return out


def train_run(dataset: Dataset, model: str, seed: int, directory: Path, data_dir: Path,
              train: TrainConfig = TrainConfig(), preprocess: PreprocessConfig | None = None,
              force: bool = False, verbose: int = 2, tensorboard: bool = False, fold: int | None = None,
              twins: tuple[Path, ...] = ()) -> RunResult:
    """Train ``model`` on ``dataset`` with ``seed`` and write the run to ``directory``.

    A finished run with the same configuration is reused (resume), in ``directory`` or else in
    one of ``twins`` (the same run's place in other experiments); ``force`` retrains it in
    ``directory``.  ``fold`` (0-based) trains and tests on an official cross-validation fold
    instead of the corpus' splits.
    """
    from baselines.registry import MODELS  # loads TensorFlow: only when a model is needed

    spec = MODELS.get(model)
    preprocess = preprocess or PreprocessConfig(language=dataset.language)
    splits = make_splits(dataset, seed, train.validation_fraction, train.max_train, fold)
    config = run_config(dataset, model, seed, train, preprocess, data_dir, splits, fold)
    changed = modified_files(dataset.name, config["data_sha256"])
    if changed:
        logging.getLogger(__name__).warning(
            f"{len(changed)} file(s) of '{dataset.name}' differ from the published data ({changed[0]}); "
            "`isarcasm data verify` lists them. The run records their checksums.")
    config_hash = provenance.config_hash(config)
    if not force:
        found = find_finished((directory, *twins), config_hash)
        if found:
            return RunResult(found, read_metrics(found), skipped=True)

    plan = _Plan(dataset, spec, seed, splits, train, preprocess, data_dir, config, config_hash)
    writer = RunWriter(directory, config_hash, force=force or is_finished(directory, config_hash))
    try:
        started = time.time()
        set_determinism(seed)
        data = _inputs(plan)
        network, model_config, coverage = _compile(plan, data, verbose)
        history, selected_epoch = _fit_and_select(plan, network, data, writer, verbose, tensorboard)
        metrics = _write(plan, writer, data, network, model_config, history, selected_epoch, coverage, started)
    except BaseException:
        writer.abort()
        raise
    return RunResult(writer.commit(), metrics)


@dataclass(frozen=True)
class _Plan:
    """What :func:`train_run` settled before training: the run's data, model, settings and identity."""

    dataset: Dataset
    spec: object  # baselines.registry.ModelSpec
    seed: int
    splits: Splits
    train: TrainConfig
    preprocess: PreprocessConfig
    data_dir: Path
    config: dict
    config_hash: str


@dataclass
class _Data:
    """A run's model inputs and targets for each split, and what they were built with."""

    inputs: ModelInputs
    train_texts: list[str]
    x: dict[str, dict[str, np.ndarray]]
    y: dict[str, np.ndarray]       # the label's targets
    y_fit: dict[str, object]       # what fit() gets: ``y``, or per output for a multi-task model
    aux: dict[str, tuple[str, ...]]


def _inputs(plan: _Plan) -> _Data:
    """Fit the inputs on the training split and build every split's inputs and targets."""
    from baselines.config import MAIN_OUTPUT  # loads TensorFlow: only when a model is needed

    dataset, spec, splits, train, preprocess = plan.dataset, plan.spec, plan.splits, plan.train, plan.preprocess
    parts = {"train": splits.train, "validation": splits.validation, "test": splits.test}
    texts = {name: [r.text for r in records] for name, records in parts.items()}
    contexts = {name: [r.context for r in records] for name, records in parts.items()}
    extra = texts["validation"] + texts["test"] if preprocess.unk_scope == "corpus" else None
    inputs = ModelInputs.fit(preprocess, spec.inputs, texts["train"], plan.data_dir, extra_texts=extra,
                             context=train.context, train_contexts=contexts["train"])
    if dataset.multi_label and train.class_weight != "none":
        raise IsarcasmError(f"--class-weight {train.class_weight} is for single-label corpora; "
                            f"'{dataset.name}' is multi-label")
    aux = aux_tasks(spec, dataset)
    if aux and train.class_weight != "none":
        raise IsarcasmError(f"--class-weight is for single-head models; '{spec.name}' trains "
                            f"{', '.join(aux)} heads beside the label on '{dataset.name}'")
    x = {name: inputs.build(texts[name], contexts[name]) for name in parts}
    y = {name: targets(dataset, records) for name, records in parts.items()}
    y_fit = y
    if aux:  # multi-task (Wu et al. 2018): the label plus one softmax per auxiliary task, equal loss weights
        y_fit = {name: {MAIN_OUTPUT: y[name], **aux_targets(dataset, parts[name], aux)}
                 for name in ("train", "validation")}
    return _Data(inputs, texts["train"], x, y, y_fit, aux)


def _compile(plan: _Plan, data: _Data, verbose: int):
    """The model, built on the initial word vectors and compiled with the loss and selection metric;
    also its resolved configuration and the vectors' coverage of the vocabulary."""
    import keras  # loads TensorFlow: only when a model is needed

    from baselines import build_model
    from baselines.config import MAIN_OUTPUT, ModelConfig
    from experiments.runs.selection import selection_metric

    dataset, spec, train, seed = plan.dataset, plan.spec, plan.train, plan.seed
    preprocessor = data.inputs.preprocessor
    vectors = initial_vectors(train.embeddings, plan.data_dir, lambda: preprocessor.tokenize(data.train_texts), seed)
    matrix, coverage = embedding_matrix(preprocessor.vocab, vectors, seed=seed)
    if verbose:
        tqdm.write(f"embeddings: {coverage}")
    num_classes, multi_label = len(dataset.label_names), dataset.multi_label
    model_config = ModelConfig(vocab_size=len(preprocessor.vocab), max_len=preprocessor.max_len,
                               embedding_dim=matrix.shape[1], num_classes=num_classes, multi_label=multi_label,
                               lexicon_dim=data.inputs.lexicon_dim, context_len=data.inputs.context_len,
                               aux_heads={task: len(classes) for task, classes in data.aux.items()})
    network = build_model(spec.name, model_config, embedding_matrix=matrix)
    loss = "binary_crossentropy" if multi_label else "categorical_crossentropy"
    compile_metrics = [selection_metric(num_classes, multi_label, macro=train.select_on == "macro-f1")]
    if data.aux:
        loss = {MAIN_OUTPUT: loss, **{task: "categorical_crossentropy" for task in data.aux}}
        compile_metrics = {MAIN_OUTPUT: compile_metrics}
    network.compile(optimizer=keras.optimizers.Adam(learning_rate=train.learning_rate), loss=loss,
                    metrics=compile_metrics)
    return network, spec.resolve(model_config), coverage


def _fit_and_select(plan: _Plan, network, data: _Data, writer: RunWriter, verbose: int,
                    tensorboard: bool) -> tuple[dict, int]:
    """Fit for ``train.epochs`` and keep the selected epoch's weights; the test split is not seen here."""
    import keras  # loads TensorFlow: only when a model is needed

    from baselines.config import MAIN_OUTPUT
    from experiments.runs.selection import KeepBestEpoch

    train = plan.train
    keeper = KeepBestEpoch(f"val_{MAIN_OUTPUT}_f1" if data.aux else "val_f1")
    callbacks = [keeper]
    if tensorboard:
        callbacks.append(keras.callbacks.TensorBoard(log_dir=str(writer.directory.parent / "tensorboard" /
                                                                 writer.directory.name)))
    num_classes = data.y["train"].shape[1]
    weights = class_weights(data.y["train"].argmax(axis=1), num_classes) if train.class_weight == "balanced" else None
    history = network.fit(data.x["train"], data.y_fit["train"], batch_size=train.batch_size,
                          epochs=train.epochs, validation_data=(data.x["validation"], data.y_fit["validation"]),
                          callbacks=callbacks, verbose=verbose, shuffle=True, class_weight=weights)
    if train.selection == "best":
        network.set_weights(keeper.weights)
        return history.history, keeper.epoch
    return history.history, train.epochs


def _write(plan: _Plan, writer: RunWriter, data: _Data, network, model_config, history: dict, selected_epoch: int,
           coverage, started: float) -> dict:
    """Score validation and test (selection is finished: the test split is used from here on, for
    reporting only) and write the run's files, metrics.json last."""
    from baselines import main_output  # loads TensorFlow: only when a model is needed

    dataset, train, multi_label = plan.dataset, plan.train, plan.dataset.multi_label
    probabilities = {name: main_output(network.predict(data.x[name], batch_size=256, verbose=0))
                     for name in ("validation", "test")}
    metrics = {
        "config_hash": plan.config_hash,
        "corpus": dataset.name,
        "model": plan.spec.name,
        "seed": plan.seed,
        "selected_epoch": selected_epoch,
        "threshold": train.threshold,
        **{name: score(data.y[name], probabilities[name], train.threshold, multi_label)
           for name in ("validation", "test")},
        "embedding_coverage": str(coverage),
        "train_seconds": round(time.time() - started, 1),
    }
    if train.tune_threshold and dataset.is_binary:
        tuned = best_threshold(data.y["validation"].argmax(axis=1), probabilities["validation"][:, 1])
        metrics["tuned_threshold"] = tuned
        metrics["test_tuned_threshold"] = score(data.y["test"], probabilities["test"], tuned, multi_label=False)

    full_config = {
        **plan.config,
        "config_hash": plan.config_hash,
        "experiment_dir": str(writer.directory),
        "model_config": asdict(model_config),
        "label_names": list(dataset.label_names),
        "inputs": data.inputs.describe(),
        **provenance.record(),
    }
    write_json(writer.path(CONFIG), full_config)
    write_text(writer.path(HISTORY), history_csv(main_head_names(history)))
    write_text(writer.path(PREDICTIONS), predictions_tsv([r.id for r in plan.splits.test], data.y["test"],
                                                         probabilities["test"], multi_label))
    data.inputs.save(writer.staging)
    network.save(writer.path(MODEL))
    write_json(writer.path(METRICS), metrics)  # last: its presence marks the run finished
    return metrics


def class_weights(labels: list[int], num_classes: int) -> dict[int, float]:
    """Inverse-frequency weights, n / (classes * count), as scikit-learn's "balanced"."""

    classes = np.arange(num_classes)
    return dict(zip(classes.tolist(), compute_class_weight("balanced", classes=classes, y=np.asarray(labels)).tolist()))


def main_head_names(history: dict) -> dict:
    """Keras logs a multi-task model's main head as ``label_f1``/``val_label_f1``: store them as
    ``f1``/``val_f1``, the names every run's history uses (the per-head losses keep theirs)."""
    from baselines.config import MAIN_OUTPUT  # loads TensorFlow: only when a model is needed

    prefix = f"{MAIN_OUTPUT}_f1"
    return {key.replace(prefix, "f1") if key.endswith(prefix) else key: values for key, values in history.items()}
