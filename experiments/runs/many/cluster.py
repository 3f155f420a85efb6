"""``--executor ray``: a study's runs trained as Ray tasks, on one machine or a cluster.

:class:`RayExecutor` is the other executor of :func:`experiments.runs.many.scheduler.run_tasks`: the
same tasks, the same ``finished`` callback (one bar, one line per cell), the same run folders.

No shared filesystem is assumed.  The driver (the machine running ``isarcasm``) reads what the
runs need once and puts it in Ray's object store once (each corpus, the word vectors, the
lexicons, the checksums of the data files); every task gets references to them.  The project's
code and any ``--model-module`` plugin travel with the tasks (Ray's ``py_modules`` runtime
environment and the plugin's source), so a worker node needs the dependencies, not a checkout or
the data.  A task trains in a temporary folder on its node (:func:`experiments.runs.one.training.
train_detached`) and returns the run folder's files; the driver writes them into its store with
the store's own writer (:meth:`experiments.runs.one.store.RunStore.produce`): staged, metrics.json
last, swapped in atomically.  The run is the one a local executor writes (same layout, same
configuration hash, reused by later invocations), with the node that trained it in the
``machine`` record of its config.json.

A run that reads this machine's files (:attr:`~experiments.runs.many.scheduler.RunKind.detached` false: an
entrant's estimator or prediction files) is produced here, in the driver, as ``--jobs 1`` would, and
reported through the same ``finished``.

Faults: a worker process or node that dies mid-run is retried by Ray (``max_retries`` times);
nothing of a failed attempt reaches the store.  Finished runs are found by the driver before
anything is submitted, so rerunning a killed sweep trains only what is missing.  Ctrl-C (or any
error) ends every task not yet finished: shutting down the Ray this command started (or its connection
to a cluster, which ends the job's tasks) ends them; in a process that is a Ray job already, they are
cancelled.

Ray is optional (``pip install -e '.[ray]'``): only this module imports it, and only when a
:class:`RayExecutor` runs.
"""
from __future__ import annotations

import hashlib
import logging
import os
import signal
import socket
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from embeddings.vectors import RANDOM, WORD2VEC, load_vectors
from experiments.runs.one import provenance
from experiments.runs.console import set_up_worker_console
from experiments.runs.many.scheduler import RunTask, by_cost, produce, report_stored, worker_environment
from experiments.runs.one.store import RunFiles, RunResult, RunStore, refuse_other_run, writable_folder
from experiments.runs.one.training import Resources, data_checksums, expected_hash, train_detached
from preprocessing.errors import IsarcasmError
from preprocessing.lexicons import LexiconFeaturizer
from preprocessing.limits import RAY_TIMEOUT_ENV, ray_timeout
from preprocessing.records import Dataset


INSTALL = "pip install 'isarcasm-baselines[ray]' (or pip install 'ray>=2.9'; from a checkout: pip install -e '.[ray]')"
#: The project's packages, shipped to every worker with the tasks (no checkout needed there).
PACKAGES = ("preprocessing", "embeddings", "baselines", "experiments")
#: The folder holding them (a checkout, or site-packages).
SOURCES = Path(__file__).resolve().parents[3]


def import_ray():
    """The ``ray`` module, or one line saying how to install it."""
    try:
        import ray  # optional extra: only with --executor ray
    except ImportError:
        raise IsarcasmError(f"--executor ray needs Ray, which is not installed: {INSTALL}") from None
    return ray


@dataclass(frozen=True)
class Shipped:
    """What the driver sends every task besides the object-store references: its plugins' source,
    its command and commit, and the worker's thread and backend settings."""

    plugins: tuple[tuple[str, bytes], ...]  # (file name, source)
    record: dict
    env: dict


@dataclass(frozen=True)
class RayExecutor:
    """Trains runs as Ray tasks (see the module doc).

    ``address``: a running cluster (``auto``, ``ray://host:10001``, ``host:port``), or None to
    start Ray in this process (unless this process is already connected).  ``cpus``/``gpus`` per
    run are Ray resources; a run uses ``cpus`` threads.  ``max_retries``: attempts after a worker
    died, per run.
    """

    address: str | None = None
    cpus: float = 1
    gpus: float = 0
    max_retries: int = 3
    verbose: int = 0

    def run(self, tasks: list[RunTask], datasets: dict[str, Dataset],
            finished: Callable[[int, RunResult], None]) -> None:
        ray = import_ray()
        todo = []
        for index in report_stored(tasks, datasets, finished):
            task = tasks[index]
            if not task.kind.detached:  # it reads files of this machine: produced here
                finished(index, produce(task.with_verbose(self.verbose), datasets[task.spec.corpus]))
                continue
            # A place the run may not take (another configuration's finished run) fails now, not after training.
            config_hash = expected_hash(task.spec, datasets[task.spec.corpus], task.data_dir)
            refuse_other_run(task.place.directory, config_hash, task.options.force)
            writable_folder(task.place.directory.parent, "the run store's folder")
            todo.append(index)
        if not todo:
            return
        started_here = not ray.is_initialized()
        if started_here:  # else this process is a Ray job already, whose runtime environment applies
            _start(ray, self.address)
        try:
            self._submit_and_collect(ray, tasks, datasets, todo, finished, cancel_on_exit=not started_here)
        finally:
            if started_here:  # ends the job's tasks, queued or running
                ray.shutdown()

    def _submit_and_collect(self, ray, tasks, datasets, todo, finished, cancel_on_exit: bool) -> None:
        """Submit the runs, the longest first, and store each as it comes back.  On Ctrl-C or an error the
        tasks not yet finished are cancelled only if ``cancel_on_exit`` (Ray stays up after this command):
        ``ray.cancel`` of a task that finishes at that moment aborts the process in Ray's native crash
        dump (Ray 2.60: "Check failed: ... Tried to complete task that was not pending", a race between the
        cancel and the task's reply, ray-project/ray#54846), where shutting down ends them all safely."""
        shipped = Shipped(_plugin_sources(), {"git_commit": provenance.git_commit(),
                                              "command": provenance.command_line(), "sweep": provenance.sweep()},
                          worker_environment(max(1, int(self.cpus))))
        shared = _put_shared(ray, [tasks[i] for i in todo], datasets)
        remote = ray.remote(_train_on_node).options(
            num_cpus=self.cpus, num_gpus=self.gpus, max_retries=self.max_retries, retry_exceptions=False,
            runtime_env={"env_vars": shipped.env})
        pending = {}
        try:
            waiting = set(todo)
            for index in (i for i in by_cost(tasks, datasets) if i in waiting):  # the longest runs first
                spec = tasks[index].spec
                ref = remote.remote(tasks[index].with_verbose(self.verbose), shared["corpora"][spec.corpus],
                                    shared["checksums"][(spec.corpus, spec.train)], shared["vectors"][spec.train.embeddings],
                                    shared["lexicons"], shipped)
                pending[ref] = index
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    index = pending.pop(ref)
                    task = tasks[index]
                    files = _result(ray, ref, task, self.max_retries)
                    finished(index, RunStore.produce(task.place, files.config_hash, files.write, task.options.force))
        finally:
            if cancel_on_exit:  # Ctrl-C or an error: queued runs never start, running ones stop
                for ref in pending:
                    ray.cancel(ref, force=False)


def _start(ray, address: str | None) -> None:
    """Connect to the cluster at ``address``, or start Ray in this process; the project's code goes
    with the job (workers import the driver's code, not whatever is installed on their node)."""
    check_ray_address(address)
    handlers = _ending_handlers()
    try:
        runtime_env = {"py_modules": [str(SOURCES / name) for name in PACKAGES]}
        if address and address.startswith("ray://"):  # Ray Client: the cluster's own settings apply
            ray.init(address=address, runtime_env=runtime_env)
        else:
            ray.init(address=address, include_dashboard=False, logging_level=logging.getLogger().getEffectiveLevel(),
                     runtime_env=runtime_env)
    except ConnectionError as exc:
        raise IsarcasmError(f"--address {address}: no Ray cluster there ({exc}); "
                            "start one with `ray start --head`") from None
    except Exception as exc:  # noqa: BLE001 - Ray raises many kinds; the command stops with one line
        raise IsarcasmError(f"cannot start or reach Ray{f' at {address}' if address else ''}: "
                            f"{type(exc).__name__}: {exc}") from None
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)


def _ending_handlers() -> dict[int, object]:
    """This process' SIGTERM and SIGHUP handlers, to restore after ``ray.init``, which replaces SIGTERM's
    with an exit that skips the command's own ending: Ray's tasks were left running and the process ended
    in Ray's native crash dump (SIGABRT).  With the command's handler, SIGTERM ends the tasks (shutting
    Ray down) as Ctrl-C does, in one line (exit code 143).  Signals are the main thread's alone."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGHUP)}


#: What a client sends first on an HTTP/2 connection (RFC 9113 3.4: the preface and an empty SETTINGS frame).
_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
_HTTP2_SETTINGS = 4  # the type of a SETTINGS frame, the first frame a server sends


def check_ray_address(address: str | None) -> None:
    """Refuse an address where no Ray cluster answers within :func:`~preprocessing.limits.ray_timeout`
    seconds, before ``ray.init``, which retries an unreachable cluster for minutes and waits as long on a port
    that accepts and never speaks.  A Ray head (its GCS, or Ray Client on
    ``ray://``) speaks gRPC, so HTTP/2: it answers a client's preface with a SETTINGS frame.  ``auto`` (Ray
    finds the address itself) and no address (Ray started here) are left to Ray."""
    host, _, port = (address or "").removeprefix("ray://").rpartition(":")
    if not port.isdigit():
        return
    timeout = ray_timeout()
    problem = None
    try:
        with socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=timeout) as connection:
            connection.sendall(_HTTP2_PREFACE)
            header = connection.recv(9)
            if len(header) < 4 or header[3] != _HTTP2_SETTINGS:
                problem = "something answers there, but not as Ray (no gRPC reply)"
    except TimeoutError:
        problem = "no answer"
    except OSError as exc:
        problem = exc.strerror or type(exc).__name__
    if problem:
        raise IsarcasmError(f"--address {address}: no Ray cluster there ({problem}, waited at most {timeout:g} s); "
                            "start one with `ray start --head`, or check the address "
                            f"(${RAY_TIMEOUT_ENV} sets how long to wait)")


def _result(ray, ref, task: RunTask, retries: int) -> RunFiles:
    """A task's files; a user error raised on the node as if raised here; a run whose workers kept
    dying, in one line."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as exc:
        cause = getattr(exc, "cause", None)
        if isinstance(cause, IsarcasmError):
            raise cause from None
        raise
    except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError, ray.exceptions.ObjectLostError) as exc:
        raise IsarcasmError(f"{task.spec.describe()}: its Ray worker or node died "
                            f"{retries + 1} time(s) ({type(exc).__name__}); the runs finished so far are "
                            "stored, rerun the command to train the rest") from None


def _put_shared(ray, tasks: list[RunTask], datasets: dict[str, Dataset]) -> dict:
    """Everything tasks share, each in the object store once: corpora, checksums, vectors, lexicons."""
    from baselines.registry import MODELS  # with installed plugins: imported where used

    corpora = {name: ray.put(datasets[name]) for name in dict.fromkeys(t.spec.corpus for t in tasks)}
    checksums = {}
    for task in tasks:
        key = (task.spec.corpus, task.spec.train)
        if key not in checksums:
            checksums[key] = data_checksums(datasets[task.spec.corpus].name, task.data_dir, task.spec.train)
    vectors = {}
    for task in tasks:
        embeddings = task.spec.train.embeddings
        if embeddings not in vectors:
            loaded = None if str(embeddings) in (RANDOM, WORD2VEC) else load_vectors(embeddings, task.data_dir)
            vectors[embeddings] = ray.put(loaded)
    needs_lexicons = any("lexicon" in MODELS.get(t.spec.model).inputs for t in tasks)
    lexicons = ray.put(LexiconFeaturizer.from_data_dir(tasks[0].data_dir) if needs_lexicons else None)
    return {"corpora": corpora, "checksums": checksums, "vectors": vectors, "lexicons": lexicons}


def _plugin_sources() -> tuple[tuple[str, bytes], ...]:
    from baselines.plugins import plugin_files  # with installed plugins: imported where used

    return tuple((Path(path).name, Path(path).read_bytes()) for path in plugin_files())


# --- on the worker node -------------------------------------------------------------------------

def _train_on_node(task: RunTask, dataset: Dataset, checksums: dict[str, str], vectors, lexicons,
                   shipped: Shipped) -> RunFiles:
    """One run on a worker node: train it in a temporary folder and return its files."""
    import ray  # on a Ray worker: Ray is there

    set_up_worker_console()  # before the plugins import TensorFlow
    _load_plugins(shipped.plugins)
    node = {"hostname": socket.gethostname(), "ray_node_id": ray.get_runtime_context().get_node_id(),
            "pid": os.getpid()}
    resources = Resources(checksums, vectors, lexicons, record=shipped.record, node=node)
    with tempfile.TemporaryDirectory(prefix="isarcasm-run-") as staging:
        return train_detached(task.spec, dataset, task.place.directory, Path(staging), resources, task.options)


def _load_plugins(sources: tuple[tuple[str, bytes], ...]) -> None:
    """The driver's plugin files, written once per worker under their own names, then loaded (a
    file's sha256 and name are its origin, so its runs get the same configuration hash)."""
    from baselines.plugins import load_plugins  # with installed plugins: imported where used

    paths = []
    for name, source in sources:
        folder = Path(tempfile.gettempdir()) / "isarcasm-plugins" / hashlib.sha256(source).hexdigest()[:16]
        path = folder / name
        if not path.is_file():
            folder.mkdir(parents=True, exist_ok=True)
            tmp = folder / f".{name}.{os.getpid()}"
            tmp.write_bytes(source)
            os.replace(tmp, path)
        paths.append(str(path))
    load_plugins(paths)

