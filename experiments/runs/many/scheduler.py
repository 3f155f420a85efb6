"""The one place where a study's runs are scheduled: :func:`run_tasks`.

Every study (reproduce, cross-eval, benchmark) turns its cells into
:class:`RunTask` s and hands them here; an executor trains them and reports
each finished run back.  :class:`LocalExecutor` trains them in this process
(``--jobs 1``) or in a pool of worker processes (``--jobs N``).

One run is small TensorFlow work that spreads badly over cores: runs side by
side, each with fewer threads, train more examples per second than one run
given every core (docs/results/speed.md has the measurement).  ``--jobs N`` starts N worker processes
(spawned: TensorFlow must not be forked), gives each cores/N threads, and hands
them runs.  Each run is still one :func:`experiments.runs.one.training.train_run` with its own seed,
so it writes the same files and is reused the same way as when trained alone.

A task's :class:`RunKind` says how its run is produced and what it costs: :class:`Trained` (a model of
the registry, trained) or :class:`experiments.runs.entrants.registry.Scoring` (an entrant's run, scored: a
reference row, a scikit-learn estimator, outside predictions, a Keras model entrant).  Executors call
the kind and never ask which one it is, so ``--jobs``, the progress bar and a failing run treat both
alike; a kind is plain data, so a worker process gets it with its task.

Workers take the runs most expensive first (:func:`by_cost`): run costs differ
many times over between models (Dense-LSTM's against a CNN's), and a sweep whose
last run is a long one leaves the other workers idle while it finishes.
"""
from __future__ import annotations

import ctypes
import functools
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from tqdm import tqdm

from experiments.runs.one import provenance
from experiments.runs.console import chatty, set_up_worker_console, worker_level
from experiments.runs.one.protocol import TrainConfig
from experiments.runs.one.spec import RunOptions, RunPlace, RunSpec
from experiments.runs.one.store import RunResult, RunStore
from experiments.runs.one.training import expected_hash, train_run
from preprocessing.corpora import load_corpus
from preprocessing.errors import IsarcasmError
from preprocessing.records import Dataset


class RunKind(Protocol):
    """How a task's run is produced and what it costs; picklable (a worker process gets it with its task)."""

    #: Whether a Ray node can produce it without this machine's files (:func:`training.train_detached`); an
    #: executor that runs tasks elsewhere produces the other runs in this process.
    detached: bool

    def produced_under(self, train: TrainConfig) -> TrainConfig:
        """The training settings its run is produced under in a study under ``train`` (its spec's)."""

    def config_hash(self, spec: RunSpec, dataset: Dataset, data_dir: Path) -> str:
        """The run's configuration hash, its identity (the hash its config.json records once it is produced):
        where it is placed and what is reused for it.  A run of input it refuses is one line here, before any
        run is written."""

    def produce(self, spec: RunSpec, dataset: Dataset, place: RunPlace, data_dir: Path,
                options: RunOptions) -> RunResult:
        """Write the run (or find it finished) through :meth:`RunStore.produce`; its result."""

    def cost(self, spec: RunSpec, dataset: Dataset) -> float:
        """The run's expected time, in the units of :attr:`baselines.registry.ModelSpec.cost` x training
        examples x epochs: it only orders a sweep's runs."""

    def stored(self, spec: RunSpec, dataset: Dataset, place: RunPlace, data_dir: Path) -> RunResult | None:
        """The run as the store holds it already (finished, or failed: :meth:`RunStore.lookup`), found without
        producing it; None where it is not stored or cannot be known before it is produced."""


@dataclass(frozen=True)
class Trained:
    """The run of a model of the registry (built in or a ``--model-module`` plugin, which every worker
    loads): trained by :func:`experiments.runs.one.training.train_run`."""

    detached = True

    def produced_under(self, train: TrainConfig) -> TrainConfig:
        """The settings of the training trajectory (:meth:`TrainConfig.trained`): a rule applied to the per-epoch
        record (tuned, grid) is applied when the cell is summarised, to a ``best`` run."""
        return train.trained()

    def config_hash(self, spec: RunSpec, dataset: Dataset, data_dir: Path) -> str:
        return expected_hash(spec, dataset, data_dir)

    def produce(self, spec: RunSpec, dataset: Dataset, place: RunPlace, data_dir: Path,
                options: RunOptions) -> RunResult:
        return train_run(spec, dataset, place, data_dir, options)

    def stored(self, spec: RunSpec, dataset: Dataset, place: RunPlace, data_dir: Path) -> RunResult | None:
        return RunStore.lookup(place, self.config_hash(spec, dataset, data_dir))

    def cost(self, spec: RunSpec, dataset: Dataset) -> float:
        """The model's relative cost (``ModelSpec.cost``) times its training examples and epochs."""
        from baselines.registry import MODELS  # with installed plugins: imported where used

        return MODELS.get(spec.model).cost * spec.training_examples(dataset) * spec.train.epochs


@dataclass(frozen=True)
class RunTask:
    """One run to produce: everything a worker process needs to do it.  ``corpus_options`` are the
    reader options ``spec.corpus`` is loaded with (a researcher's file: its columns); ``kind`` how the
    run is produced (trained, unless an entrant scores it)."""

    spec: RunSpec
    place: RunPlace
    data_dir: Path
    corpus_options: tuple[tuple[str, object], ...] = ()
    options: RunOptions = RunOptions()
    kind: RunKind = Trained()

    def with_verbose(self, verbose: int) -> "RunTask":
        """The task as an executor runs it: Keras' output is the executor's to choose."""
        return replace(self, options=replace(self.options, verbose=verbose))


class Executor(Protocol):
    """Trains tasks and calls ``finished(index, result)`` as each run is in (in any order); a run
    it finds finished already is reported the same way.  :class:`LocalExecutor` and
    :class:`experiments.runs.many.cluster.RayExecutor` are the two."""

    def run(self, tasks: list[RunTask], datasets: dict[str, Dataset],
            finished: Callable[[int, RunResult], None]) -> None: ...


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def by_cost(tasks: list[RunTask], datasets: dict[str, Dataset]) -> list[int]:
    """Task indices, the longest expected run first (longest processing time first), by each task's
    :meth:`RunKind.cost`.  Only the order in which runs start changes; each run's numbers do not depend on it."""
    def cost(index: int) -> float:
        task = tasks[index]
        return task.kind.cost(task.spec, datasets[task.spec.corpus])

    return sorted(range(len(tasks)), key=cost, reverse=True)


def produce(task: RunTask, dataset: Dataset) -> RunResult:
    """The task's run, produced as its kind does it, in this process."""
    return task.kind.produce(task.spec, dataset, task.place, task.data_dir, task.options)


def report_stored(tasks: list[RunTask], datasets: dict[str, Dataset],
                  finished: Callable[[int, RunResult], None]) -> list[int]:
    """Report through ``finished`` each task whose run is stored already (unless forced); the indices of the
    others.  The one lookup of both executors: a resumed sweep so starts workers (``--jobs N``: N TensorFlow
    processes, seconds each to start) or Ray only for the runs it lacks, and none where it has them all."""
    todo = []
    for index, task in enumerate(tasks):
        spec = task.spec
        done = None if task.options.force else task.kind.stored(spec, datasets[spec.corpus], task.place, task.data_dir)
        if done:
            finished(index, done)
        else:
            todo.append(index)
    return todo


def require_distinct_folders(tasks: list[RunTask]) -> None:
    """Refuse, in one line, runs of two corpora that would be written to one folder: the store names
    a file's runs by its stem, so ``a/sub.csv`` and ``b/sub.csv`` (or a ``riloff.csv`` beside Riloff)
    would train into one folder, and the second run would replace the first one's under its name."""
    owners: dict[Path, str] = {}
    for task in tasks:
        other = owners.setdefault(task.place.directory, task.spec.corpus)
        if other != task.spec.corpus:
            raise IsarcasmError(f"{other} and {task.spec.corpus} would train into the same run folder "
                                f"{task.place.directory} (runs are stored by the file's name without its folder); "
                                "rename one of the files")


def run_tasks(tasks: list[RunTask], datasets: dict[str, Dataset], executor: Executor, description: str,
              on_done: Callable[[int, RunResult], None] | None = None) -> list[RunResult]:
    """Produce every task (train it, or score an entrant's run) under one progress bar; return their results in
    task order.

    ``on_done(index, result)`` is called as each run finishes (in the order they finish), e.g. to
    print a cell's summary once its last run is in.  A failed run (:attr:`RunResult.failure`) is
    one of the results, and the sweep goes on past it; one line at the end says how many failed.
    """
    require_distinct_folders(tasks)
    results: dict[int, RunResult] = {}
    progress = tqdm(total=len(tasks), desc=description, unit="run", dynamic_ncols=True,
                    disable=not tasks or not chatty())

    def finished(index: int, result: RunResult) -> None:
        results[index] = result
        progress.set_postfix_str(f"last done: {tasks[index].spec.describe()}", refresh=False)
        progress.update()
        if on_done is not None:
            on_done(index, result)

    try:
        executor.run(tasks, datasets, finished)
    finally:
        progress.close()
    failed = [results[index] for index in range(len(tasks)) if results[index].failure]
    if failed:  # an outcome, not a crash: the sweep went on; its report lists them and averages the others
        logging.getLogger(__name__).warning(
            f"{len(failed)} of {len(tasks)} runs failed (their training diverged; not averaged in): "
            f"{failed[0].directory}: {failed[0].failure}{' and others' if len(failed) > 1 else ''}")
    return [results[index] for index in range(len(tasks))]


@dataclass(frozen=True)
class LocalExecutor:
    """Runs on this machine: here, one after the other, with Keras' epoch lines (``jobs`` 1), or in
    ``jobs`` worker processes, quietly, in the order they finish."""

    jobs: int = 1
    verbose: int = 2

    def run(self, tasks: list[RunTask], datasets: dict[str, Dataset],
            finished: Callable[[int, RunResult], None]) -> None:
        jobs = capped_jobs(self.jobs)
        provenance.start_sweep(jobs)  # the runs below record it beside their costs
        if jobs <= 1:
            for index, task in enumerate(tasks):
                finished(index, produce(task.with_verbose(self.verbose), datasets[task.spec.corpus]))
            return
        todo = set(report_stored(tasks, datasets, finished))
        if not todo:
            return
        from baselines.plugins import plugin_files  # with installed plugins: imported where used

        threads = max(1, cores() // jobs)
        pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_start_worker,
                                   initargs=(threads, plugin_files(), os.getpid()))
        try:
            futures = {pool.submit(_produce_in_worker, tasks[index]): index
                       for index in by_cost(tasks, datasets) if index in todo}
            for future in as_completed(futures):
                finished(futures[future], future.result())
        except KeyboardInterrupt:
            _stop_workers(pool)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)  # on an error or Ctrl-C, queued runs never start


def capped_jobs(jobs: int) -> int:
    """``jobs``, at most one per core: each worker is a TensorFlow process of about a gigabyte, and more
    of them than cores train no faster (a mistyped ``--jobs 1000`` would start a process per run).  One
    line says so when it caps."""
    available = cores()
    if jobs > available:
        logging.getLogger(__name__).warning(f"--jobs {jobs} capped to {available}, the cores this process may use")
    return min(jobs, available)


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """On Ctrl-C, end the workers now: each already holds its next run(s) in the pool's call queue and
    would otherwise train them before the pool shuts down.  A run cut short leaves only its staging
    folder and lock, which the next claim on that run cleans up (see store.run_claim).  The pool's
    workers are this process' children (``multiprocessing.active_children``)."""
    for process in multiprocessing.active_children():
        process.terminate()


def worker_environment(threads: int) -> dict[str, str]:
    """A training worker's environment, set before TensorFlow is imported (local processes and Ray
    tasks alike): ``threads`` threads for its ops, TensorFlow's C++ logs quiet unless the user set
    them, this process' log level (``-q``) and Keras backend."""
    env = {"TF_NUM_INTRAOP_THREADS": str(threads), "TF_NUM_INTEROP_THREADS": "1", "OMP_NUM_THREADS": str(threads),
           "TF_CPP_MIN_LOG_LEVEL": os.environ.get("TF_CPP_MIN_LOG_LEVEL", "3"), **worker_level()}
    if os.environ.get("KERAS_BACKEND"):
        env["KERAS_BACKEND"] = os.environ["KERAS_BACKEND"]
    return env


def _start_worker(threads: int, plugins: list[str], parent: int) -> None:
    """Before TensorFlow is imported: the worker's end with its ``parent``, its thread pools, the parent's
    console (log level, TensorFlow's start-up lines filtered) and model plugins."""
    end_with_parent(parent)
    os.environ.update(worker_environment(threads))
    set_up_worker_console()
    from baselines.plugins import load_plugins  # with installed plugins: imported where used

    load_plugins(plugins)


#: ``prctl``'s option that has the kernel signal this process when its parent ends (linux/prctl.h).
_PR_SET_PDEATHSIG = 1


def end_with_parent(parent: int) -> None:
    """End this worker (SIGTERM) when ``parent`` ends, however it ends: a SIGKILL or SIGHUP of the command
    runs none of its handlers, and its workers, re-parented, would train on unseen.  On Linux the kernel
    does it (``prctl(PR_SET_PDEATHSIG)``); elsewhere a thread watches the parent's pid.  A parent gone
    before either was set up ends the worker at once."""
    try:
        linked = ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0
    except (OSError, AttributeError):  # no prctl: not Linux
        linked = False
    if not linked:
        threading.Thread(target=_watch_parent, args=(parent,), name="parent-watch", daemon=True).start()
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGTERM)


def _watch_parent(parent: int) -> None:
    """Once a second: is ``parent`` still this process' parent?  (A re-parented process has another.)"""
    while os.getppid() == parent:
        time.sleep(1)
    os.kill(os.getpid(), signal.SIGTERM)


def _produce_in_worker(task: RunTask) -> RunResult:
    return produce(task.with_verbose(0), worker_dataset(task))


def worker_dataset(task: RunTask) -> Dataset:
    """The task's corpus, loaded once per worker process (see :func:`quiet_load`)."""
    return quiet_load(task.spec.corpus, task.corpus_options, task.data_dir)


@functools.cache
def quiet_load(corpus: str, corpus_options: tuple[tuple[str, object], ...], data_dir: Path) -> Dataset:
    """Load a corpus without repeating the data warnings that the parent process showed when it
    loaded the corpus first."""
    readers = logging.getLogger("isarcasm")
    readers.disabled = True
    try:
        return load_corpus(corpus, data_dir, **dict(corpus_options))
    finally:
        readers.disabled = False
