"""Entrants: runs whose predictions come from something other than a classic model of the suite.

One registry, :data:`ENTRANTS` (name -> :class:`Entrant`), holds every kind:

- the reference rows, built in and not from the paper: ``all-sarcastic`` (every text labelled
  sarcastic), ``majority`` (every text labelled the training split's majority class) and ``tfidf-lr``
  (word and character n-gram TF-IDF + logistic regression, ``C`` chosen on validation);
- a user's scikit-learn estimator (:mod:`experiments.runs.entrants.estimators`, ``benchmark --estimator``);
- predictions made outside the suite (:mod:`experiments.runs.entrants.outside`, ``benchmark --predictions``);
- a user's Keras model that reads raw text with its own preprocessing, trained and its epoch chosen
  here (:mod:`experiments.runs.entrants.keras_models`, ``benchmark --keras-model``).

An entrant's run is stored as a trained run is (:func:`score_run`): the same folder, a config.json
with the data checksums and the provenance record, predictions.tsv with P(sarcastic), metrics.json
written last; :data:`~experiments.runs.one.store.ENTRANT` (entrant.json) takes the model file's place and
says what scored the run and what it chose on validation (and, for a fitted scikit-learn estimator, the
sha256 of ``estimator.joblib``, which ``evaluate`` loads: see :func:`~experiments.runs.one.outputs.save_estimator`).  So ``report``, the significance tests and
the benchmark read these runs like any other.  The protocol is the trained runs': the splits are
:func:`~experiments.runs.one.protocol.make_splits`' with the run's seed, so hyper-parameters are chosen
on the validation split the neural runs choose their epoch on, and the test split is only scored.

A study hands an entrant's runs to the scheduler as trained runs are handed (:func:`scoring` gives the
task's kind, :class:`Scoring`), so ``--jobs`` and the progress bar treat both alike; a worker process
registers a user's entrant again from its :class:`Origin` (the loader and the path given).
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.pipeline import FeatureUnion, Pipeline

from experiments.runs.one import provenance
from preprocessing.checksums import file_checksums
from experiments.runs.one.footprint import COSTS, RunMeter, texts_per_second, timed
from experiments.runs.one.inference import calling, class_probabilities
from experiments.runs.one.metrics import main_metric_for, predict_labels, score
from experiments.runs.one.protocol import Splits, TrainConfig, make_splits
from experiments.runs.one.spec import RunOptions, RunPlace, RunSpec
from experiments.runs.one.store import (CONFIG, ENTRANT, ESTIMATOR, METRICS, PREDICTIONS, RunResult, RunStore,
                                        RunWriter, safe_name, write_json, write_text)
from experiments.runs.one.outputs import predictions_tsv, save_estimator
from experiments.runs.one.training import modified_files, targets
from preprocessing.corpora import CORPORA, corpus_label, is_file_corpus
from preprocessing.errors import IsarcasmError
from preprocessing.records import Dataset
from preprocessing.registry import Registry

#: The training settings an entrant's run depends on (its config's ``train``): how validation is
#: carved, the --quick cap on training examples, the decision threshold and the selection metric.
SETTINGS = ("validation_fraction", "max_train", "threshold", "select_on")


@dataclass(frozen=True)
class Job:
    """What an entrant gets for one run: the corpus, the run's seed and splits, and the settings."""

    dataset: Dataset
    seed: int
    splits: Splits
    fold: int | None = None
    #: The run's training settings (an entrant reads those it uses: the threshold, the selection metric,
    #: a Keras model's epochs and batch size).
    train: TrainConfig = TrainConfig()

    @property
    def threshold(self) -> float:
        return self.train.threshold

    @property
    def num_classes(self) -> int:
        return len(self.dataset.label_names)

    def texts(self, part: str) -> list[str]:
        return [r.text for r in getattr(self.splits, part)]

    def labels(self, part: str) -> np.ndarray:
        return np.asarray([r.label for r in getattr(self.splits, part)])

    @property
    def metric(self) -> str:
        """What selection maximises on validation: the task's main metric, as the neural runs' epoch
        selection (:func:`~experiments.runs.one.metrics.main_metric_for`)."""
        return main_metric_for(self.num_classes == 2 and not self.dataset.multi_label, self.train.select_on)

    def validation_score(self, probabilities: np.ndarray) -> float:
        predicted, gold = predict_labels(probabilities, self.threshold), self.labels("validation")
        if self.metric == "f1_sarcastic":
            return float(f1_score(gold, predicted, pos_label=1, zero_division=0))
        return float(f1_score(gold, predicted, labels=list(range(self.num_classes)), average="macro",
                              zero_division=0))


@dataclass(frozen=True)
class Scores:
    """An entrant's class probabilities, (texts, classes), what it chose on validation, and the seconds
    its model took to predict the test split from raw text (None where there is no model to time)."""

    test: np.ndarray
    validation: np.ndarray | None = None  # None: outside predictions, which cover the test split only
    chosen: dict = field(default_factory=dict)
    test_seconds: float | None = None
    #: The fitted scikit-learn estimator that scored the run, saved with it (None: nothing to keep).
    model: object = None


@dataclass(frozen=True)
class Prepared:
    """One run settled before anything is written: what identifies the entrant (config.json's
    ``entrant``, part of the configuration hash) and how to score the run."""

    identity: dict
    score: Callable[[], Scores]


@dataclass(frozen=True)
class Origin:
    """What another process registers a user's entrant from: ``load(name, path)``, one of the loaders
    (pickled by its name), and the file or folder as given (a worker process shares the command's folder)."""

    load: Callable[[str, str], "Entrant"]
    path: str


def costless(train: TrainConfig) -> float:
    """The cost of a run with nothing to fit (a constant, predictions read from a file)."""
    return 0.0


#: One fit of the TF-IDF + logistic regression pipeline, per training example, in the units of
#: ``ModelSpec.cost`` (one LSTM epoch is 1), set from the training seconds Table 7's tfidf-lr and LSTM runs
#: record.  Only the order of a sweep's runs depends on it.
FIT_COST = 0.4


@dataclass(frozen=True)
class Entrant:
    name: str
    #: "reference" (a built-in reference row), "scikit-learn", "predictions" or "keras".
    kind: str
    description: str
    #: Settles one run (reads and checks what it needs, so a refused input stops before anything is written).
    prepare: Callable[[Job], Prepared]
    #: Scores binary corpora only (labelling everything sarcastic; outside P(sarcastic)).
    binary_only: bool = False
    #: Where a user's entrant came from (its file or folder); empty for the built-in ones.
    source: str = ""
    #: How a worker process registers it too (None: a built-in one, registered wherever this module is imported).
    origin: Origin | None = None
    #: A run's expected time per training example under the run's settings, in the units of
    #: ``ModelSpec.cost``: it only orders a sweep's runs, most expensive first.
    cost: Callable[[TrainConfig], float] = costless


ENTRANTS: Registry[Entrant] = Registry("entrant")

#: Entrant kinds the suite does not run (it reads predictions made elsewhere): their runs record no
#: training time or peak memory, which would be the suite's reading of a file, not the model's cost.
UNMEASURED = ("predictions",)


def recorded_costs(metrics: dict) -> dict:
    """The costs (:data:`~experiments.runs.one.footprint.COSTS`) a run's metrics record as measured: none for
    an entrant the suite did not run (runs written before this rule recorded 0 s and the suite's own
    memory for them)."""
    if metrics.get("entrant") in UNMEASURED:
        return {}
    return {cost: metrics[cost] for cost in COSTS if cost in metrics}


def enter(entrant: Entrant) -> Entrant:
    """Register a user's entrant.  The same file or folder entered again under the same name (a
    second command in one process) is the entry already there; any other taken name is refused."""
    safe_name(entrant.name, "entrant name")  # it names the runs' folders
    if entrant.name in ENTRANTS:
        existing = ENTRANTS.get(entrant.name)
        if existing.source and existing.source == entrant.source:
            return existing
        raise IsarcasmError(f"entrant '{entrant.name}' already exists ({existing.description}); give yours another "
                            "name")
    return ENTRANTS.add(entrant.name, entrant)


@dataclass(frozen=True)
class Plan:
    """An entrant's run settled before scoring: its job, configuration and hash."""

    entrant: Entrant
    job: Job
    prepared: Prepared
    config: dict
    config_hash: str


def corpus_checksums(name: str, data_dir: Path) -> dict[str, str]:
    """config.json's ``data_sha256`` of an entrant's run: its corpus files (it reads no word vectors)."""
    paths = [Path(name)] if is_file_corpus(name) and name not in CORPORA else \
        [data_dir / f.path for f in CORPORA.get(name).files]
    return file_checksums(paths)


def plan_run(run: RunSpec, dataset: Dataset, data_dir: Path) -> Plan:
    """Settle an entrant's run (``run.model`` names the entrant) on ``dataset``: splits (the trained
    runs'), the entrant's own checks, configuration and hash.  Nothing is written."""
    name, seed, train, fold = run.model, run.seed, run.train, run.fold
    entrant = ENTRANTS.get(name)
    label = corpus_label(dataset.name)
    if dataset.multi_label:
        raise IsarcasmError(f"{name}: corpus '{label}' gives several labels per text; entrants score "
                            "single-label corpora")
    if entrant.binary_only and not dataset.is_binary:
        raise IsarcasmError(f"{name}: corpus '{label}' has {len(dataset.label_names)} classes; {entrant.description} "
                            "is for binary corpora")
    splits = make_splits(dataset, seed, train.validation_fraction, train.max_train, fold)
    job = Job(dataset, seed, splits, fold, train)
    prepared = entrant.prepare(job)
    config = {
        "corpus": dataset.name,
        "model": name,
        "seed": seed,
        **({"fold": fold} if fold is not None else {}),
        "entrant": prepared.identity,
        "train": {setting: getattr(train, setting) for setting in SETTINGS},
        "data_sha256": corpus_checksums(dataset.name, data_dir),
        "splits": {"train": len(splits.train), "validation": len(splits.validation), "test": len(splits.test),
                   "validation_source": splits.validation_source},
    }
    return Plan(entrant, job, prepared, config, provenance.config_hash(config))


@dataclass(frozen=True)
class Scoring:
    """The kind of a scheduler's task (:class:`experiments.runs.many.scheduler.RunKind`) whose run an entrant
    scores: planned and scored (:func:`plan_run`, :func:`score_run`) in whichever process the executor
    chooses.  It holds the entrant's :class:`Origin`, not the entrant, so it travels to a worker."""

    origin: Origin | None = None
    #: An entrant reads files of this machine (its estimator's, its predictions): never on a Ray node.
    detached = False

    def produced_under(self, train: TrainConfig) -> TrainConfig:
        """``train`` as it is: an entrant applies the settings it reads (:data:`SETTINGS`) itself."""
        return train

    def config_hash(self, spec: RunSpec, dataset: Dataset, data_dir: Path) -> str:
        self.entrant(spec.model)
        return plan_run(spec, dataset, data_dir).config_hash

    def produce(self, spec: RunSpec, dataset: Dataset, place: RunPlace, data_dir: Path,
                options: RunOptions) -> RunResult:
        self.entrant(spec.model)
        return score_run(plan_run(spec, dataset, data_dir), place, options.force)

    def cost(self, spec: RunSpec, dataset: Dataset) -> float:
        return self.entrant(spec.model).cost(spec.train) * spec.training_examples(dataset)

    def stored(self, spec: RunSpec, dataset: Dataset, place: RunPlace, data_dir: Path) -> RunResult | None:
        """None: the run's configuration is known once it is planned (:func:`plan_run`), where it is scored."""
        return None

    def entrant(self, name: str) -> Entrant:
        """Entrant ``name``, registered from :attr:`origin` first in a process that has not registered it."""
        if name not in ENTRANTS and self.origin is not None:
            self.origin.load(name, self.origin.path)
        if name not in ENTRANTS:
            raise IsarcasmError(f"entrant '{name}' exists only in the process that registered it (no file or folder "
                                "to load it from in a worker process); run it with --jobs 1")
        return ENTRANTS.get(name)


def scoring(name: str) -> Scoring:
    """The kind of the scheduler's tasks that score entrant ``name``'s runs."""
    return Scoring(ENTRANTS.get(name).origin)


def score_run(plan: Plan, place: RunPlace, force: bool = False) -> RunResult:
    """Score the planned run and write it to ``place.directory`` through the store, as
    :func:`~experiments.runs.one.training.train_run` writes a trained one (:meth:`RunStore.produce`: under the
    run's claim, staged, metrics.json last, swapped in).  A finished run with the same configuration, there
    or the one ``place`` found elsewhere, is reused unless ``force``."""
    return RunStore.produce(place, plan.config_hash, partial(_write, plan), force)


def _write(plan: Plan, writer: RunWriter) -> dict:
    """Score the run into ``writer``'s staging folder; its metrics."""
    job, dataset = plan.job, plan.job.dataset
    changed = modified_files(dataset.name, plan.config["data_sha256"])
    if changed:
        logging.getLogger(__name__).warning(f"{len(changed)} file(s) of '{dataset.name}' differ from the published "
                                            f"data ({changed[0]}); the run records their checksums.")
    meter = RunMeter()
    scores = plan.prepared.score()
    parts = {"test": scores.test} if scores.validation is None else \
        {"validation": scores.validation, "test": scores.test}
    gold = {}
    for part, probabilities in parts.items():
        records = getattr(job.splits, part)
        _check(plan.entrant.name, part, probabilities, len(records), job.num_classes)
        gold[part] = targets(dataset, records)
    metrics = {
        "config_hash": plan.config_hash,
        "corpus": dataset.name,
        "model": plan.entrant.name,
        "seed": job.seed,
        **({"fold": job.fold} if job.fold is not None else {}),
        "entrant": plan.entrant.kind,
        "threshold": job.threshold,
        **{part: score(gold[part], probabilities, job.threshold, multi_label=False)
           for part, probabilities in parts.items()},
        **recorded_costs({"entrant": plan.entrant.kind, "train_seconds": meter.seconds(),
                          "predict_texts_per_second": texts_per_second(len(job.splits.test), scores.test_seconds),
                          "peak_memory_mb": meter.peak_mb()}),
    }
    write_json(writer.path(CONFIG), {**plan.config, "config_hash": plan.config_hash,
                                     "experiment_dir": str(writer.directory),
                                     "label_names": list(dataset.label_names), **provenance.record()})
    kept = {"model": save_estimator(writer.path(ESTIMATOR), scores.model)} if scores.model is not None else {}
    write_json(writer.path(ENTRANT), {"name": plan.entrant.name, "kind": plan.entrant.kind,
                                      "description": plan.entrant.description, "identity": plan.prepared.identity,
                                      "chosen": scores.chosen, **kept})
    write_text(writer.path(PREDICTIONS), predictions_tsv([r.id for r in job.splits.test], gold["test"], scores.test,
                                                         multi_label=False))
    write_json(writer.path(METRICS), metrics)  # last: its presence marks the run finished
    return metrics


def _check(name: str, part: str, probabilities: np.ndarray, rows: int, classes: int) -> None:
    if probabilities.shape != (rows, classes):
        raise IsarcasmError(f"{name}: expected {rows} x {classes} {part} probabilities, got the shape "
                            f"{probabilities.shape}")
    if not np.all(np.isfinite(probabilities)) or probabilities.min() < 0 or probabilities.max() > 1 + 1e-9:
        raise IsarcasmError(f"{name}: its {part} probabilities are not all numbers between 0 and 1")


# --- scikit-learn estimators, chosen on validation ------------------------------------------------

def fit_on_validation(make: Callable[[], object], grid: list[dict], job: Job, what: str) -> Scores:
    """Fit ``make()`` once per point of ``grid`` (parameters set with ``set_params``) on the training
    split; keep the one whose validation score (:attr:`Job.metric`) is highest, the first on a tie.
    The test split is predicted by the kept estimator only, after the choice."""
    texts, labels = job.texts("train"), job.labels("train")
    tried, best = [], None
    for params in grid:
        estimator = make()
        if params:
            estimator.set_params(**params)
        calling(what, "fit", lambda: estimator.fit(texts, labels))
        validation = class_probabilities(estimator, job.texts("validation"), job.num_classes, what)
        value = job.validation_score(validation)
        tried.append({"params": params, job.metric: value})
        if best is None or value > best[0]:
            best = (value, estimator, params, validation)
    _, estimator, params, validation = best
    test, seconds = timed(lambda: class_probabilities(estimator, job.texts("test"), job.num_classes, what))
    weights = fitted_weights(estimator)
    return Scores(test, validation, {"params": params, "metric": job.metric, "validation": tried,
                                     **({"parameters": weights} if weights is not None else {})}, seconds, estimator)


def fitted_weights(estimator) -> int | None:
    """The learned weights of a fitted linear model, or of a pipeline's last step (``coef_`` and
    ``intercept_``): what the benchmark's parameters column counts.  None for any other estimator (a
    forest's nodes or a calibrated ensemble are not one set of weights to count)."""
    final = estimator.steps[-1][1] if hasattr(estimator, "steps") else estimator
    coef = getattr(final, "coef_", None)
    if coef is None:
        return None
    return int(np.size(coef) + np.size(getattr(final, "intercept_", 0)))


# --- the reference rows ---------------------------------------------------------------------------

def _constant(rule: str, label_of: Callable[[Job], int]) -> Callable[[Job], Prepared]:
    """An entrant that gives every text the class ``label_of(job)`` with probability 1."""
    def prepare(job: Job) -> Prepared:
        def scores() -> Scores:
            label = label_of(job)
            row = np.eye(job.num_classes)[label]
            return Scores(np.tile(row, (len(job.splits.test), 1)), np.tile(row, (len(job.splits.validation), 1)),
                          {"label": label, "label_name": job.dataset.label_names[label]})
        return Prepared({"kind": "reference", "rule": rule}, scores)
    return prepare


def majority_class(job: Job) -> int:
    """The most frequent label of the run's training split (the lower index on a tie)."""
    counts = np.bincount(job.labels("train"), minlength=job.num_classes)
    return int(np.argmax(counts))


#: The TF-IDF + logistic regression reference: its settings (recorded in every run's config) and the grid
#: of C searched on validation.  Changing either changes the runs' configuration hash.
TFIDF_LR = {
    "words": {"analyzer": "word", "ngram_range": (1, 2), "min_df": 1, "sublinear_tf": True},
    "chars": {"analyzer": "char_wb", "ngram_range": (2, 5), "min_df": 2, "sublinear_tf": True},
    "classifier": {"class_weight": "balanced", "solver": "lbfgs", "max_iter": 1000},
}
TFIDF_LR_GRID = {"classifier__C": (0.01, 0.1, 1.0, 10.0, 100.0)}


def tfidf_lr(seed: int) -> Pipeline:
    """Word (1-2) and character (2-5, within words) n-gram TF-IDF, then logistic regression with
    class-balanced weights (unfitted; C from :data:`TFIDF_LR_GRID`)."""
    return Pipeline([
        ("features", FeatureUnion([("words", TfidfVectorizer(**TFIDF_LR["words"])),
                                   ("chars", TfidfVectorizer(**TFIDF_LR["chars"]))])),
        ("classifier", LogisticRegression(**TFIDF_LR["classifier"], random_state=seed)),
    ])


def _tfidf_lr(job: Job) -> Prepared:
    grid = [{name: value} for name, values in TFIDF_LR_GRID.items() for value in values]
    return Prepared({"kind": "reference", "rule": "tfidf-lr", "pipeline": TFIDF_LR, "grid": TFIDF_LR_GRID},
                    lambda: fit_on_validation(lambda: tfidf_lr(job.seed), grid, job, "tfidf-lr"))


#: The built-in reference rows, in the order reports list them.
REFERENCES = ("all-sarcastic", "majority", "tfidf-lr")
ENTRANTS.add("all-sarcastic", Entrant("all-sarcastic", "reference", "every text labelled sarcastic",
                                      _constant("all-sarcastic", lambda job: 1), binary_only=True))
ENTRANTS.add("majority", Entrant("majority", "reference", "every text labelled the training split's majority class",
                                 _constant("majority", majority_class)))
ENTRANTS.add("tfidf-lr", Entrant("tfidf-lr", "reference",
                                 "word 1-2 and character 2-5 n-gram TF-IDF + logistic regression (class-balanced), "
                                 "C chosen on validation", _tfidf_lr,
                                 cost=lambda train: FIT_COST * sum(map(len, TFIDF_LR_GRID.values()))))
