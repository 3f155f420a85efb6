"""Using a finished run: predict new text, evaluate on any corpus' test split.

A run directory carries everything needed: the model, the fitted
preprocessing (vocabulary, max_len, lexicon scaling) and the label names.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from experiments.runs.inputs import ModelInputs
from experiments.runs.metrics import predict_labels, score
from experiments.runs.store import (
    CONFIG,
    ENTRANT,
    METRICS,
    MODEL,
    evaluation_paths,
    predictions_tsv,
    read_config,
    read_json,
    recorded_hash,
    write_json,
    write_text,
)
from experiments.runs.training import targets
from preprocessing.errors import IsarcasmError
from preprocessing.records import Dataset


@dataclass
class TrainedRun:
    directory: Path
    config: dict
    model: object
    inputs: ModelInputs

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
        (:func:`baselines.batching.predict_by_length`): about 3 times faster on tweets, with
        probabilities that may differ from the full-length batches' in the last bit (1e-7).
        Evaluations, whose numbers are reported, keep the full-length batches.
        """
        from baselines import main_output  # loads TensorFlow: only when a model is needed
        from baselines.batching import predict_by_length  # the same: only when a model is needed

        inputs = self.inputs.build(texts, contexts)
        if by_length:
            return main_output(predict_by_length(self.model, inputs, batch_size=256))
        return main_output(self.model.predict(inputs, batch_size=256, verbose=0))


def load_run(directory: Path, data_dir: Path) -> TrainedRun:
    """The finished run in ``directory``; a folder that is not one, or a damaged run (an unreadable
    metrics.json or config.json, a missing or refused model, a vocabulary that is not the model's),
    stops with one line."""
    from baselines import load_model  # loads TensorFlow: only when a model is needed
    from experiments.runs import selection  # noqa: F401  (registers the custom metric for deserialisation)

    if not (directory / METRICS).is_file():
        raise IsarcasmError(f"{directory} is not a finished run (no {METRICS}); train one with `isarcasm train`")
    if recorded_hash(directory) is None:
        raise IsarcasmError(f"{directory / METRICS} is damaged (not the JSON a finished run writes); rerun its "
                            "experiment or `isarcasm train` to train it again")
    if (directory / ENTRANT).is_file():
        raise IsarcasmError(f"{directory} is an entrant's run (a reference row, scikit-learn estimator or outside "
                            f"predictions; see its {ENTRANT}): it has no model to load, only its predictions.tsv")
    config = read_config(directory)
    missing = [key for key in RUN_CONFIG_KEYS if not isinstance(config, dict) or key not in config]
    if missing:
        raise IsarcasmError(f"{directory / CONFIG} is damaged (no {', '.join(missing)}); rerun its experiment "
                            "or `isarcasm train` to train it again")
    model = load_model(directory / MODEL, compile=False)
    try:
        inputs = ModelInputs.load(directory, data_dir)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise IsarcasmError(f"{directory}: damaged preprocessing files ({type(exc).__name__}: {exc})") from None
    _check_vocabulary(directory, model, inputs)
    return TrainedRun(directory, config, model, inputs)


#: What a run's config.json must hold for the run to be used.
RUN_CONFIG_KEYS = ("corpus", "label_names", "train", "model_config")


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


def evaluate_run(run: TrainedRun, dataset: Dataset, threshold: float | None = None, force: bool = False) -> dict:
    """Metrics of a trained run on ``dataset``'s test split, saved in ``<run>/evaluations/``.

    The per-example predictions are saved beside the metrics (same columns as
    the run's predictions.tsv), so paired significance tests can use them.
    """
    if len(dataset.label_names) != len(run.label_names) or dataset.multi_label != run.multi_label:
        kind = {True: "multi-label", False: "single-label"}
        raise IsarcasmError(f"run {run.directory} predicts {len(run.label_names)} {kind[run.multi_label]} classes "
                            f"but corpus '{dataset.name}' has {len(dataset.label_names)} "
                            f"{kind[dataset.multi_label]} ones")
    split = "test" if "test" in dataset.splits else dataset.splits[-1]
    records = dataset.split(split)
    if any(r.text is None for r in records):
        raise IsarcasmError(f"corpus '{dataset.name}' has records without text; supply them with --text-file")
    path, predictions_path = evaluation_paths(run.directory, dataset.name)
    if path.is_file() and predictions_path.is_file() and not force:
        return read_json(path)
    threshold = run.config["train"]["threshold"] if threshold is None else threshold
    probabilities = run.probabilities([r.text for r in records], [r.context for r in records])
    gold = targets(dataset, records)
    result = {
        "run": str(run.directory),
        "trained_on": run.config["corpus"],
        "corpus": dataset.name,
        "split": split,
        "threshold": threshold,
        "test": score(gold, probabilities, threshold, dataset.multi_label),
    }
    write_text(predictions_path, predictions_tsv([r.id for r in records], gold, probabilities, dataset.multi_label))
    write_json(path, result)
    return result
