"""Using a finished run: predict new text, evaluate on any corpus' test split.

A run directory carries everything needed: the model, the fitted
preprocessing (vocabulary, max_len, lexicon scaling) and the label names.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from experiments.runs.one import provenance
from preprocessing.checksums import file_checksums
from experiments.runs.one.inputs import ModelInputs
from experiments.runs.one.metrics import predict_labels, recorded_problem, require_finite, score
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.one.store import (CONFIG, ENTRANT, MODEL, evaluation_paths, read_config, recorded_hash,
                                        require_finished, write_json, write_text)
from experiments.runs.one.outputs import load_estimator_file, predictions_tsv
from experiments.runs.one.training import targets
from preprocessing.corpora import CORPORA, is_file_corpus
from preprocessing.errors import DataError, IsarcasmError
from preprocessing.fileio import content_sha256, load_json
from preprocessing.model_file import check_model_file
from preprocessing.records import Dataset, Record


@dataclass
class TrainedRun:
    directory: Path
    config: dict
    model: object
    inputs: ModelInputs
    #: The data directory the run was loaded with (where a registered corpus' files are checksummed).
    data_dir: Path | None = None

    @property
    def label_names(self) -> list[str]:
        return self.config["label_names"]

    @property
    def multi_label(self) -> bool:
        return bool(self.config["model_config"].get("multi_label", False))

    def labels(self, probabilities: np.ndarray, threshold: float | None = None) -> list[str]:
        """The predicted label of each row; a multi-label run joins every label reaching the threshold with '|'."""
        threshold = self.config["train"]["threshold"] if threshold is None else threshold
        if self.multi_label:
            return ["|".join(n for n, p in zip(self.label_names, row) if p >= threshold) or "(none)"
                    for row in probabilities]
        return [self.label_names[int(k)] for k in predict_labels(probabilities, threshold)]

    def probabilities(self, texts: list[str], contexts: list[tuple[str, ...]] | None = None,
                      by_length: bool = False) -> np.ndarray:
        """Class probabilities; ``contexts`` (turns before each text) feed a context-aware run, else are empty.

        ``by_length`` predicts length-sorted batches cut to their longest text
        (:func:`baselines.batching.predict_by_length`): faster on tweets, whose batches are mostly padding,
        with probabilities that may differ from the full-length batches' in the last bit.
        Evaluations, whose numbers are reported, keep the full-length batches.  Non-finite
        probabilities (a plugin's NaN output) are refused in one line, never scored or printed.
        """
        from baselines import main_output  # with installed plugins: imported where used
        from baselines.batching import predict_by_length  # the same: only when a model is needed

        inputs = self.inputs.build(texts, contexts)
        if by_length:
            probabilities = main_output(predict_by_length(self.model, inputs, batch_size=256))
        else:
            probabilities = main_output(self.model.predict(inputs, batch_size=256, verbose=0))
        return require_finite(probabilities, f"probabilities from the model of {self.directory}")


    @property
    def max_len(self) -> int | None:
        """The most tokens of a text the model reads (None: it reads every text whole)."""
        return self.inputs.preprocessor.max_len

    def token_counts(self, texts: list[str]) -> list[tuple[int, int]]:
        """(tokens the model reads, tokens the text has) for each text: a text longer than the run's
        max_len is cut to it (which end is kept: the run's ``truncation``), and a prediction made on
        part of a text should say so."""
        preprocessor = self.inputs.preprocessor
        return [(min(len(tokens), preprocessor.max_len), len(tokens)) for tokens in preprocessor.tokenize(texts)]


def load_run(directory: Path, data_dir: Path) -> TrainedRun:
    """The finished run in ``directory``; a folder that is not one, or a damaged run (an unreadable
    metrics.json or config.json, a missing or refused model, a vocabulary that is not the model's),
    stops with one line."""
    require_finished(directory)
    if (directory / ENTRANT).is_file():
        return _estimator_run(directory, data_dir)
    config = run_config(directory)
    check_model_file(directory / MODEL)  # load_model's check, before TensorFlow is imported: a refusal takes no import
    from baselines import load_model  # loads TensorFlow: only when a model is needed
    from experiments.runs.one import selection  # noqa: F401  (registers the custom metric for deserialisation)

    model = load_model(directory / MODEL, compile=False)
    try:
        inputs = ModelInputs.load(directory, data_dir)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise IsarcasmError(f"{directory}: damaged preprocessing files ({type(exc).__name__}: {exc})") from None
    _check_inputs(directory, model, inputs)
    _check_vocabulary(directory, model, inputs)
    return TrainedRun(directory, config, model, inputs, data_dir)


class NoModel(IsarcasmError):
    """A finished run that keeps no model to load (an entrant's run without a saved estimator):
    ``evaluate`` passes over it, saying so, where it was given among others."""


def class_probabilities(estimator, texts: list[str], num_classes: int, what: str) -> np.ndarray:
    """``estimator.predict_proba(texts)`` as (texts, classes) in label order (a class missing from the
    training split gets probability 0)."""
    proba = np.asarray(calling(what, "predict_proba", lambda: estimator.predict_proba(texts)), dtype=float)
    classes = list(getattr(estimator, "classes_", range(proba.shape[1] if proba.ndim == 2 else 0)))
    if proba.shape != (len(texts), len(classes)):
        raise IsarcasmError(f"{what}: predict_proba returned the shape {proba.shape} for {len(texts)} texts "
                            f"and {len(classes)} classes")
    out = np.zeros((len(texts), num_classes))
    for column, label in enumerate(classes):
        if not (isinstance(label, (int, np.integer)) and 0 <= label < num_classes):
            raise IsarcasmError(f"{what}: predicts the class {label!r}; labels are 0 .. {num_classes - 1}")
        out[:, int(label)] = proba[:, column]
    return out


def calling(what: str, step: str, call: Callable):
    """``call()``; whatever an estimator raises becomes one line naming it and the step."""
    try:
        return call()
    except IsarcasmError:
        raise
    except Exception as exc:  # noqa: BLE001  (a user's estimator: whatever it raises is one line)
        raise IsarcasmError(f"{what}: {step} raised {type(exc).__name__}: {exc}") from None


@dataclass
class EstimatorRun(TrainedRun):
    """A scikit-learn entrant's run (``model``: its fitted estimator, which reads raw text: no
    vocabulary, no length it cuts texts to)."""

    @property
    def multi_label(self) -> bool:
        return False  # entrants score single-label corpora

    @property
    def max_len(self) -> None:
        return None

    def probabilities(self, texts: list[str], contexts: list[tuple[str, ...]] | None = None,
                      by_length: bool = False) -> np.ndarray:
        return require_finite(class_probabilities(self.model, texts, len(self.label_names), str(self.directory)),
                              f"probabilities from the estimator of {self.directory}")

    def token_counts(self, texts: list[str]) -> list[tuple[int, int]]:
        return [(len(text.split()),) * 2 for text in texts]  # read whole: nothing is cut


def _estimator_run(directory: Path, data_dir: Path) -> EstimatorRun:
    """The entrant's run in ``directory`` with its saved estimator; :class:`NoModel` for one that
    keeps none (a reference rule, a Keras model entrant, outside predictions, a run scored before
    estimators were kept)."""
    try:
        entrant = load_json(directory / ENTRANT)
    except (OSError, ValueError):
        entrant = None
    if not isinstance(entrant, dict) or not isinstance(entrant.get("model"), dict):
        raise NoModel(f"{directory} is an entrant's run that keeps no model to load (see its {ENTRANT}), only its "
                      "predictions.tsv")
    config = run_config(directory, ("corpus", "label_names", "train"))
    return EstimatorRun(directory, config, load_estimator_file(directory, entrant["model"]), None, data_dir)


def run_config(directory: Path, required: tuple[str, ...] | None = None) -> dict:
    """The run's config.json with every key it holds that using a run reads checked (see
    :data:`CONFIG_CHECKS`), and the ``required`` ones (default :data:`RUN_CONFIG_KEYS`, a model's
    run; an entrant's run has no model_config) present.  A damaged or edited file is one line
    naming it and the key."""
    path = directory / CONFIG
    config = read_config(directory)
    missing = [key for key in required or RUN_CONFIG_KEYS if not isinstance(config, dict) or key not in config]
    if missing:
        raise IsarcasmError(f"{path} is damaged (no {', '.join(missing)}); rerun its experiment "
                            "or `isarcasm train` to train it again")
    for key, check in CONFIG_CHECKS.items():
        if key in config:
            check(path, config[key])
    return config


def _corpus(path: Path, value) -> None:
    if not isinstance(value, str):
        raise DataError.at(path, None, f"corpus must be a corpus name, not {value!r}")


def _label_names(path: Path, value) -> None:
    if not isinstance(value, list) or not value or not all(isinstance(n, str) for n in value) \
            or len(set(value)) != len(value):
        raise DataError.at(path, None, f"label_names must be a list of distinct names, not {value!r}")


def _train(path: Path, value) -> None:
    """Every value as TrainConfig declares it (keys it does not know are left alone, for runs of
    other versions; an entrant's run records only the settings it uses), and the threshold, which
    using a run reads: every run records it, and one left out would silently be today's default."""
    TrainConfig.from_dict(value, f"{path}: train", ignore_unknown=True)
    if "threshold" not in value:
        raise DataError.at(path, None, "train has no threshold; rerun its experiment or `isarcasm train`")


def _model_config(path: Path, value) -> None:
    if not isinstance(value, dict) or not isinstance(value.get("multi_label", False), bool):
        raise DataError.at(path, None, "model_config must be an object whose multi_label is true or false")


#: The keys of config.json that using a run reads, each with its check.
CONFIG_CHECKS = {"corpus": _corpus, "label_names": _label_names, "train": _train, "model_config": _model_config}


#: What a run's config.json must hold for the run to be used.
RUN_CONFIG_KEYS = ("corpus", "label_names", "train", "model_config")


def _check_inputs(directory: Path, model, inputs: ModelInputs) -> None:
    """inputs.json must name the model's inputs (with the lexicon width the model reads): another list
    would fail inside Keras at the first prediction."""
    wanted = {tensor.name: tensor.shape for tensor in model.inputs}
    if set(wanted) != set(inputs.input_names):
        raise IsarcasmError(f"{directory}: inputs.json names the inputs {', '.join(inputs.input_names)} but the "
                            f"model reads {', '.join(sorted(wanted))}; the run's files are mixed up: train it again")
    if "lexicon" in wanted and wanted["lexicon"][-1] != inputs.lexicon_dim:
        raise IsarcasmError(f"{directory}: inputs.json scales {inputs.lexicon_dim} lexicon features but the model "
                            f"reads {wanted['lexicon'][-1]}; the run's files are mixed up: train it again")


def _check_vocabulary(directory: Path, model, inputs: ModelInputs) -> None:
    """The vocabulary must be the one the model was trained with: ids beyond the embedding's rows
    would fail deep inside TensorFlow, and a shorter vocabulary would silently map words to the
    wrong vectors; both are refused by their size."""
    import keras  # loads TensorFlow: only when a model is needed

    rows = [layer.input_dim for layer in _all_layers(model) if isinstance(layer, keras.layers.Embedding)]
    if rows and len(inputs.preprocessor.vocab) != max(rows):
        raise IsarcasmError(f"{directory}: the vocabulary ({len(inputs.preprocessor.vocab):,} words in vocab.json) "
                            f"does not match the model's embedding ({max(rows):,} rows); the run's files are "
                            "mixed up: train it again")


def _all_layers(model):
    for layer in model.layers:
        yield layer
        if hasattr(layer, "layers"):
            yield from _all_layers(layer)


def evaluation_split(dataset: Dataset) -> str:
    """The split an evaluation scores: ``test``, else the corpus' last split."""
    return "test" if "test" in dataset.splits else dataset.splits[-1]


def sarcastic_share(dataset: Dataset) -> float:
    """The share of sarcastic (label 1) texts in the split an evaluation scores: its all-sarcastic floor."""
    return float(np.mean([record.label == 1 for record in dataset.split(evaluation_split(dataset))]))


def evaluation_identity(run_directory: Path, dataset: Dataset, threshold: float, data_dir: Path | None,
                        options: dict | None = None) -> dict:
    """Everything the numbers of the run's evaluation on ``dataset`` depend on, besides the run's code.

    The run (its configuration hash; a retrained run replaces its whole folder, evaluations
    included), the evaluated data's content (``data_sha256``: a file corpus' bytes, a registered
    corpus' data files, a ``--text-file``), the reader options it was loaded with (``options``:
    ``--text-col``/``--label-col``/``--split-col``, ``--text-file``), the split, the threshold and a
    Keras backend other than TensorFlow.  ``records_sha256`` digests the scored records themselves
    (ids, texts, contexts, gold labels, label names), so a dataset changed in memory, or loaded with
    an option this list does not name, never takes another's saved numbers either.
    """
    split = evaluation_split(dataset)
    backend = provenance.other_backend()
    options = {name: str(value) for name, value in sorted((options or {}).items()) if value is not None}
    return {
        "run": recorded_hash(run_directory),
        "corpus": dataset.name,
        "data_sha256": evaluated_checksums(dataset.name, data_dir, options),
        "options": options,
        "split": split,
        "records_sha256": records_sha256(dataset, dataset.split(split)),
        "threshold": float(threshold),
        **({"keras_backend": backend} if backend else {}),
    }


def evaluation_key(identity: dict) -> str:
    """The sha256 of an :func:`evaluation_identity`: the key a saved evaluation is found by."""
    return hashlib.sha256(json.dumps(identity, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def evaluated_checksums(corpus: str, data_dir: Path | None, options: dict) -> dict[str, str]:
    """Content sha256 of the files an evaluation reads: a file corpus' file (hashed every time: a
    user's file may be edited within the same second), else a registered corpus' data files (through
    the checksum cache runs use), and a ``text_file`` option's file."""
    found = {}
    if corpus not in CORPORA and is_file_corpus(corpus):
        if Path(corpus).is_file():
            found[Path(corpus).name] = content_sha256(Path(corpus))
    elif corpus in CORPORA and data_dir is not None:
        for entry in CORPORA.get(corpus).files:
            path = data_dir / entry.path
            if path.is_file():
                found[entry.path] = file_checksums([path])[path.name]
    text_file = options.get("text_file")
    if text_file and Path(text_file).is_file():
        found["text_file"] = content_sha256(Path(text_file))
    return found


def records_sha256(dataset: Dataset, records: list[Record]) -> str:
    """sha256 of what an evaluation scores: the label names, and each record's id, text, context and gold labels."""
    digest = hashlib.sha256(json.dumps([list(dataset.label_names), dataset.multi_label]).encode())
    for r in records:
        digest.update(json.dumps([r.id, r.text, list(r.context), list(dataset.labels_of(r))]).encode() + b"\n")
    return digest.hexdigest()


@dataclass(frozen=True)
class EvaluationPlace:
    """Where one evaluation (run x data x options) is saved, and its key."""

    key: str
    identity: dict
    path: Path
    predictions: Path

    @classmethod
    def of(cls, run_directory: Path, dataset: Dataset, threshold: float, data_dir: Path | None,
           options: dict | None = None) -> "EvaluationPlace":
        identity = evaluation_identity(run_directory, dataset, threshold, data_dir, options)
        key = evaluation_key(identity)
        return cls(key, identity, *evaluation_paths(run_directory, dataset.name, key))

    def saved(self) -> dict | None:
        """The evaluation saved here, as :func:`evaluate_run` returns it (``reused: true``); None when
        there is none, or its metrics or predictions are missing, unreadable or of another key."""
        if not self.predictions.is_file():
            return None
        try:
            saved = load_json(self.path)
        except (OSError, ValueError):
            return None
        if not isinstance(saved, dict) or saved.get("key") != self.key or not isinstance(saved.get("test"), dict) \
                or recorded_problem(saved):  # a score out of its range: damaged, computed again
            return None
        return self.returned(saved, reused=True)

    def returned(self, result: dict, reused: bool) -> dict:
        return {**result, "evaluation_file": str(self.path), "predictions_file": str(self.predictions),
                "reused": reused}


def evaluate_run(run: TrainedRun, dataset: Dataset, threshold: float | None = None, force: bool = False,
                 options: dict | None = None) -> dict:
    """Metrics of a trained run on ``dataset``'s test split, saved in ``<run>/evaluations/``.

    The per-example predictions are saved beside the metrics (same columns as
    the run's predictions.tsv), so paired significance tests can use them.  A saved evaluation
    is reused (unless ``force``) only when its key matches: the evaluated data's content and every
    option that changes the numbers (:func:`evaluation_identity`; ``options`` are the reader options
    ``dataset`` was loaded with).  The result names its file (``evaluation_file``,
    ``predictions_file``) and says whether it was ``reused``.
    """
    if len(dataset.label_names) != len(run.label_names) or dataset.multi_label != run.multi_label:
        kind = {True: "multi-label", False: "single-label"}
        raise IsarcasmError(f"run {run.directory} predicts {len(run.label_names)} {kind[run.multi_label]} classes "
                            f"but corpus '{dataset.name}' has {len(dataset.label_names)} "
                            f"{kind[dataset.multi_label]} ones")
    split = evaluation_split(dataset)
    records = dataset.split(split)
    if any(r.text is None for r in records):
        raise IsarcasmError(f"corpus '{dataset.name}' has records without text; supply them with --text-file")
    threshold = run.config["train"]["threshold"] if threshold is None else threshold
    place = EvaluationPlace.of(run.directory, dataset, threshold, run.data_dir, options)
    saved = None if force else place.saved()
    if saved is not None:
        return saved
    probabilities = run.probabilities([r.text for r in records], [r.context for r in records])
    gold = targets(dataset, records)
    result = {
        "run": str(run.directory),
        "trained_on": run.config["corpus"],
        "corpus": dataset.name,
        "split": split,
        "threshold": threshold,
        "key": place.key,
        "data_sha256": place.identity["data_sha256"],
        "options": place.identity["options"],
        "records_sha256": place.identity["records_sha256"],
        "test": score(gold, probabilities, threshold, dataset.multi_label),
    }
    write_text(place.predictions, predictions_tsv([r.id for r in records], gold, probabilities, dataset.multi_label))
    try:
        write_json(place.path, result)  # last: the metrics mark the evaluation saved
    except BaseException:  # a full disk: no predictions without their metrics are left behind
        place.predictions.unlink(missing_ok=True)
        raise
    return place.returned(result, reused=False)
