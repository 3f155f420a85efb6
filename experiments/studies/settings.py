"""What every study shares: where corpora, runs and results live and how runs are trained.

One :class:`Settings` is parsed by each command from its options, in one step
(experiments/cli/options.py), and handed to ``reproduce``, ``cross-eval`` and
``benchmark`` alike, so the three train and store runs under exactly the same
rules (and a new option is added once).
"""
from __future__ import annotations

import logging
import sys
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from experiments.results.schema import Result
from experiments.runs.one.protocol import QUICK, TrainConfig, experiment_name
from experiments.runs.console import chatty
from experiments.runs.many.scheduler import Executor, LocalExecutor, RunKind, RunTask, Trained
from experiments.runs.one.reference import Mismatch, ReferenceSet, key_of
from experiments.runs.one.spec import RunOptions, RunPlace, RunSpec
from experiments.runs.one.store import RunStore, read_config
from preprocessing.corpora import Corpora
from preprocessing.errors import IsarcasmError

log = logging.getLogger("isarcasm")


@dataclass(frozen=True)
class TrainChoice:
    """The training settings a command was asked for, before they meet an experiment's protocol:
    the settings ``given`` (typed on the command line, ``--set`` or set in the environment: a default
    left alone is none of them), ``--quick``, and the results name ``--name`` (None: a readable
    default, :meth:`TrainConfig.variant`).

    :meth:`over` is the one place where they meet, the same for ``reproduce``, ``cross-eval`` and
    ``benchmark``: a setting given wins; every other is the protocol's (an experiment file's
    ``[train]`` table; the paper's where it sets none), so a command's own defaults never replace what
    an experiment file says, and the runs a benchmark looks for are the runs ``reproduce`` makes of the
    same file.
    """

    given: dict = field(default_factory=dict)
    quick: bool = False
    name: str | None = None

    def over(self, protocol: TrainConfig | None = None) -> TrainConfig:
        """The training settings of the runs of an experiment whose protocol (its ``[train]`` table)
        is ``protocol`` (None: the paper's).  ``--quick`` is applied here, and only here."""
        config = replace(protocol or TrainConfig(), **self.given)
        return replace(config, **QUICK) if self.quick else config

    @classmethod
    def of(cls, config: TrainConfig) -> "TrainChoice":
        """The choice that gives what ``config`` sets apart from the defaults (a study started from
        code rather than from the command line)."""
        default = TrainConfig()
        return cls({f.name: getattr(config, f.name) for f in fields(TrainConfig)
                    if getattr(config, f.name) != getattr(default, f.name)})


@dataclass
class Settings:
    """Where a study's corpora, runs and results are, how its runs are trained and carried out
    (:class:`RunOptions`) and where (its executor), and the reference set it may take runs from
    (None: runs come from the store alone)."""

    corpora: Corpora
    store: RunStore = RunStore(Path("runs"))
    results_root: Path = Path("results")
    training: TrainChoice = field(default_factory=TrainChoice)
    options: RunOptions = RunOptions()
    executor: Executor = field(default_factory=LocalExecutor)
    #: The reference set (experiments/runs/one/reference.py: finished runs shipped with the repository,
    #: used where the local data agrees).
    reference: ReferenceSet | None = None
    #: The reference runs handed out so far (their folders in the store), for the reports to count.
    shipped_runs: set = field(default_factory=set, repr=False)

    @property
    def train(self) -> TrainConfig:
        """The training settings of runs of no experiment's protocol (the paper's)."""
        return self.training.over()

    def train_for(self, protocol: TrainConfig | None = None) -> TrainConfig:
        """The training settings of the runs of an experiment whose protocol is ``protocol``
        (:meth:`TrainChoice.over`)."""
        return self.training.over(protocol)

    def experiment(self, base: str, protocol: TrainConfig | None = None, trained: bool = False) -> str:
        """The name of experiment ``base``'s results and runs: ``--name`` where given; else ``base`` where the
        training settings its runs use (:meth:`train_for`) are its protocol's (``protocol``; the paper's when
        None), else a readable default that lists what differs (:func:`experiment_name`), so other settings
        never mix with it.  ``trained``: the name of its runs in the store, which a rule applied to the
        per-epoch record (tuned, grid) shares with the runs it reads (see :meth:`TrainConfig.trained`)."""
        return self.training.name or experiment_name(base, self.train_for(protocol), protocol, trajectory=trained)

    def announce(self, base: str, protocol: TrainConfig | None = None) -> None:
        """Say on stderr, before anything is trained, the name the results and runs of ``base`` get when it is a
        default of other settings than the experiment's (:meth:`experiment`; ``--name`` chooses another)."""
        name = self.experiment(base, protocol)
        if name != base and self.training.name is None and chatty():  # -q: results and errors only
            print(f"results name: {name} (other settings than {base}'s; --name NAME chooses another)", file=sys.stderr)

    def place(self, experiment: str, run: RunSpec, kind: RunKind = Trained()) -> RunPlace:
        """``run``'s readable folder in ``experiment`` and the run of its configuration hash (``kind``'s: a trained
        run's, or an entrant's scored run's) it is reused from: its folder's, else the store's in another folder,
        else the verified reference run of that hash (a local run always comes first; ``force`` retrains, so it
        reads none).  A run of other settings, in whatever folder, is never reused and never keeps the reference
        run out."""
        return self._place(experiment, run, kind.config_hash(run, self.corpora.load(run.corpus), self.corpora.data_dir))

    def _place(self, experiment: str, run: RunSpec, config_hash: str) -> RunPlace:
        """:meth:`place` of a run whose configuration hash is known."""
        place = self.store.place(experiment, run, config_hash)
        if self.reference is None or self.options.force or self.store.finished(place, config_hash):
            return place
        # the run at this folder's key too, so that one whose data differs here is named in one line
        shipped = self.shipped(self.reference.key_holding(config_hash) or key_of(place.directory),
                               config_hash=config_hash)
        return replace(place, found=shipped) if shipped else place

    def shipped(self, key: str, strict: bool = False, config_hash: str | None = None) -> Path | None:
        """The reference run ``key`` (experiments/runs/one/reference.py), verified against the local data and
        materialised in the store; None where the set has none (of ``config_hash``, when given), or where it
        does not match: one line says so, once per cell (``strict``: that line is the error)."""
        if self.reference is None:
            return None
        try:
            found = self.reference.materialised(key, self.store.root, self.corpora.load, self.corpora.data_dir,
                                                config_hash)
        except Mismatch as exc:
            if strict:
                raise
            self.reference.warn_once(str(exc))
            return None
        if found:
            self.shipped_runs.add(found)
        return found

    def localised(self, result: Result) -> Result:
        """``result`` with every run folder that is not on this machine replaced by the verified reference
        run of the same key (a results file made elsewhere names the folders of the machine that made
        it); one that the set does not hold stays as it is, for the reader to report."""
        trained = _trained(result.train)

        def local(run: str) -> str:
            shipped = None if Path(run).is_dir() else self.shipped(key_of(Path(run)), strict=True)
            if shipped and trained is not None and _trained(read_config(shipped).get("train")) != trained:
                raise IsarcasmError(f"{result.experiment}: the reference run {key_of(Path(run))} was trained with "
                                    "other settings than this results file's runs, so it "
                                    "cannot stand in for them; reproduce the experiment here to report on its runs")
            return str(shipped or run)
        return result.updated(cells=[{**cell, "runs": [local(run) for run in cell["runs"]]} if cell.get("runs")
                                     else cell for cell in result.cells])

    def task(self, experiment: str, run: RunSpec, kind: RunKind = Trained()) -> RunTask:
        """Producing ``run`` into this store's ``experiment`` under these settings: training it, or scoring an
        entrant's run (``kind``, :func:`~experiments.runs.entrants.registry.scoring`)."""
        options = tuple(sorted(self.corpora.options(run.corpus).items()))
        if run.train.context != "none":  # a corpus is loaded for this check only where context is asked for
            self.corpora.load(run.corpus).require_context(run.train.context)
        return RunTask(run, self.place(experiment, run, kind), self.corpora.data_dir, options, self.options, kind)

    def finished(self, experiment: str, run: RunSpec) -> Path | None:
        """The finished run of exactly ``run`` (its configuration hash) in ``experiment``'s folder, else in
        another folder of the store, else shipped (:meth:`place`; a failed run is no finished run: training it
        again reports its failure)."""
        config_hash = Trained().config_hash(run, self.corpora.load(run.corpus), self.corpora.data_dir)
        return self.store.finished(self._place(experiment, run, config_hash), config_hash)

    def trainable(self, models: list[str], protocol: TrainConfig | None = None) -> list[str]:
        """The models these settings can train under ``protocol`` (:meth:`train_for`), in order; every
        study applies this one policy.

        With ``--context``, a model without a context variant (one that reads features besides
        tokens, as Dense-LSTM does) is left out with a warning before anything is trained, rather
        than failing after the other models' runs; none left is an error.  An unknown name is an
        error here too.
        """
        from baselines.registry import MODELS  # with installed plugins: imported where used

        specs = [MODELS.get(model) for model in models]
        if self.train_for(protocol).context == "none":
            return list(models)
        kept = [model for model, spec in zip(models, specs) if spec.reads_context]
        for model in dict.fromkeys(m for m in models if m not in kept):
            log.warning(f"{model} left out: context needs a model that reads tokens alone, and {model} also "
                        "reads other features")
        if models and not kept:
            raise IsarcasmError("context: none of the chosen models reads tokens alone; leave context out or "
                                "choose such models with --models")
        return kept


def _trained(train: dict | None) -> dict | None:
    """The identity of the runs behind training settings as a results file or a run's config.json records
    them (:meth:`TrainConfig.identity` of their trajectory, read by :meth:`TrainConfig.recorded`).  None when
    the file records no settings."""
    if not train:
        return None
    return TrainConfig.recorded(train, "training settings").trained().identity()
