"""The run store: one directory per run, written atomically; the one owner of the run format.

Layout: ``<root>/<experiment>/<corpus>/<model>/[fold-K/]seed-<n>/`` holding the
files named below (and the preprocessor's).  A run is finished when its
metrics.json exists; it is written last, so a crash never leaves a half-run
that looks finished.  A run whose training diverged (non-finite loss, weights or
probabilities) is failed: its folder holds failed.json (why, and its configuration
hash) and no metrics.json, so it is never read as a result.  Every other module reads and writes run files through
the names and functions here (a run's predictions, history, estimator and model size through
:mod:`experiments.runs.one.outputs`), so the format is defined in one place; :class:`RunStore` (at the end) owns a
run folder's life: where a run lives, what a place holds, and how a run is written there, once for every kind of run.
"""
from __future__ import annotations

import contextlib
import enum
import json
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: no lock (two sweeps into one store at once are then not guarded)
    fcntl = None

from experiments.runs.one.metrics import recorded_problem
from experiments.runs.one.provenance import recorded_config_hash
from experiments.runs.one.spec import RunPlace, RunSpec
from preprocessing.corpora import corpus_label
from preprocessing.errors import DataError, IsarcasmError
from preprocessing.fileio import NestedTooDeep, load_json, usual_mode

# The files of a run directory.
CONFIG = "config.json"        # everything that determines the run, its hash, and provenance
METRICS = "metrics.json"      # validation and test scores; written last, it marks the run finished
PREDICTIONS = "predictions.tsv"
HISTORY = "history.csv"       # one row per epoch
EPOCHS = "epochs.npz"          # per-epoch validation and test probabilities (experiments/runs/one/trajectory.py)
MODEL = "model.keras"
FAILED = "failed.json"        # a failed run's only file: its configuration hash and why it failed
#: A run scored by something other than a Keras model (a reference rule, a scikit-learn estimator, outside
#: predictions; see experiments/runs/entrants/registry.py): what scored it and what it chose on validation.  It stands
#: for the model file: such a run is finished with it instead.
ENTRANT = "entrant.json"
#: A scikit-learn entrant's fitted estimator (joblib; its sha256 is in entrant.json: see save_estimator).
ESTIMATOR = "estimator.joblib"
#: A run of the shipped reference set (see experiments/runs/one/reference.py), materialised from it: where it came
#: from and its model's size.  It stands for the model file: the readers of finished runs read such a run's
#: other files as any run's; a model is not shipped, so nothing that loads one can use it.
REFERENCE = "reference.json"
#: The folder of the run store where verified reference runs are materialised (hidden: no experiment's).
REFERENCE_CACHE = ".reference"
#: Where ``isarcasm runs verify`` retrains sampled reference runs, to compare them with the shipped ones.
REFERENCE_CHECK = ".reference-check"
INPUTS = "inputs.json"        # how texts become the model's inputs (names, context length, lexicon scaling)
#: The name ``INPUTS`` had before; runs written then are still read.
LEGACY_INPUTS = "lexicon_scaling.json"
EVALUATIONS = "evaluations"   # the run evaluated on other corpora (cross-dataset)
TENSORBOARD = "tensorboard"   # beside a model's seed-N folders, with --tensorboard


#: What a folder name in the store may be: one path component, not hidden, no separator.
_SAFE_NAME = re.compile(r"[A-Za-z0-9_+=,@][A-Za-z0-9._+=,@-]*")


def safe_name(name: str, what: str = "name") -> str:
    """``name`` when it can be a folder or file name inside the store (so nothing is written outside
    the chosen folder: no ``..``, no ``/``, no leading dot); else a one-line error."""
    if not isinstance(name, str) or not _SAFE_NAME.fullmatch(name) or len(name) > 200:
        raise IsarcasmError(f"{what} {name!r} cannot be a folder name: use letters, digits and . _ - + = , @ "
                            "(no '/', no '..', not starting with '.')")
    return name


def run_dir(root: Path, experiment: str, corpus: str, model: str, seed: int, fold: int | None = None) -> Path:
    """``root/experiment/corpus/model/seed-N``, with ``fold-K/`` (1-based) before the seed for a fold's run.

    Every part is checked with :func:`safe_name`, so a run is always inside ``root``."""
    folder = (root / safe_name(experiment, "experiment") / safe_name(corpus_label(corpus), "corpus")
              / safe_name(model, "model"))
    return (folder if fold is None else folder / f"fold-{fold + 1}") / f"seed-{seed}"


def json_text(value) -> str:
    """How every JSON file of the store is written: indented, UTF-8, anything else as its str."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n"


def write_json(path: Path, value) -> None:
    """Write JSON atomically (temp file in the same directory, then rename)."""
    write_text(path, json_text(value))


def write_text(path: Path, text: str) -> None:
    """Write ``text`` atomically: a temporary file beside ``path``, renamed over it once complete, so
    a full disk or a kill leaves the old file or none, never half of one."""
    _replace(_staged(path, text), path)


def _staged(path: Path, text: str) -> Path:
    """``text`` in a temporary file beside ``path`` (removed if it cannot be written in full); an
    OSError names ``path`` (a failed ``write`` knows no file name)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    except OSError as exc:
        exc.filename = exc.filename or str(path.parent)
        raise
    try:
        os.chmod(tmp, usual_mode())
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            exc.filename = str(path)
        raise
    return Path(tmp)


def _replace(staged: Path, path: Path) -> None:
    try:
        os.replace(staged, path)
    except BaseException:
        staged.unlink(missing_ok=True)
        raise


def read_json(path: Path):
    try:
        return load_json(path)
    except FileNotFoundError:
        raise IsarcasmError(f"{path} not found") from None
    except NestedTooDeep:
        raise
    except ValueError as exc:
        raise IsarcasmError(f"{path}: not valid JSON ({exc})") from None


def recorded_hash(directory: Path) -> str | None:
    """The configuration hash a finished run's metrics.json records; None when there is no
    metrics.json, or it is damaged (truncated, not JSON, no hash): then the run is not finished."""
    try:
        recorded = load_json(directory / METRICS)
    except (OSError, ValueError):
        return None
    value = recorded.get("config_hash") if isinstance(recorded, dict) else None
    return value if isinstance(value, str) else None


def recorded_failure(directory: Path, config_hash: str | None = None) -> str | None:
    """Why the run (of this configuration, when given) in ``directory`` failed; None when it has not
    failed (no failed.json, an unreadable one, or one of another configuration)."""
    try:
        recorded = load_json(directory / FAILED)
    except (OSError, ValueError):
        return None
    if not isinstance(recorded, dict) or config_hash not in (None, recorded.get("config_hash")):
        return None
    return str(recorded.get("failed", "unknown reason"))


def is_finished(directory: Path, config_hash: str | None = None) -> bool:
    """True when ``directory`` holds a finished run (with exactly this configuration, when given):
    a readable metrics.json (written last), the model it describes (or, for an entrant's run, its
    entrant.json; for a materialised reference run, its reference.json) and a config.json that still hashes
    to the configuration hash the run recorded.  A folder holding a link that is not the run's own file is
    refused first (:func:`refuse_foreign_links`)."""
    refuse_foreign_links(directory)
    recorded = recorded_hash(directory)
    if recorded is None or (config_hash is not None and recorded != config_hash):
        return False
    if not any((directory / name).is_file() for name in (MODEL, ENTRANT, REFERENCE)):
        return False
    try:
        config = load_json(directory / CONFIG)
    except (OSError, ValueError):
        return False
    return _config_problem(config, recorded) is None


def _config_problem(config, run_hash: str | None) -> str | None:
    """Why ``config`` (a run's config.json) is not the configuration its run recorded: not an object, or no
    longer hashing to the hash it and metrics.json (``run_hash``, None without one) record (an edited file);
    None when it is."""
    if not isinstance(config, dict):
        return "not a JSON object"
    recorded = config.get("config_hash")
    if recorded_config_hash(config) != recorded or run_hash not in (None, recorded):
        return "edited since it was written: its settings no longer hash to the configuration hash the run recorded"
    return None


def refuse_foreign_links(directory: Path) -> None:
    """One line for a link in run folder ``directory`` (at any depth) that loops, leads to nothing, or leads
    to the folder itself or out of it.  A run's files are its own: through such a link a report would read
    another file as the run's, and a write would fail deep inside (an ``evaluations`` linked to itself let a
    run be scored, then ended in ``FileExistsError``).  The folder itself may be reached through a link;
    no folder is nothing to refuse."""
    try:
        root = directory.resolve(strict=True)
    except (OSError, RuntimeError):
        return
    for folder, folders, files in os.walk(root):  # links to folders are listed, never followed
        for link in (Path(folder, name) for name in folders + files if Path(folder, name).is_symlink()):
            problem = _foreign_link(link, root)
            if problem:
                raise IsarcasmError(f"{directory / link.relative_to(root)}: {problem}; a run folder holds its own "
                                    "files: replace the link by the file or folder itself, or remove it")


def _foreign_link(link: Path, root: Path) -> str | None:
    """What is wrong with ``link`` in the run folder ``root`` (resolved); None for a link to a file or
    folder inside it."""
    try:
        target = link.resolve(strict=True)
    except FileNotFoundError:
        return f"a link to {os.readlink(link)}, which does not exist"
    except (OSError, RuntimeError):  # Python 3.11 raises RuntimeError for a loop, later ones OSError
        return "a link that loops (it leads back to itself)"
    if target == root:
        return "a link to its own run folder (a loop)"
    return None if root in target.parents else f"a link to {target}, outside the run folder"


def is_damaged(directory: Path) -> bool:
    """A run folder that is neither finished nor empty: a metrics.json that cannot be read, or a
    finished run whose model file is missing or whose config.json is unreadable or edited since.
    Retraining may replace it."""
    return (directory / METRICS).exists() and not is_finished(directory)


def _of_hash(folders: Sequence[Path], config_hash: str) -> Path | None:
    """The first of ``folders`` that holds a finished run of this configuration, else the first that holds its
    failed run (an outcome too: the same configuration fails the same way); None where none does."""
    return next((folder for folder in folders if is_finished(folder, config_hash)), None) or \
        next((folder for folder in folders if recorded_failure(folder, config_hash) is not None), None)


def writable_folder(path: Path, what: str) -> Path:
    """``path`` after checking that files can be written in it, or in the folder it would be made in: a one-line
    error before any work, rather than a traceback after hours of training.  Nothing is made here (its
    writers make the folder), so a command refused after its options are read leaves no empty folder."""
    existing = path
    while not existing.exists() and not existing.is_symlink() and existing != existing.parent:
        existing = existing.parent
    try:
        if not existing.is_dir():
            raise NotADirectoryError(f"{existing} is not a folder")
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        raise IsarcasmError(f"{what} {path} is not a writable folder ({exc.strerror or exc})") from None
    return path


def refuse_other_run(directory: Path, config_hash: str, force: bool = False) -> None:
    """One line, before any training, when ``directory`` holds another configuration's finished run
    (which only ``force`` replaces): a run never silently overwrites another."""
    recorded = recorded_hash(directory)
    if recorded is not None and recorded != config_hash and not force:
        raise IsarcasmError(f"{directory} already holds a finished run of other settings (configuration hash "
                            f"{recorded[:12]}, this run's {config_hash[:12]}): keep it and store this run elsewhere "
                            "(--output-dir, or --name), or replace it (--force)")


@contextlib.contextmanager
def run_claim(directory: Path) -> Iterator[None]:
    """Hold the run at ``directory`` for this process: an exclusive ``flock`` on
    ``<parent>/.<name>.lock``.  Two sweeps into one store at once take turns on each run
    instead of training it twice and swapping its folder under each other; the second one
    then finds it finished and reuses it.  The kernel drops the lock when the process ends,
    even by SIGKILL, so a crash never leaves a stale claim.

    While the claim is held, staging and old folders of the same run are leftovers of a
    killed process and are removed.
    """
    directory.parent.mkdir(parents=True, exist_ok=True)
    if fcntl is None:
        yield
        return
    with open(directory.parent / f".{directory.name}.lock", "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            logging.getLogger(__name__).warning(f"{directory} is being trained by another process; waiting for it")
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            for leftover in directory.parent.glob(f".{directory.name}.*-*"):
                if leftover.is_dir() and leftover.name.startswith((f".{directory.name}.staging-",
                                                                   f".{directory.name}.old-")):
                    shutil.rmtree(leftover, ignore_errors=True)
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class RunState(enum.Enum):
    """What a run folder holds (:func:`run_state`)."""

    FINISHED = "finished"
    FAILED = "failed"
    DAMAGED = "damaged"
    MISSING = "missing"


def run_state(directory: Path, config_hash: str | None = None) -> RunState:
    """What ``directory`` holds, of this configuration when ``config_hash`` is given: a finished run
    (:func:`is_finished`), a damaged one (:func:`is_damaged`: a metrics.json that makes no finished
    run), a failed one (its failed.json), or none (``RunState.MISSING``).  The one place that reads a
    folder's metrics.json to answer "is this run finished?"."""
    if is_finished(directory, config_hash):
        return RunState.FINISHED
    if is_damaged(directory):
        return RunState.DAMAGED
    return RunState.FAILED if recorded_failure(directory, config_hash) is not None else RunState.MISSING


#: The states of a folder whose metrics.json was written (its other files may be gone: a model deleted to
#: save space leaves a damaged run whose scores and predictions still read).
SCORED = (RunState.FINISHED, RunState.DAMAGED)


def scored_runs(directory: Path) -> list[Path]:
    """Every run folder (``seed-N``) under ``directory`` whose metrics.json was written, sorted; one holding a
    foreign link is refused (:func:`refuse_foreign_links`)."""
    runs = sorted(p.parent for p in directory.rglob(METRICS) if p.parent.name.startswith("seed-"))
    for run in runs:
        refuse_foreign_links(run)
    return runs


def require_finished(directory: Path) -> None:
    """One line when ``directory`` holds no finished run to load: none, a failed one, or a metrics.json
    that cannot be read (a missing model file is for the loader to name)."""
    state = run_state(directory)
    if state not in SCORED:
        why = "its training failed, see failed.json" if state == RunState.FAILED else f"no {METRICS}"
        raise IsarcasmError(f"{directory} is not a finished run ({why}); train one with `isarcasm train`")
    if recorded_hash(directory) is None:
        raise IsarcasmError(f"{directory / METRICS} is damaged (not the JSON a finished run writes); rerun its "
                            "experiment or `isarcasm train` to train it again")


def read_config(directory: Path) -> dict:
    """The run's config.json, once checked against the configuration hash the run recorded: a damaged or
    edited one is one line naming it, so no report shows a run under a configuration it was not trained with."""
    path = directory / CONFIG
    config = read_json(path)
    problem = _config_problem(config, recorded_hash(directory))
    if problem:
        raise IsarcasmError(f"{path} is damaged ({problem}); train the run again with --force")
    return config


def read_metrics(directory: Path) -> dict:
    """The run's metrics.json, its config.json checked first (:func:`read_config`), with every score in its
    range and every count whole (:func:`~experiments.runs.one.metrics.recorded_problem`): a damaged or edited
    file is one line naming it, never a number in a report."""
    path = directory / METRICS
    metrics = read_json(path)
    problem = recorded_problem(metrics) if isinstance(metrics, dict) else "not a JSON object"
    if problem:
        raise DataError.at(path, None, f"{problem}; the file is damaged: train the run again with --force")
    read_config(directory)
    return metrics


#: Hex digits of an evaluation's key in its file names (the whole key is inside the JSON).
EVALUATION_KEY_CHARS = 12


def evaluation_paths(directory: Path, corpus: str, key: str) -> tuple[Path, Path]:
    """Where a run's evaluation on ``corpus`` is saved: its metrics (JSON) and predictions (TSV),
    ``<run>/evaluations/<stem>-<key>.json`` and ``.predictions.tsv``.

    ``key`` is the evaluation's key (:func:`experiments.runs.one.inference.evaluation_key`: the content
    of the evaluated data and every option that changes the numbers), shortened here; the name's
    stem is only for reading.  Two files of the same name, or one file before and after an edit,
    have different keys and so never share a saved evaluation.  Files of the older layout
    (``<stem>.json``, keyed by the stem alone) are never read: they cannot be verified.
    """
    if not re.fullmatch(r"[0-9a-f]{%d,}" % EVALUATION_KEY_CHARS, key):
        raise ValueError(f"not an evaluation key: {key!r}")
    folder, name = directory / EVALUATIONS, f"{corpus_label(corpus)}-{key[:EVALUATION_KEY_CHARS]}"
    return folder / f"{name}.json", folder / f"{name}.predictions.tsv"


def weights_file(rule: str) -> str:
    """The weights of the epoch selection rule ``rule`` chose, when model.keras holds another epoch's."""
    return f"weights-{rule}.weights.h5"


def inputs_file(directory: Path) -> Path:
    """The run's inputs description, under its current name or the one older runs have."""
    current = directory / INPUTS
    return current if current.is_file() or not (directory / LEGACY_INPUTS).is_file() else directory / LEGACY_INPUTS


class RunWriter:
    """Collects a run's files in a staging directory and moves them into place at the end.

    An existing finished run is only replaced with ``force=True``; a different
    configuration in the same place is an error, never a silent overwrite.
    """

    def __init__(self, directory: Path, config_hash: str, force: bool = False):
        self.directory = directory
        self.config_hash = config_hash
        self.detached = False
        refuse_other_run(directory, config_hash, force)
        if is_damaged(directory):
            logging.getLogger(__name__).warning(f"{directory} is a damaged run (unreadable {METRICS} or "
                                                f"{CONFIG}, a {CONFIG} edited since, or no {MODEL}); training it "
                                                "again")
        try:
            directory.parent.mkdir(parents=True, exist_ok=True)
            self.staging = Path(tempfile.mkdtemp(dir=directory.parent, prefix=f".{directory.name}.staging-"))
        except OSError as exc:
            raise IsarcasmError(f"cannot write the run {directory} ({exc.strerror or exc})") from None
        self.staging.chmod(usual_mode(directory=True))

    @classmethod
    def detached(cls, directory: Path, config_hash: str, root: Path) -> "RunWriter":
        """A writer for a run whose home ``directory`` is in another machine's store: it stages the
        run under ``root`` here and never touches ``directory``; :class:`RunFiles` carries the files
        home, where the driver's :meth:`RunStore.produce` commits them (see :meth:`RunFiles.write`)."""
        writer = cls.__new__(cls)
        writer.directory, writer.config_hash, writer.detached = directory, config_hash, True
        writer.staging = root / "run"
        writer.staging.mkdir(parents=True)
        return writer

    def path(self, name: str) -> Path:
        return self.staging / name

    def tensorboard_dir(self) -> Path:
        """Where the run's TensorBoard logs go: ``<experiment>/.../tensorboard/seed-N`` beside the runs
        (a detached run's, beside its staging folder, and they travel home with its files)."""
        if self.detached:
            return self.staging.parent / TENSORBOARD
        return self.directory.parent / TENSORBOARD / self.directory.name

    def commit(self) -> Path:
        """Atomically swap the staging directory in (the old run, if any, is removed after)."""
        if self.detached:
            raise RuntimeError("a detached run is committed by the driver (RunFiles.write)")
        old = None
        if self.directory.exists():
            old = self.directory.with_name(f".{self.directory.name}.old-{os.getpid()}")
            os.replace(self.directory, old)
        os.replace(self.staging, self.directory)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return self.directory

    def abort(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)

    @contextlib.contextmanager
    def writing(self) -> Iterator["RunWriter"]:
        """Write the run's files inside this block: any error aborts the run (nothing of it is left), and a
        full disk's OSError names the run, not the staging folder that is gone."""
        try:
            yield self
        except BaseException as exc:
            self.abort()
            if isinstance(exc, OSError):
                exc.filename = self.home(str(exc.filename)) if exc.filename else str(self.directory)
            raise

    def home(self, path: str) -> str:
        """Where a staged file would have gone: an error about ``path`` names the run, not the
        staging folder that :meth:`abort` removes."""
        staged = Path(path)
        return str(self.directory / staged.relative_to(self.staging)) if staged.is_relative_to(self.staging) else path


@dataclass(frozen=True)
class RunFiles:
    """A run trained on another machine, on its way home: its configuration hash, its metrics,
    and every file of its folder (and of its TensorBoard logs) as bytes, by relative path."""

    config_hash: str
    metrics: dict
    files: dict[str, bytes]
    tensorboard: dict[str, bytes]

    @classmethod
    def collect(cls, writer: RunWriter, metrics: dict) -> "RunFiles":
        def read(folder: Path) -> dict[str, bytes]:
            return {str(path.relative_to(folder)): path.read_bytes()
                    for path in sorted(folder.rglob("*")) if path.is_file()} if folder.is_dir() else {}
        return cls(writer.config_hash, metrics, read(writer.staging), read(writer.tensorboard_dir()))

    def write(self, writer: RunWriter) -> dict:
        """Write the run's files as they were into ``writer`` (metrics.json last), its TensorBoard logs beside
        it; its metrics.  The driver stores a run that came home with ``RunStore.produce(place,
        files.config_hash, files.write)``: exactly as a run trained here is written, under the run's claim,
        so a local sweep into the same store never swaps it at the same time, and a run another process
        finished there meanwhile is kept."""
        for name in sorted(self.files, key=lambda name: name == METRICS):  # metrics.json last
            path = writer.path(name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(self.files[name])
            path.chmod(usual_mode())
        logs = writer.tensorboard_dir()
        for name, content in self.tensorboard.items():
            (logs / name).parent.mkdir(parents=True, exist_ok=True)
            (logs / name).write_bytes(content)
        return self.metrics


@dataclass
class RunResult:
    """A run's folder and its metrics.json; for a failed run, its failed.json (see :attr:`failure`).
    ``skipped``: the run was found in the store (:meth:`RunStore.lookup`), not written now."""

    directory: Path
    metrics: dict
    skipped: bool = False

    @property
    def failure(self) -> str | None:
        """Why the run failed (its training diverged); None for a finished run.  A failed run is an
        outcome to report, never a result to average."""
        return self.metrics.get("failed")


def write_run(directory: Path, config_hash: str, write: Callable[[RunWriter], dict], force: bool = False) -> RunResult:
    """``write(writer)`` stages the run's files (metrics.json last) and returns its metrics; the run is then
    swapped into ``directory`` at once, or, on any error, nothing of it is left (:meth:`RunWriter.writing`).
    Call it under the run's :func:`run_claim`."""
    writer = RunWriter(directory, config_hash, force=force)
    with writer.writing():
        metrics = write(writer)
    return RunResult(writer.commit(), metrics)


@dataclass(frozen=True)
class RunStore:
    """The run store under ``root``: ``root/<experiment>/<corpus>/<model>/[fold-K/]seed-N``, and the one
    owner of a run folder's life: where a run lives (:meth:`place`), what a place holds (:meth:`lookup`)
    and how a run gets there (:meth:`produce`).  Trained runs, entrants' runs, runs trained on a cluster
    and ``isarcasm train`` all go through these.  A folder is only where a run is written and read: a run
    is identified by its configuration hash, so a run is reused from whichever experiment's folder holds
    a run of its hash (Table 7's iSarcasm runs are the cross-dataset matrix's in-domain ones), and a run of
    other settings is never taken for it.  A place knows its folders, so :meth:`lookup` and :meth:`produce`
    need no root."""

    root: Path

    def place(self, experiment: str, run: RunSpec, config_hash: str) -> RunPlace:
        """``run``'s readable folder in ``experiment`` and, where it holds no finished run of ``config_hash`` (the
        run's configuration hash), the run of that hash in the same place of another experiment's folder (a
        run's hash covers its corpus, model, fold and seed, so no other place can hold it): read at each call,
        so a run another experiment of the same invocation wrote is found."""
        directory = run_dir(self.root, experiment, run.corpus, run.model, run.seed, run.fold)
        if is_finished(directory, config_hash) or not self.root.is_dir():
            return RunPlace(directory)
        within = directory.relative_to(self.root / experiment)
        found = _of_hash([other / within for other in sorted(self.root.iterdir())  # hidden: not the store's runs
                          if other.is_dir() and not other.name.startswith(".")], config_hash)
        return RunPlace(directory, None if found == directory else found)

    @staticmethod
    def lookup(place: RunPlace, config_hash: str) -> RunResult | None:
        """The run of this configuration in ``place`` (:func:`_of_hash` over its folder, then the run it found
        elsewhere), else None: a run of another configuration is never one of them.  The one lookup that
        training, the entrants, the executors and the studies share."""
        folder = _of_hash(place.all, config_hash)
        if folder is None:
            return None
        finished = is_finished(folder, config_hash)
        return RunResult(folder, read_metrics(folder) if finished else read_json(folder / FAILED), skipped=True)

    @staticmethod
    def finished(place: RunPlace, config_hash: str) -> Path | None:
        """The folder of ``place`` in which :meth:`lookup` finds a finished run of this configuration; None
        where it finds a failed run or none."""
        found = RunStore.lookup(place, config_hash)
        return found.directory if found and not found.failure else None

    @staticmethod
    def produce(place: RunPlace, config_hash: str, write: Callable[[RunWriter], dict],
                force: bool = False) -> RunResult:
        """The run of this configuration at ``place``: the one :meth:`lookup` finds (unless ``force``), else
        written by ``write`` (see :func:`write_run`) into ``place.directory``.  It is written under the
        run's :func:`run_claim`, and looked up again once the claim is held: another process may have
        finished it while this one waited."""
        if not force:
            found = RunStore.lookup(place, config_hash)
            if found:
                return found
        with run_claim(place.directory):  # one process at a time writes this run
            found = None if force else RunStore.lookup(place, config_hash)
            return found or write_run(place.directory, config_hash, write, force)
