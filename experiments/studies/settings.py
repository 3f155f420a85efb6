"""What every study shares: where runs and results live and how runs are trained.

One :class:`Settings` is built by each command from its options and handed to
``reproduce``, ``cross-eval`` and ``benchmark`` alike, so the three train and
store runs under exactly the same rules (and a new option is added once).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from experiments.runs.cluster import RayExecutor, import_ray
from experiments.runs.protocol import TrainConfig, experiment_name
from experiments.runs.scheduler import Executor, LocalExecutor, RunTask, capped_jobs
from experiments.runs.reference import Mismatch, ReferenceSet, key_of, run_key
from experiments.runs.spec import RunOptions, RunPlace, RunSpec
from experiments.runs.store import CONFIG, RunStore, read_json
from experiments.runs.training import expected_hash
from preprocessing.corpora import corpus_options, load_corpus
from preprocessing.errors import IsarcasmError
from preprocessing.records import Dataset

log = logging.getLogger("isarcasm")


@dataclass
class Settings:
    data_dir: Path
    runs_root: Path = Path("runs")
    results_root: Path = Path("results")
    train: TrainConfig = field(default_factory=TrainConfig)
    #: The command line's corpus options (columns of file corpora, ``text_file`` of isarcasm-ids).
    file_options: dict = field(default_factory=dict)
    force: bool = False
    verbose: int = 2
    tensorboard: bool = False
    #: Runs trained at once, each in its own process (see :mod:`experiments.runs.scheduler`).
    jobs: int = 1
    #: ``local`` (this machine, ``jobs`` at once) or ``ray`` (Ray tasks; see :mod:`experiments.runs.cluster`).
    executor_kind: str = "local"
    #: The Ray cluster (``auto``, ``ray://host:10001``...); None starts Ray in this process.
    address: str | None = None
    #: Ray resources of one run (``--executor ray``).
    cpus_per_run: float = 1
    gpus_per_run: float = 0
    #: The folder of the reference set (experiments/runs/reference.py: finished runs shipped with the
    #: repository, used where the local data agrees); None: runs come from the store alone.
    reference: Path | None = None
    _datasets: dict = field(default_factory=dict, repr=False)
    _references: dict = field(default_factory=dict, repr=False)
    #: The reference runs handed out so far (their folders in the store), for the reports to count.
    shipped_runs: set = field(default_factory=set, repr=False)

    def __post_init__(self):
        if self.executor_kind == "ray":
            if self.jobs != 1:
                raise IsarcasmError("--jobs is for --executor local; with --executor ray, the cluster's CPUs "
                                    "and --cpus-per-run decide how many runs train at once")
            import_ray()  # fail now, in one line, rather than after loading the corpora
        elif self.address is not None or self.cpus_per_run != 1 or self.gpus_per_run != 0:
            raise IsarcasmError("--address, --cpus-per-run and --gpus-per-run are for --executor ray")
        else:
            self.jobs = capped_jobs(self.jobs)  # said once, here, before any progress bar

    def corpus_options(self, name: str) -> dict:
        """The file-corpus options that apply to corpus ``name``."""
        return corpus_options(name, **self.file_options)

    def dataset(self, name: str) -> Dataset:
        """Corpus ``name``, loaded once per study."""
        if name not in self._datasets:
            self._datasets[name] = load_corpus(name, self.data_dir, **self.corpus_options(name))
        return self._datasets[name]

    def train_for(self, protocol: TrainConfig | None = None) -> TrainConfig:
        """The training settings of the runs of an experiment whose protocol (its ``[train]`` table) is
        ``protocol``: :attr:`train`, except for the settings that are no command-line option
        (``threshold``, ``validation_fraction``, ``max_train``): the command line cannot set them, so
        where :attr:`train` holds their default, the protocol's value is the one its runs use.
        (The command-line options were already merged with the protocol by ``train_config``: one
        given wins, one left out takes the protocol's value.)"""
        if protocol is None:
            return self.train
        default = TrainConfig()
        taken = {f.name: getattr(protocol, f.name) for f in fields(TrainConfig)
                 if not f.metadata.get("help") and getattr(self.train, f.name) == getattr(default, f.name)}
        return replace(self.train, **taken)

    def experiment(self, base: str, protocol: TrainConfig | None = None, trained: bool = False) -> str:
        """The name of experiment ``base``'s results: its name, then how the training settings its runs
        use (:meth:`train_for`) differ from its protocol (``protocol``; the paper's when None), so
        variants never mix with it.  ``trained``: the name of its runs in the store, which a rule applied
        to the per-epoch record (tuned, grid) shares with the runs it reads (see :meth:`TrainConfig.trained`)."""
        return experiment_name(base, self.train_for(protocol), protocol, trajectory=trained)

    @property
    def store(self) -> RunStore:
        return RunStore(self.runs_root)

    def place(self, experiment: str, run: RunSpec) -> RunPlace:
        """``run``'s place in the store, and, when no folder there holds a finished run, the verified
        reference run of the same key as its last twin (a local run always comes first; ``force``
        retrains, so it reads none)."""
        place = self.store.place(experiment, run)
        if self.reference is None or self.force or self._finished_in(place):
            return place
        shipped = self.shipped(run_key(experiment, run.corpus, run.model, run.seed, run.fold))
        return replace(place, twins=(*place.twins, shipped)) if shipped else place

    def _finished_in(self, place: RunPlace, config_hash: str | None = None) -> Path | None:
        """The folder of ``place`` that :meth:`RunStore.lookup` finds a finished run of this configuration (any,
        without ``config_hash``) in; None where it finds a failed run or none."""
        found = self.store.lookup(place, config_hash)
        return found.directory if found and not found.failure else None

    def shipped(self, key: str, strict: bool = False) -> Path | None:
        """The reference run ``key`` (experiments/runs/reference.py), verified against the local data and
        materialised in the store; None where the set has none, or where it does not match: one line says
        so, once per cell (``strict``: that line is the error)."""
        if self.reference is None:
            return None
        references = self.reference_set()
        try:
            found = references.materialised(key, self.runs_root, self.dataset, self.data_dir)
        except Mismatch as exc:
            if strict:
                raise
            references.warn_once(str(exc))
            return None
        if found:
            self.shipped_runs.add(found)
        return found

    def reference_set(self) -> ReferenceSet:
        """The reference set of :attr:`reference`, read once."""
        return self._references.setdefault(self.reference, ReferenceSet(self.reference))

    def localised(self, result: dict) -> dict:
        """``result`` with every run folder that is not on this machine replaced by the verified reference
        run of the same key (a results file made elsewhere names the folders of the machine that made
        it); one that the set does not hold stays as it is, for the reader to report."""
        trained = _trained(result.get("train"))

        def local(run: str) -> str:
            shipped = None if Path(run).is_dir() else self.shipped(key_of(Path(run)), strict=True)
            if shipped and trained is not None and _trained(read_json(shipped / CONFIG).get("train")) != trained:
                raise IsarcasmError(f"{result['experiment']}: the reference run {key_of(Path(run))} was trained with "
                                    "other settings than this results file's runs (e.g. another --engine), so it "
                                    "cannot stand in for them; reproduce the experiment here to report on its runs")
            return str(shipped or run)
        return {**result, "cells": [{**cell, "runs": [local(run) for run in cell["runs"]]} if cell.get("runs") else cell
                                    for cell in result["cells"]]}

    def task(self, experiment: str, run: RunSpec) -> RunTask:
        """Training ``run`` into this store's ``experiment`` under these settings."""
        if run.train.context != "none":  # a corpus is loaded for this check only where context is asked for
            self.dataset(run.corpus).require_context(run.train.context)
        return RunTask(run, self.place(experiment, run), self.data_dir,
                       tuple(sorted(self.corpus_options(run.corpus).items())),
                       RunOptions(force=self.force, tensorboard=self.tensorboard))

    def finished(self, experiment: str, run: RunSpec) -> Path | None:
        """The finished run of exactly ``run`` in ``experiment``'s folder, else in another experiment's
        (a failed run is no finished run: training it again reports its failure)."""
        config_hash = expected_hash(run, self.dataset(run.corpus), self.data_dir)
        return self._finished_in(self.place(experiment, run), config_hash)

    def executor(self) -> Executor:
        """Where the runs of a study are trained (see :func:`experiments.runs.scheduler.run_tasks`)."""
        if self.executor_kind == "ray":
            return RayExecutor(self.address, self.cpus_per_run, self.gpus_per_run)
        return LocalExecutor(self.jobs, self.verbose)

    def trainable(self, models: list[str]) -> list[str]:
        """The models these settings can train, in order; every study applies this one policy.

        With ``--context``, a model without a context variant (one that reads features besides
        tokens, as Dense-LSTM does) is left out with a warning before anything is trained, rather
        than failing after the other models' runs; none left is an error.  An unknown name is an
        error here too.
        """
        from baselines.registry import MODELS  # loads TensorFlow: only when a study runs

        specs = [MODELS.get(model) for model in models]
        if self.train.context == "none":
            return list(models)
        kept = [model for model, spec in zip(models, specs) if spec.reads_context]
        for model in dict.fromkeys(m for m in models if m not in kept):
            log.warning(f"{model} left out: --context needs a model that reads tokens alone, and {model} also "
                        "reads other features")
        if models and not kept:
            raise IsarcasmError("--context: none of the chosen models reads tokens alone; leave out --context or "
                                "choose such models with --models")
        return kept


def _trained(train: dict | None) -> dict | None:
    """The identity of the runs behind training settings as a results file or a run's config.json records
    them (:meth:`TrainConfig.identity` of their trajectory); a results file written before the fast engine
    has no ``engine``: its runs are the exact engine's.  None when the file records no settings."""
    if not train:
        return None
    config = TrainConfig.from_dict({"engine": "exact", **train}, "training settings", ignore_unknown=True)
    return config.trained().identity()
