"""Training several runs at once, each in its own process (``reproduce --jobs N``).

One run is small TensorFlow work that spreads badly over cores: on 2 cores,
two single-threaded runs side by side trained 1.5 times as many examples per
second as one run with two threads (an LSTM epoch on iSarcasm: 40 ms a step
with one thread, 30 ms with two).  ``--jobs N`` starts N worker processes
(spawned: TensorFlow must not be forked), gives each cores/N threads, and hands
them runs.  Each run is still one :func:`training.train_run` with its own seed,
so it writes the same files and is reused the same way as when trained alone.
"""
from __future__ import annotations

import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from experiments.runs.protocol import TrainConfig
from experiments.runs.training import RunResult, train_run
from preprocessing.corpora import load_corpus
from preprocessing.pipeline import PreprocessConfig
from preprocessing.records import Dataset


@dataclass(frozen=True)
class RunTask:
    """One (cell, seed, fold) to train: everything a worker process needs to do it."""

    corpus: str
    corpus_options: tuple[tuple[str, object], ...]
    data_dir: Path
    model: str
    seed: int
    directory: Path
    train: TrainConfig
    fold: int | None = None
    force: bool = False
    tensorboard: bool = False
    twins: tuple[Path, ...] = ()


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def train_task(task: RunTask, dataset: Dataset, verbose: int) -> RunResult:
    return train_run(dataset, task.model, task.seed, task.directory, task.data_dir, task.train,
                     PreprocessConfig(language=dataset.language), force=task.force, verbose=verbose,
                     tensorboard=task.tensorboard, fold=task.fold, twins=task.twins)


def run_tasks(tasks: list[RunTask], datasets: dict[str, Dataset], jobs: int, verbose: int,
              on_done: Callable[[int, RunResult], None]) -> None:
    """Train every task and call ``on_done(index, result)`` as each finishes.

    With ``jobs`` 1 they run here, one after the other, with Keras' epoch lines;
    otherwise in ``jobs`` worker processes, quietly, in the order they finish.
    """
    if jobs <= 1:
        for index, task in enumerate(tasks):
            on_done(index, train_task(task, datasets[task.corpus], verbose))
        return
    from baselines.plugins import plugin_files

    threads = max(1, cores() // jobs)
    pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker,
                               initargs=(threads, plugin_files(), logging.getLogger().level))
    try:
        futures = {pool.submit(_train_in_worker, task): index for index, task in enumerate(tasks)}
        for future in as_completed(futures):
            on_done(futures[future], future.result())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # on an error or Ctrl-C, queued runs never start


_DATASETS: dict[tuple, Dataset] = {}


def _start_worker(threads: int, plugins: list[str], log_level: int) -> None:
    """Before TensorFlow is imported: its thread pools, the parent's log level and model plugins."""
    os.environ.update(TF_NUM_INTRAOP_THREADS=str(threads), TF_NUM_INTEROP_THREADS="1", OMP_NUM_THREADS=str(threads))
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    logging.basicConfig(level=log_level, format="warning: %(message)s")
    from baselines.plugins import load_plugins

    load_plugins(plugins)


def _train_in_worker(task: RunTask) -> RunResult:
    return train_task(task, _worker_dataset(task), verbose=0)


def _worker_dataset(task: RunTask) -> Dataset:
    """The task's corpus, loaded once per worker, without repeating the data warnings that the
    parent process showed when it loaded the corpus first."""
    key = (task.corpus, task.corpus_options, task.data_dir)
    if key not in _DATASETS:
        readers = logging.getLogger("isarcasm")
        readers.disabled = True
        try:
            _DATASETS[key] = load_corpus(task.corpus, task.data_dir, **dict(task.corpus_options))
        finally:
            readers.disabled = False
    return _DATASETS[key]
