"""One training run: fit on train, select on validation, then (and only then) test.

:func:`train_run` is the single place where the protocol is carried out; the
``train`` command, the table reproductions and the cross-dataset matrix all
call it, so every number in the suite is obtained the same way.
"""
from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

import numpy as np
from sklearn.utils.class_weight import compute_class_weight
from tqdm import tqdm

from embeddings.matrix import embedding_matrix, uniform_oov
from embeddings.vectors import WORD2VEC, initial_vectors, vectors_path
from experiments.runs.one import provenance
from experiments.runs.console import chatty
from experiments.runs.one.footprint import RunMeter, texts_per_second, timed
from experiments.runs.one.inputs import FitTexts, ModelInputs
from experiments.runs.one.metrics import NonFinite, best_threshold, score
from experiments.runs.one.protocol import CLASS_RATIO, THRESHOLD_RULES, Splits, TrainConfig, make_splits
from experiments.runs.one.spec import RunOptions, RunPlace, RunSpec
from experiments.runs.one.store import (CONFIG, EPOCHS, FAILED, HISTORY, METRICS, MODEL, PREDICTIONS, RunFiles,
                                        RunResult, RunStore, RunWriter, weights_file, write_json, write_text)
from experiments.runs.one.outputs import history_csv, predictions_tsv
from experiments.runs.one.trajectory import choose_in, save_record
from preprocessing.checksums import file_checksums
from preprocessing.config import PreprocessConfig
from preprocessing.corpora import CORPORA, is_file_corpus
from preprocessing.errors import IsarcasmError
from preprocessing.lexicons import LEXICON_TOKENS
from preprocessing.limits import check_memory
from preprocessing.pipeline import Preprocessor
from preprocessing.records import Dataset, Record


@dataclass(frozen=True)
class Resources:
    """What a run on another machine uses instead of this machine's data directory (see
    :mod:`experiments.runs.many.cluster`): the driver reads the data files once and ships them.

    ``data_sha256`` are the run's data files' checksums (config.json's ``data_sha256``), ``vectors``
    the loaded word vectors (``None`` for ``random``; ``word2vec`` is trained by the run itself),
    ``lexicons`` the loaded lexicons (``None`` unless a model reads them).  ``record`` replaces
    entries of the provenance record (the driver's command and commit: its code was shipped) and
    ``node`` is added to the machine record (which node trained the run).
    """

    data_sha256: dict[str, str]
    vectors: object = None  # gensim KeyedVectors
    lexicons: object = None  # preprocessing.lexicons.LexiconFeaturizer
    record: dict | None = None
    node: dict | None = None

    def provenance(self) -> dict:
        record = {**provenance.record(), **(self.record or {})}
        if self.node:
            record["machine"] = {**record["machine"], "node": self.node}
        return record


def data_files(dataset_name: str, data_dir: Path, train: TrainConfig) -> list[Path]:
    """The files a run's numbers depend on (corpus files and the word vectors)."""
    vectors = vectors_path(train.embeddings, data_dir)  # None: random or word2vec, no file
    if is_file_corpus(dataset_name) and dataset_name not in CORPORA:
        paths = [Path(dataset_name)]
    else:
        paths = [data_dir / f.path for f in CORPORA.get(dataset_name).files]
    return paths if vectors is None else [*paths, vectors]


def data_checksums(dataset_name: str, data_dir: Path, train: TrainConfig) -> dict[str, str]:
    """config.json's ``data_sha256``: the content sha256 of each file a run's numbers depend on."""
    files = data_files(dataset_name, data_dir, train)
    return file_checksums(files)


def modified_files(dataset_name: str, checksums: dict[str, str]) -> list[str]:
    """The registered corpus' files whose content differs from the catalog's sha256."""
    if dataset_name not in CORPORA:
        return []
    return [f.path for f in CORPORA.get(dataset_name).files if checksums.get(Path(f.path).name, f.sha256) != f.sha256]


#: The engine's revision (:data:`~experiments.runs.one.protocol.ENGINE`), part of its runs' identity so that runs
#: of an earlier one are never reused: 2 since its shuffled batches are drawn as Keras draws them (once per run on
#: TensorFlow) and fit() keeps a batch's pieces together (docs/protocol.md#shuffled-once); 1 (no key) before.
FAST_ENGINE_REVISION = 2


def run_config(run: RunSpec, dataset: Dataset, splits: Splits, data_sha256: dict[str, str]) -> dict:
    """The part of config.json that determines the result (and so the config hash).

    A plugin model's origin (its file's sha256, or its package) is part of it,
    so a run of an edited plugin is never taken for the old one.  ``data_sha256``: the data
    files' checksums (:func:`data_checksums`, or taken on the driver for a run on another machine).
    """
    from baselines.plugins import origin  # with installed plugins: imported where used
    from baselines.registry import MODELS

    model, seed, fold, train = run.model, run.seed, run.fold, run.train
    plugin = {"model_source": origin(model)} if origin(model) else {}
    spec = MODELS.get(model)
    lexicon = {"lexicon_tokens": LEXICON_TOKENS} if "lexicon" in spec.inputs else {}
    aux = aux_tasks(spec, dataset)
    backend = provenance.other_backend()
    return {
        **plugin,
        # Another backend gives other numbers: never reuse a TensorFlow run for it (TensorFlow runs keep their hash).
        **({"keras_backend": backend} if backend else {}),
        "fast_engine_revision": FAST_ENGINE_REVISION,  # nor a run of an earlier revision
        **lexicon,
        **({"aux_tasks": {task: list(classes) for task, classes in aux.items()}} if aux else {}),
        "corpus": dataset.name,
        "model": model,
        "seed": seed,
        **({"fold": fold} if fold is not None else {}),
        "train": train.identity(),
        "preprocess": asdict(run.preprocessing(dataset)),
        "data_sha256": data_sha256,
        "splits": {"train": len(splits.train), "validation": len(splits.validation), "test": len(splits.test),
                   "validation_source": splits.validation_source},
    }


def expected_hash(run: RunSpec, dataset: Dataset, data_dir: Path) -> str:
    """The configuration hash :func:`train_run` gives this run: the same wherever the run is
    stored, so a study can find a finished run without training it."""
    return provenance.config_hash(run_config(run, dataset, run_splits(run, dataset),
                                             data_checksums(dataset.name, data_dir, run.train)))


def run_splits(run: RunSpec, dataset: Dataset) -> Splits:
    """The run's splits as the corpus gives them (:func:`make_splits`): what it learns from and is scored on."""
    train = run.train
    return make_splits(dataset, run.seed, train.validation_fraction, train.max_train, run.fold)


def token_counts(records: list[Record], preprocess: PreprocessConfig) -> list[int]:
    """How many tokens each record's text has, in this project's tokens (what the length rules count)."""
    return list(map(len, Preprocessor(preprocess).tokenize([r.text for r in records])))


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


def train_run(run: RunSpec, dataset: Dataset, place: RunPlace, data_dir: Path,
              options: RunOptions = RunOptions()) -> RunResult:
    """Train ``run`` on ``dataset`` (its corpus, loaded) and write it to ``place.directory``.

    A finished run with the same configuration is reused (resume), in ``place.directory`` or else the
    one ``place`` found elsewhere; ``options.force`` retrains it in ``place.directory``.  So is a failed
    one: a run whose loss, weights or probabilities became non-finite is stored with failed.json
    instead of metrics.json and returned with its :attr:`RunResult.failure`; running it again
    reports the same failure without training (same seed, same numbers) until ``options.force``
    trains it again.
    """
    plan = _plan(run, dataset, data_dir)
    return RunStore.produce(place, plan.config_hash, partial(_train, plan, options=options), options.force)


def train_detached(run: RunSpec, dataset: Dataset, directory: Path, staging: Path, resources: Resources,
                   options: RunOptions = RunOptions(verbose=0)) -> RunFiles:
    """Train a run whose home is ``directory`` in another machine's store, in ``staging`` here.

    The run reads nothing from a data directory (``resources`` holds what it needs) and writes
    nothing outside ``staging``; its files come back as :class:`RunFiles` for the driver to store
    with :meth:`RunStore.produce` (see :meth:`RunFiles.write`), which makes them the same run, in the same
    place, as :func:`train_run` would have written.
    """
    plan = _plan(run, dataset, Path(), resources)
    writer = RunWriter.detached(directory, plan.config_hash, staging)
    with writer.writing():
        metrics = _train(plan, writer, options)
    return RunFiles.collect(writer, metrics)


def run_inputs(run: RunSpec, dataset: Dataset, data_dir: Path) -> "_Data":
    """The inputs and targets ``run`` trains and is scored on, built as :func:`train_run` builds them,
    nothing trained: what a setting such as ``--min-train-tokens`` changes can be read here."""
    return _inputs(_plan(run, dataset, data_dir))


def _plan(run: RunSpec, dataset: Dataset, data_dir: Path, resources: Resources | None = None) -> "_Plan":
    """Settle a run before training: its splits, configuration and hash."""
    from baselines.registry import MODELS  # with installed plugins: imported where used

    spec, train = MODELS.get(run.model), run.train
    splits = run_splits(run, dataset)
    dataset.check_learnable(splits.train, splits.validation)
    checksums = resources.data_sha256 if resources else data_checksums(dataset.name, data_dir, train)
    config = run_config(run, dataset, splits, checksums)
    changed = modified_files(dataset.name, config["data_sha256"])
    if changed:
        logging.getLogger(__name__).warning(
            f"{len(changed)} file(s) of '{dataset.name}' differ from the published data ({changed[0]}); "
            "`isarcasm data verify` lists them. The run records their checksums.")
    return _Plan(dataset, spec, run.seed, splits, train, run.preprocessing(dataset), data_dir, config,
                 provenance.config_hash(config), resources)


def _train(plan: "_Plan", writer: RunWriter, options: RunOptions) -> dict:
    """Train the planned run into ``writer``'s staging folder; its metrics, or the failure record
    when training met a non-finite loss, weights or probabilities."""
    meter = RunMeter()
    set_determinism(plan.seed)
    data = meter.apart(lambda: _inputs(plan))  # tokenising: one-time work, not training
    verbose = options.verbose if chatty() else 0  # -q: results and errors only
    built = _compile(plan, data, verbose, meter)
    try:
        fitted = _fit_and_select(plan, built.network, data, verbose,
                                 writer.tensorboard_dir() if options.tensorboard else None)
        return _write(plan, writer, data, built, fitted, meter)
    except NonFinite as exc:
        failure = {"config_hash": plan.config_hash, "corpus": plan.dataset.name, "model": plan.spec.name,
                   "seed": plan.seed, "failed": str(exc), "train_seconds": meter.seconds()}
        write_json(writer.path(FAILED), failure)
        return failure


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
    resources: Resources | None = None  # trained on another machine: what it gets instead of data_dir


@dataclass
class _Data:
    """A run's model inputs and targets for each split, and what they were built with."""

    inputs: ModelInputs
    train_texts: list[str]
    x: dict[str, dict[str, np.ndarray]]
    y: dict[str, np.ndarray]       # the label's targets
    y_fit: dict[str, object]       # what fit() gets: ``y``, or per output for a multi-task model
    aux: dict[str, tuple[str, ...]]
    corpus_order: np.ndarray       # each training text's position in the corpus (the authors' batches read it)


def _inputs(plan: _Plan) -> _Data:
    """Fit the inputs on the training split and build every split's inputs and targets."""
    from baselines.config import MAIN_OUTPUT  # with installed plugins: imported where used

    dataset, spec, splits, train, preprocess = plan.dataset, plan.spec, plan.splits, plan.train, plan.preprocess
    parts = {"train": _long_enough(plan), "validation": splits.validation, "test": splits.test}
    texts = {name: [r.text for r in records] for name, records in parts.items()}
    contexts = {name: [r.context for r in records] for name, records in parts.items()}
    drop_rare = train.vocabulary == "all-splits-drop"
    extra = texts["validation"] + texts["test"] if preprocess.unk_scope == "corpus" or drop_rare else None
    fit_texts = FitTexts(texts["train"], contexts["train"], extra, drop_rare)
    inputs = ModelInputs.fit(preprocess, spec.inputs, fit_texts, plan.data_dir,
                             context=train.context, lexicons=plan.resources.lexicons if plan.resources else None)
    if dataset.multi_label and train.class_weight != "none":
        raise IsarcasmError(f"class_weight {train.class_weight} is for single-label corpora; "
                            f"'{dataset.name}' is multi-label")
    aux = aux_tasks(spec, dataset)
    if aux and train.class_weight != "none":
        raise IsarcasmError(f"class_weight is for single-head models; '{spec.name}' trains "
                            f"{', '.join(aux)} heads beside the label on '{dataset.name}'")
    x = {name: inputs.build(texts[name], contexts[name], train.cut_train_tokens if name == "train" else None)
         for name in parts}
    y = {name: targets(dataset, records) for name, records in parts.items()}
    y_fit = y
    if aux:  # multi-task (Wu et al. 2018): the label plus one softmax per auxiliary task, equal loss weights
        y_fit = {name: {MAIN_OUTPUT: y[name], **aux_targets(dataset, parts[name], aux)}
                 for name in ("train", "validation")}
    position = {record.id: index for index, record in enumerate(dataset.records)}
    order = np.array([position[record.id] for record in parts["train"]])
    return _Data(inputs, texts["train"], x, y, y_fit, aux, order)


def _long_enough(plan: _Plan) -> list[Record]:
    """The training records a run learns from: every one, or with ``--min-train-tokens N`` those of at
    least N tokens (the iSarcasm authors' ``min_doc_len``; their lengths are counted in this
    project's tokens).  Validation and test records are never dropped: the test set stays the published one."""
    records, least = plan.splits.train, plan.train.min_train_tokens
    if least is None:
        return records
    lengths = token_counts(records, plan.preprocess)
    kept = [record for record, length in zip(records, lengths) if length >= least]
    if not kept:
        raise IsarcasmError(f"min_train_tokens {least} drops every training text of '{plan.dataset.name}' (the "
                            f"longest has {max(lengths)} tokens); lower it")
    plan.dataset.check_learnable(kept, plan.splits.validation)
    return kept


@dataclass
class _Built:
    """The compiled network, its resolved configuration, and the word vectors' coverage of the vocabulary."""

    network: object  # keras.Model
    model_config: object  # baselines.config.ModelConfig
    coverage: object  # embeddings.matrix.Coverage


def _compile(plan: _Plan, data: _Data, verbose: int, meter: RunMeter) -> _Built:
    """The model, built on the initial word vectors and compiled with the loss and selection metric.
    Reading a vectors file is one-time work on ``meter``; word2vec, trained by the run, is training."""
    import keras  # loads TensorFlow: only when a model is needed

    from baselines import build_model
    from baselines.config import MAIN_OUTPUT, ModelConfig
    from experiments.runs.one.selection import selection_metric

    dataset, spec, train, seed = plan.dataset, plan.spec, plan.train, plan.seed
    preprocessor = data.inputs.preprocessor
    if plan.resources is not None and str(train.embeddings) != WORD2VEC:
        vectors = plan.resources.vectors  # loaded by the driver (see Resources)
    else:
        load = partial(initial_vectors, train.embeddings, plan.data_dir,
                       lambda: preprocessor.tokenize(data.train_texts), seed)
        vectors = load() if str(train.embeddings) == WORD2VEC else meter.apart(load)
    matrix, coverage = embedding_matrix(preprocessor.vocab, vectors, seed=seed)
    if train.oov_init == "uniform":
        matrix = uniform_oov(matrix, preprocessor.vocab, vectors, seed)
    if verbose:
        tqdm.write(f"embeddings: {coverage}")
    num_classes, multi_label = len(dataset.label_names), dataset.multi_label
    model_config = ModelConfig(vocab_size=len(preprocessor.vocab), max_len=preprocessor.max_len,
                               embedding_dim=matrix.shape[1], num_classes=num_classes, multi_label=multi_label,
                               lexicon_dim=data.inputs.lexicon_dim, context_len=data.inputs.context_len,
                               aux_heads={task: len(classes) for task, classes in data.aux.items()},
                               initial_state=train.initial_state, dropout=train.dropout)
    batch = min(train.batch_size, len(data.train_texts))  # Keras never makes a batch larger than the data
    check_memory(f"training {spec.name} ({len(preprocessor.vocab):,} words x {matrix.shape[1]} dimensions, max_len "
                 f"{preprocessor.max_len:,}, batch {batch:,})", model_config.training_bytes(batch, spec.pairwise),
                 "lower --max-len or --batch-size")
    network = build_model(spec.name, model_config, embedding_matrix=matrix)
    loss = "binary_crossentropy" if multi_label else "categorical_crossentropy"
    compile_metrics = [selection_metric(num_classes, multi_label, train.select_on)]
    if data.aux:
        loss = {MAIN_OUTPUT: loss, **{task: "categorical_crossentropy" for task in data.aux}}
        compile_metrics = {MAIN_OUTPUT: compile_metrics}
    optimizer = training_optimizer(train, batch, num_classes, data.x["train"])
    network.compile(optimizer=optimizer, loss=loss, metrics=compile_metrics)
    return _Built(network, spec.resolve(model_config), coverage)


@dataclass
class _Fitted:
    """What training left: Keras' history, the selected epoch (its weights are the network's), the
    per-epoch record, and the weights of the epochs other rules chose (rule -> weights)."""

    history: dict
    selected_epoch: int
    recorder: object  # experiments.runs.one.selection.EpochRecorder
    other_weights: dict


#: The pieces a training batch is computed in (see :class:`baselines.batching.SplitBatches`; measured in
#: docs/results/speed.md).
PIECES = 2


def training_optimizer(train: TrainConfig, batch: int, classes: int, inputs: dict):
    """Adam, making one update per batch: over the batch's pieces on TensorFlow,
    :class:`~baselines.optimizers.PieceAdam` (the word vectors' gradient stays slice by slice, as
    the padded batch's is), its buffers sized for the largest batch the run's batching can draw
    (:func:`~baselines.batching.largest_batch`); on JAX and torch, whose gradients are dense either way,
    Keras' own gradient accumulation."""
    import keras  # loads TensorFlow: only when a model is trained

    pieces, settings = _pieces(train), dict(learning_rate=train.learning_rate, global_clipnorm=train.clip_global_norm)
    if pieces == 1:
        return keras.optimizers.Adam(**settings)
    if keras.backend.backend() != "tensorflow":
        return keras.optimizers.Adam(**settings, gradient_accumulation_steps=pieces)
    from baselines.batching import SEQUENCE_INPUTS, largest_batch  # TensorFlow-only pieces: imported where used
    from baselines.optimizers import PieceAdam  # likewise

    positions = sum(values.shape[1] + 1 for name, values in inputs.items() if name in SEQUENCE_INPUTS)
    rows = largest_batch(train.batching, batch, classes)
    return PieceAdam(pieces, capacity=(pieces - 1) * -(-rows // pieces) * positions, **settings)


def _pieces(train: TrainConfig) -> int:
    """Length-sorted pieces a training batch is computed in: 1 for bucket batches (already cut to their length)."""
    return PIECES if train.batching != "bucket" else 1


def _fit_and_select(plan: _Plan, network, data: _Data, verbose: int, tensorboard_dir: Path | None) -> _Fitted:
    """Fit for ``train.epochs`` and keep the selected epoch's weights.  The validation and test
    probabilities of every epoch are recorded; only the validation ones choose anything, by the same
    function that applies a rule to a finished run's record (:func:`~experiments.runs.one.trajectory.choose`)."""
    import keras  # loads TensorFlow: only when a model is needed

    from baselines.batching import cut_inputs
    from baselines.config import MAIN_OUTPUT  # with installed plugins: imported where used
    from experiments.runs.one.selection import EpochRecorder, StopOnNonFinite, ValidationLogs

    train, multi_label = plan.train, plan.dataset.multi_label
    monitor = f"val_{MAIN_OUTPUT}_f1" if data.aux else "val_f1"
    recorder = EpochRecorder({name: data.x[name] for name in ("validation", "test")},
                             {name: data.y[name] for name in ("validation", "test")},
                             ValidationLogs(monitor, data.y_fit["validation"], multi_label, train.select_on),
                             keep=("best", "grid") if plan.dataset.is_binary else ("best",),
                             threshold=train.threshold, select_on=train.select_on)
    callbacks = [StopOnNonFinite(), recorder]
    if tensorboard_dir is not None:
        callbacks.append(keras.callbacks.TensorBoard(log_dir=str(tensorboard_dir)))
    if train.batching in CLASS_RATIO and multi_label:
        raise IsarcasmError(f"batching {train.batching} keeps one label's class ratio; '{plan.dataset.name}' is "
                            "multi-label")
    history = network.fit(**fit_data(plan, data, cut_inputs(network)), epochs=train.epochs, callbacks=callbacks,
                          verbose=verbose)
    kept = {"last": (network.get_weights(), train.epochs),
            **{rule: (recorder.weights[rule], recorder.epochs[rule]) for rule in recorder.keep}}
    own = "best" if train.selection == "tuned" else train.selection  # tuned: best's epoch, another threshold
    network.set_weights(kept[own][0])
    return _Fitted(history.history, kept[own][1], recorder,
                   {rule: weights for rule, (weights, _) in kept.items() if rule != own})


def fit_data(plan: _Plan, data: _Data, cut: tuple[str, ...] | None = None) -> dict:
    """What fit() trains on (its ``x``, ``y``, ``batch_size``, ``shuffle``, ``class_weight``).

    :class:`~baselines.batching.SplitBatches` (each batch computed as length-sorted pieces, :func:`_draw`
    gives the batches) in their own order: fit() must not shuffle them, a batch's pieces being consecutive
    steps of one update; ``cut``: the inputs its pieces are cut in (:func:`~baselines.batching.cut_inputs`;
    default: every sequence input), their class weights the pieces' row weights.  ``--batching bucket``:
    :class:`~baselines.batching.LengthBuckets`, with fit()'s class weights."""
    from baselines.batching import LengthBuckets, SplitBatches  # loads TensorFlow: only to train

    train, x, y = plan.train, data.x["train"], data.y_fit["train"]
    labels = data.y["train"].argmax(axis=1)
    weights = class_weights(labels, data.y["train"].shape[1]) if train.class_weight == "balanced" else None
    if train.batching == "bucket":
        return dict(x=LengthBuckets(x, y, train.batch_size, plan.seed), class_weight=weights)
    draw = _draw(train, labels, data.corpus_order)
    row_weights = None if weights is None else np.asarray([weights[label] for label in labels], "float32")
    batches = SplitBatches(x, y, draw, _pieces(train), plan.seed, row_weights)
    if cut is not None:  # else SplitBatches' default, every sequence input
        batches.cut = cut
    return dict(x=batches, shuffle=False)


def _draw(train: TrainConfig, labels: np.ndarray, order: np.ndarray):
    """Each epoch's batches, as ``draw(rng)`` gives their rows (see :mod:`baselines.batching`); ``order``:
    each training text's position in the corpus.  ``shuffled`` batches are drawn as Keras' seeded
    ``fit(shuffle=True)`` draws them: on TensorFlow one permutation, the same batches in the same order every
    epoch (its seeded shuffle starts again with each epoch's pass over the data), on the other backends a new
    one every epoch, and every epoch on every backend under ``--batch-order each-epoch``; class-ratio batches
    come in a new order every epoch, as fit() would put them (docs/protocol.md#shuffled-once)."""
    import keras  # loads TensorFlow: only when a model is trained

    from baselines.batching import (
        batches_per_epoch, class_ratio_once_rows, class_ratio_rows, formed_once, in_new_order, shuffled_rows)

    if train.batching == "shuffled":
        draw = partial(shuffled_rows, size=len(labels), batch_size=train.batch_size)
        return formed_once(draw) if keras.backend.backend() == "tensorflow" and train.batch_order == "once" else draw
    if train.batching == "class-ratio":
        draw = partial(class_ratio_rows, labels=labels, count=batches_per_epoch(len(labels), train.batch_size))
    else:
        draw = formed_once(partial(class_ratio_once_rows, labels=labels, order=order, batch_size=train.batch_size))
    return in_new_order(draw)


def _write(plan: _Plan, writer: RunWriter, data: _Data, built: _Built, fitted: _Fitted, meter: RunMeter) -> dict:
    """Score validation and test (selection is finished: the test split is used from here on, for
    reporting only) and write the run's files, metrics.json last."""
    from baselines import main_output  # with installed plugins: imported where used
    from baselines.batching import predict_by_length

    dataset, train, multi_label, network = plan.dataset, plan.train, plan.dataset.multi_label, built.network
    trajectory = fitted.recorder.trajectory()
    threshold = train.threshold
    if train.selection in THRESHOLD_RULES:  # the rule's threshold, chosen on validation data
        threshold = choose_in(trajectory, train.selection, train.threshold, train.select_on).threshold
    # predicted as the per-epoch record was
    probabilities = {"validation": main_output(predict_by_length(network, data.x["validation"]))}
    test, test_seconds = timed(lambda: predict_by_length(network, data.x["test"]))
    probabilities["test"] = main_output(test)
    metrics = {
        "config_hash": plan.config_hash,
        "corpus": dataset.name,
        "model": plan.spec.name,
        "seed": plan.seed,
        "selection": train.selection,
        "selected_epoch": fitted.selected_epoch,
        "threshold": threshold,
        **{name: score(data.y[name], probabilities[name], threshold, multi_label)
           for name in ("validation", "test")},
        "embedding_coverage": str(built.coverage),
        "train_seconds": meter.seconds(),
        "setup_seconds": meter.setup_seconds(),  # reading word vectors, tokenising: see runs/one/footprint.py
        # from token ids: the spaCy preprocessing, shared by the seven models, is not in this figure
        "predict_texts_per_second": texts_per_second(len(plan.splits.test), test_seconds),
        "peak_memory_mb": meter.peak_mb(),
    }
    if train.tune_threshold and dataset.is_binary:
        tuned = best_threshold(data.y["validation"].argmax(axis=1), probabilities["validation"][:, 1])
        metrics["tuned_threshold"] = tuned
        metrics["test_tuned_threshold"] = score(data.y["test"], probabilities["test"], tuned, multi_label=False)

    full_config = {
        **plan.config,
        "config_hash": plan.config_hash,
        "experiment_dir": str(writer.directory),
        "model_config": asdict(built.model_config),
        "label_names": list(dataset.label_names),
        "inputs": data.inputs.describe(),
        **(plan.resources.provenance() if plan.resources else provenance.record()),
    }
    write_json(writer.path(CONFIG), full_config)
    write_text(writer.path(HISTORY), history_csv(main_head_names(fitted.history)))
    save_record(writer.path(EPOCHS), trajectory)
    write_text(writer.path(PREDICTIONS), predictions_tsv([r.id for r in plan.splits.test], data.y["test"],
                                                         probabilities["test"], multi_label))
    data.inputs.save(writer.staging)
    network.save(writer.path(MODEL))
    for rule, weights in fitted.other_weights.items():  # the epochs other rules chose, loadable into model.keras
        network.set_weights(weights)
        network.save_weights(writer.path(weights_file(rule)))
    write_json(writer.path(METRICS), metrics)  # last: its presence marks the run finished
    return metrics


def class_weights(labels: list[int], num_classes: int) -> dict[int, float]:
    """Inverse-frequency weights, n / (classes * count), as scikit-learn's "balanced"."""

    classes = np.arange(num_classes)
    return dict(zip(classes.tolist(), compute_class_weight("balanced", classes=classes, y=np.asarray(labels)).tolist()))


def main_head_names(history: dict) -> dict:
    """Keras logs a multi-task model's main head as ``label_f1``/``val_label_f1``: store them as
    ``f1``/``val_f1``, the names every run's history uses (the per-head losses keep theirs)."""
    from baselines.config import MAIN_OUTPUT  # with installed plugins: imported where used

    prefix = f"{MAIN_OUTPUT}_f1"
    return {key.replace(prefix, "f1") if key.endswith(prefix) else key: values for key, values in history.items()}
