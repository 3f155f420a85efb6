"""The evaluation protocol: training settings and how a corpus is split.

Paper settings are the defaults (batch 128, 30 epochs, Adam lr 1e-3).  The
validation split is always carved from training data with the run's seed;
the test split is only ever touched after model selection is finished.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

from sklearn.model_selection import train_test_split

from embeddings.vectors import DEFAULT as DEFAULT_VECTORS
from experiments.runs.one.provenance import backend_variant
from preprocessing.config import PreprocessConfig
from preprocessing.errors import IsarcasmError
from preprocessing.schema import Range, from_mapping, problems
from preprocessing.records import Dataset, Record

#: The selection rules (:mod:`experiments.runs.one.trajectory` applies them).  ``tuned`` and ``grid`` choose a
#: threshold too, so they are for binary tasks; they read the same training trajectory as ``best``: a study
#: trains ``best`` runs and applies them to their per-epoch record.
RULES = ("best", "last", "tuned", "grid")
THRESHOLD_RULES = ("tuned", "grid")
CLASS_WEIGHTS = ("none", "balanced")
#: Dialogue context read beside the text: none, the last turn, or all turns (see inputs.context_text).
CONTEXTS = ("none", "last", "all")
#: What model selection maximises on validation data.  "default": the sarcastic-class F1 for binary
#: tasks (the iSarcasm authors' metric), macro-F1 otherwise.  "macro-f1": macro-F1 for binary tasks
#: too, for corpora whose task metric it is (KoCoSa): on a mostly sarcastic validation slice the
#: sarcastic-class F1 favours epochs that label nearly everything sarcastic.
SELECT_ON = ("default", "macro-f1")
#: How training texts are batched: "shuffled" (Keras' shuffled batches, padded to max_len: the paper's),
#: "bucket" (texts of similar length together, each batch cut to its longest text: faster, a variant) or
#: "class-ratio" (every batch keeps the training split's class ratio, redrawn each epoch: after the iSarcasm
#: authors' code) or "class-ratio-once" (the authors' own: formed once, in corpus order; see
#: baselines.batching.class_ratio_once_rows).
BATCHINGS = ("shuffled", "bucket", "class-ratio", "class-ratio-once")
#: The batchings that keep the training class ratio in every batch (single-label corpora only).
CLASS_RATIO = ("class-ratio", "class-ratio-once")
#: The LSTMs' initial state: "zeros" (Keras', the paper's models) or "random" (the iSarcasm authors' code:
#: uniform in ±0.01, drawn anew for every batch; baselines.config.ModelConfig.initial_state).
INITIAL_STATES = ("zeros", "random")
#: The engine every run trains with: each batch computed as length-sorted pieces cut to their longest text, one
#: update per batch, validation scored once per epoch (:class:`baselines.batching.SplitBatches`).  Its runs and
#: results record it, so that they keep their hash and are told apart from the exact engine's, which record
#: ``exact`` or, made before engines had a name, none (:func:`retired`).
ENGINE = {"engine": "fast"}
#: The last commit that has what left the suite: the exact engine (Keras' padded batches and validation pass)
#: and the diagnostics that score another test set (``--test-texts``, ``report --padded-batches``).
RETIRED_AT = "e853916"
#: The settings that left the suite, with what they chose; at :data:`RETIRED_AT` each is the option ``--<key>``.
RETIRED_SETTINGS = {"engine": "the choice of the exact engine; every run now trains with the fast one",
                    "test_texts": "scoring another test set, a diagnostic"}
#: How the embedding rows of words without a pre-trained vector start: "normal" (a seeded normal draw with the
#: vectors' standard deviation, :mod:`embeddings.matrix`) or "uniform" (U(-0.1, 0.1), the iSarcasm authors' code).
OOV_INITS = ("normal", "uniform")
#: Which texts the vocabulary is counted on: "train" (rare tokens become <unk>; ``--unk-scope`` may count every
#: split) or "all-splits-drop" (every split's texts, never labels; rare tokens are dropped: the authors' code).
VOCABULARIES = ("train", "all-splits-drop")
#: The order of ``--batching shuffled``'s batches: "once" (Keras' seeded ``fit(shuffle=True)``, which on TensorFlow
#: trains every epoch on one permutation: docs/protocol.md#shuffled-once; every committed run) or "each-epoch" (a new
#: permutation every epoch, drawn from the run's seed: :func:`experiments.runs.one.training.fit_data`).
BATCH_ORDERS = ("once", "each-epoch")
#: A field every run has recorded (see ``before`` of :func:`_setting`).
_ALWAYS = object()


def _setting(default, choices: tuple[str, ...] = (), before=_ALWAYS, range: Range | None = None):
    """A training setting: a key of an experiment file's ``[train]`` table and of ``--set`` (the commands'
    own options are the few people change daily: experiments/cli/options.py).  ``choices`` and ``range`` are
    the values it may take, declared here once and checked wherever a value comes from (options, experiment
    files, run files: :mod:`preprocessing.schema`).  ``before``: for a field added after runs were first
    stored, the value those runs had (usually its default): at that value it is left out of the
    configuration hash (:meth:`TrainConfig.identity`), so those runs stay valid.  What each value does in
    the iSarcasm authors' code, with its lines there: docs/protocol.md#settings."""
    return field(default=default, metadata={"choices": choices, "before": before, "range": range})


#: Upper bounds no real training asks for; a value above is a typo (``1e18``), refused before it sizes anything.
MAX_EPOCHS = 100_000
MAX_BATCH = 1 << 20
POSITIVE = Range(0, low_open=True)
FRACTION = Range(0, 1, low_open=True, high_open=True)


@dataclass(frozen=True)
class TrainConfig:
    """Training settings, the paper's by default; everything here goes into config.json and the config hash."""

    #: Training epochs (the paper's 30).
    epochs: int = _setting(30, range=Range(1, MAX_EPOCHS))
    #: Examples per training step (the paper's 128).
    batch_size: int = _setting(128, range=Range(1, MAX_BATCH))
    #: Adam's learning rate.
    learning_rate: float = _setting(1e-3, range=POSITIVE)
    validation_fraction: float = _setting(0.1, range=FRACTION)
    #: The selection rule (:data:`RULES`): best, the epoch of best validation F1; last, the final epoch; tuned,
    #: best's epoch with a threshold tuned on validation; grid, the iSarcasm authors' per-epoch threshold grid
    #: (studies apply tuned and grid to best runs' per-epoch record).
    selection: str = _setting("best", RULES)
    threshold: float = _setting(0.5, range=FRACTION)
    #: Also report a variant whose threshold is tuned on validation data.
    tune_threshold: bool = _setting(False)
    #: Word vectors (:func:`embeddings.vectors.vectors_help`).
    embeddings: str = _setting(DEFAULT_VECTORS)
    #: balanced: weight the loss by inverse class frequency.
    class_weight: str = _setting("none", CLASS_WEIGHTS)
    #: Cap on training examples (set by --quick smoke runs only).
    max_train: int | None = _setting(None, range=Range(1))
    #: Dialogue context read beside the text by a second encoder (:data:`CONTEXTS`; corpora with context).
    context: str = _setting("none", CONTEXTS, before="none")
    #: The validation F1 that selection ``best`` maximises (:data:`SELECT_ON`).
    select_on: str = _setting("default", SELECT_ON, before="default")
    #: How training texts are batched (:data:`BATCHINGS`).
    batching: str = _setting("shuffled", BATCHINGS, before="shuffled")
    #: Clip the gradients' global norm to this value, as ``tf.clip_by_global_norm``.
    clip_global_norm: float | None = _setting(None, before=None, range=POSITIVE)
    #: How words without a pre-trained vector start (:data:`OOV_INITS`).
    oov_init: str = _setting("normal", OOV_INITS, before="normal")
    #: Drop training texts of fewer tokens than this (validation and test are untouched).
    min_train_tokens: int | None = _setting(None, before=None, range=Range(1))
    #: Keep the first N tokens of each training text (validation and test are untouched).
    cut_train_tokens: int | None = _setting(None, before=None, range=Range(1))
    #: Which texts the vocabulary is counted on (:data:`VOCABULARIES`); all-splits-drop counts the texts of
    #: every split, never their labels, and drops words seen fewer than ``unk_min_count`` times.
    vocabulary: str = _setting("train", VOCABULARIES, before="train")
    #: The initial state of every LSTM (:data:`INITIAL_STATES`); random is drawn anew for every batch, at
    #: evaluation too, from the run's seed.
    initial_state: str = _setting("zeros", INITIAL_STATES, before="zeros")
    #: The order of shuffled batches (:data:`BATCH_ORDERS`).
    batch_order: str = _setting("once", BATCH_ORDERS, before="once")
    #: Dropout before every model's classifier (None: each model's own, `isarcasm models list`).
    dropout: float | None = _setting(None, before=None, range=Range(0, 1, high_open=True))

    def __post_init__(self):
        wrong = problems(self)
        if wrong:  # every type, choice and range is declared once, on its field
            raise IsarcasmError(wrong)
        if self.batch_order != "once" and self.batching != "shuffled":
            raise IsarcasmError(f"batch_order {self.batch_order} is for batching shuffled; batching {self.batching} "
                                "draws and orders its own batches (see docs/protocol.md#settings)")

    @classmethod
    def from_dict(cls, data: dict, source: str | Path, ignore_unknown: bool = False) -> "TrainConfig":
        """The settings of a file (an experiment's ``[train]`` table, a run's config.json), checked
        key by key against the fields' declarations (:func:`preprocessing.schema.from_mapping`)."""
        return from_mapping(cls, data, source, ignore_unknown)

    @classmethod
    def recorded(cls, train: dict, source: str | Path) -> "TrainConfig":
        """The settings a results file or a run's config.json records (``train``); keys of a newer version are
        ignored.  Settings of what left the suite (:func:`retired`) are one line naming the commit that has it."""
        if gone := retired(train):
            raise IsarcasmError(rerun_at(f"{source}: {gone}", "the command that made it"))
        return cls.from_dict(train, source, ignore_unknown=True)

    def recorded_form(self) -> dict:
        """Every setting as a results file records them: with the engine (:data:`ENGINE`)."""
        return {**asdict(self), **ENGINE}

    def trained(self) -> "TrainConfig":
        """The settings of the training trajectory: ``tuned`` and ``grid`` are applied to the per-epoch
        record of a ``best`` run, so a study trains (and reuses) ``best`` runs for them."""
        return replace(self, selection="best") if self.selection in THRESHOLD_RULES else self

    def identity(self) -> dict:
        """The settings that identify a run (its config.json and hash): every field except those
        added later that still hold the value runs had before them (``before`` of :func:`_setting`), and
        the engine (:data:`ENGINE`), which every run records."""
        changed = {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) != f.metadata["before"]}
        return {**changed, **ENGINE}

    def variant(self, protocol: "TrainConfig | None" = None, trajectory: bool = False) -> str:
        """A readable default name for how this differs from ``protocol`` (default: the paper's), as a name
        suffix ('' when the same): ``quick`` for ``--quick``, then ``field-value`` for each setting changed,
        then a Keras backend other than TensorFlow (``backend-jax``).  Only a default for ``--name``: it
        names folders and files, and nothing reads a setting back out of it (a run's identity is its
        config.json and hash).  ``trajectory``: the name of the runs, which every rule that reads a ``best``
        run's record shares (both sides compared as :meth:`trained`)."""
        config, protocol = self, protocol or TrainConfig()
        if trajectory:
            config, protocol = config.trained(), protocol.trained()
        quick = []
        if (config.epochs, config.max_train) == (QUICK["epochs"], QUICK["max_train"]) != (protocol.epochs,
                                                                                           protocol.max_train):
            quick, protocol = ["quick"], replace(protocol, **QUICK)
        return "-".join([*quick, *changed_fields(config, protocol), *backend_variant()])


def retired(train: dict) -> str:
    """'' for training settings (a results file's or a run's ``train``) this suite trains with; else what left
    the suite made them: the exact engine (a file that records settings but no engine was made before the fast
    one), or a test set other than the published one (``--test-texts``, a diagnostic)."""
    if train and train.get("engine", "exact") != ENGINE["engine"]:
        return f"trained by the {train.get('engine', 'exact')} engine"
    if train.get("test_texts", "published") != "published":
        return f"scored on another test set (--test-texts {train['test_texts']}, a diagnostic)"
    return ""


def rerun_at(what: str, command: str) -> str:
    """The one line for ``what``, made by something that left the suite: the commit that still has it
    (:data:`RETIRED_AT`) and ``command`` (in words, or a command in backticks) to run there."""
    return (f"{what}, which left the suite; commit {RETIRED_AT} is the last that has it: run {command} there "
            f"(`git checkout {RETIRED_AT}`)")


def experiment_name(base: str, config: TrainConfig, protocol: TrainConfig | None = None,
                    preprocess: PreprocessConfig | None = None, trajectory: bool = False) -> str:
    """The one rule naming where runs and results of ``base`` live: ``base``, then how the training
    settings differ from the protocol (:meth:`TrainConfig.variant`), then how the preprocessing differs
    from the paper's for its language.  Every command that stores runs names its folders with it, so a
    run trained by ``train`` and one trained by ``reproduce`` with the same settings get the same suffix."""
    preprocessing = (changed_fields(preprocess, PreprocessConfig(language=preprocess.language))
                     if preprocess is not None else [])
    return "-".join(filter(None, [base, config.variant(protocol, trajectory), *preprocessing]))


def changed_fields(config, default, ignore: tuple[str, ...] = ("tune_threshold",)) -> list[str]:
    """``field-value`` for every field of a dataclass that differs from ``default`` (see :func:`value_name`)."""
    return [f"{f.name.replace('_', '-')}-{value_name(getattr(config, f.name))}" for f in fields(config)
            if f.name not in ignore and getattr(config, f.name) != getattr(default, f.name)]


#: A value that names itself in a variant: a choice or keyword (``balanced``, ``macro-f1``, ``word2vec``).
_PLAIN_VALUE = re.compile(r"[A-Za-z0-9_+=,@-]+")


def value_name(value) -> str:
    """A setting's value as part of a variant name: one name per value, and a safe folder name.

    Numbers are written out in full (``0.01``, ``1e-05``; a whole float as an integer, ``95``, so the
    names of today's whole values stay as they were), never cut at the dot: ``0.01`` and ``0.02`` must
    not share a name.  Keywords stay as they are.  Any other text (a file path, text with a dot or
    characters no folder name may hold) is the file's stem, made safe, plus 8 hex digits of the sha256
    of the full value, so two files with the same name in different folders are two variants.
    """
    if value is None or isinstance(value, (bool, int)):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    text = str(value)
    if _PLAIN_VALUE.fullmatch(text):
        return text
    stem = Path(text).stem if "/" in text or "\\" in text or Path(text).suffix else text
    readable = re.sub(r"[^A-Za-z0-9._+=,@-]+", "_", stem).strip(".")[:60] or "value"
    return f"{readable}-{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


# --quick: a smoke run of the whole pipeline (one seed unless --seeds is given).
QUICK = dict(epochs=2, max_train=600)


@dataclass
class Splits:
    train: list[Record]
    validation: list[Record]
    test: list[Record]
    validation_source: str  # "dev split" or "10% of train, stratified, seed N"


def fold_records(dataset: Dataset, fold: int) -> tuple[list[Record], list[Record]]:
    """The training and test records of official fold ``fold`` (0-based)."""
    if not 0 <= fold < len(dataset.folds):
        raise IsarcasmError(f"corpus '{dataset.name}' has {len(dataset.folds)} official folds; there is no fold "
                            f"{fold + 1}")
    by_id = {r.id: r for r in dataset.records}
    chosen = dataset.folds[fold]
    return [by_id[i] for i in chosen.train_ids], [by_id[i] for i in chosen.test_ids]


#: A corpus' own validation split, by name (a user file's ``--split-col`` may say either), and how a run
#: records its source.
VALIDATION_SPLITS = {"dev": "official dev split", "validation": "the corpus' own validation split"}


def _split_names(dataset: Dataset) -> tuple[str, str | None]:
    """The splits a run reads from ``dataset``: its training split (``train``, else the first, e.g. KoCoSa's
    ``dev`` where no train split is public) and its own validation split (None: carved from training data).
    A corpus without a test split, or with a split none of these reads (a user file's ``val``, or
    ``validation`` beside ``dev``), is refused in one line, never dropped without a word."""
    splits = dataset.splits
    if "test" not in splits:
        raise IsarcasmError(f"corpus '{dataset.name}' has no test split (splits: {', '.join(splits)})")
    train_name = "train" if "train" in splits else splits[0]
    if train_name == "test":
        raise IsarcasmError(f"corpus '{dataset.name}' has only a test split; it can be evaluated on, "
                            "not trained on")
    held_out = next((name for name in VALIDATION_SPLITS if name in splits), None) if train_name == "train" else None
    unused = [name for name in splits if name not in (train_name, held_out, "test")]
    if unused:
        raise IsarcasmError(f"corpus '{dataset.name}': split(s) {', '.join(map(repr, unused))} would be unused: a "
                            f"run reads train, test and one of {' or '.join(VALIDATION_SPLITS)} for validation; "
                            "rename or remove those rows")
    return train_name, held_out


def make_splits(dataset: Dataset, seed: int, validation_fraction: float = 0.1,
                max_train: int | None = None, fold: int | None = None) -> Splits:
    """Train / validation / test for one run.

    Training data is the training split of :func:`_split_names`; validation is the corpus' own ``dev`` (or,
    in a user's file, ``validation``) split when it has one beside ``train``, else a stratified slice of
    training data drawn with the run's seed.  With ``fold`` (0-based), the corpus' official
    cross-validation fold gives train and test instead of its splits.
    """
    if fold is not None:
        (train_name, held_out), (train, test) = (f"fold {fold + 1}", None), fold_records(dataset, fold)
    else:
        train_name, held_out = _split_names(dataset)
        train, test = dataset.split(train_name), dataset.split("test")
    missing_text = sum(r.text is None for r in train + test)
    if missing_text:
        raise IsarcasmError(
            f"corpus '{dataset.name}' has no text for {missing_text} records; supply it with --text-file ID<TAB>TEXT"
        )
    if held_out:
        validation, source = dataset.split(held_out), VALIDATION_SPLITS[held_out]
    else:
        labels = [r.label for r in train]
        try:
            train, validation = train_test_split(
                train, test_size=validation_fraction, stratify=labels, random_state=seed
            )
        except ValueError as exc:
            raise IsarcasmError(f"cannot carve a stratified validation split from '{dataset.name}': {exc}") from None
        source = f"{validation_fraction:.0%} of {train_name}, stratified, seed {seed}"
    if max_train and len(train) > max_train:
        try:
            train, _ = train_test_split(train, train_size=max_train, stratify=[r.label for r in train],
                                        random_state=seed)
        except ValueError as exc:
            raise IsarcasmError(f"cannot keep a stratified max_train = {max_train} training examples of "
                                f"'{dataset.name}': {exc}") from None
    return Splits(train=list(train), validation=list(validation), test=test, validation_source=source)
