"""What a results file must record so a number can be obtained again."""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import platform
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

from preprocessing.errors import IsarcasmError
from preprocessing.fileio import json_value, load_json

PACKAGES = ("isarcasm-baselines", "tensorflow", "keras", "jax", "torch", "spacy", "gensim", "numpy", "scikit-learn",
            "click")
ROOT = Path(__file__).resolve().parents[2]


#: The Keras backends a run may compute with, and the package each needs.  TensorFlow is the
#: backend of every committed number; the others are named variants (see :func:`backend_variant`).
BACKENDS = {"tensorflow": "tensorflow", "jax": "jax", "torch": "torch"}


def keras_backend() -> str:
    """The Keras backend numbers are computed with (``KERAS_BACKEND``; TensorFlow unless set)."""
    keras = sys.modules.get("keras")
    return keras.backend.backend() if keras else os.environ.get("KERAS_BACKEND", "tensorflow")


def use_backend(name: str, source: str = "--backend") -> None:
    """Compute with Keras backend ``name`` (``isarcasm --backend``, or ``$KERAS_BACKEND`` as
    ``source``), in this process and in the processes it starts.  Keras reads ``KERAS_BACKEND``
    once, when it is imported, so this must come first; the name and the backend's package are
    checked now, in one line naming ``source``, rather than in a traceback at the first import of Keras."""
    if name not in BACKENDS:
        raise IsarcasmError(f"{source}={name}: not a Keras backend (use one of: {', '.join(BACKENDS)})")
    if importlib.util.find_spec(BACKENDS[name]) is None:
        raise IsarcasmError(f"{source}={name}: the {name} backend needs the {BACKENDS[name]} package, which is not "
                            "installed: pip install -e '.[backends]', or choose another backend")
    if "keras" in sys.modules and keras_backend() != name:
        raise IsarcasmError(f"Keras was already imported with the {keras_backend()} backend; choose the backend "
                            "before Keras is imported")
    os.environ["KERAS_BACKEND"] = name


#: Keras' own settings (its keras.json) that change numbers, with the values every committed number
#: was computed with.  Keras reads them whatever the backend, so a different value is refused.
KERAS_NUMERIC_SETTINGS = {"floatx": "float32", "epsilon": 1e-07, "image_data_format": "channels_last"}


def keras_settings_file() -> Path:
    """Where Keras reads its settings: $KERAS_HOME/keras.json, else ~/.keras/keras.json, or
    /tmp/.keras/keras.json when the home folder is not writable (keras/src/backend/config.py)."""
    if "KERAS_HOME" in os.environ:
        return Path(os.environ["KERAS_HOME"]).expanduser() / "keras.json"
    home = os.path.expanduser("~")
    return Path(home if os.access(home, os.W_OK) else "/tmp", ".keras", "keras.json")


def keras_settings_backend() -> tuple[str, str] | None:
    """The backend Keras' settings file names, and how to name that source in an error; None where it
    names none.  Settings in it that would change numbers are refused first, in one line naming the
    file.  A file Keras cannot parse it ignores, and so does this."""
    path = keras_settings_file()
    try:
        settings = load_json(path)
    except (OSError, ValueError):
        return None
    if not isinstance(settings, dict):
        return None
    for key, expected in KERAS_NUMERIC_SETTINGS.items():
        if key in settings and settings[key] != expected:
            raise IsarcasmError(f"{path}: \"{key}\": {json.dumps(settings[key])} changes the numbers Keras computes; "
                                f"the suite computes with {json.dumps(expected)}: remove the setting, or point "
                                "KERAS_HOME at another folder")
    backend = settings.get("backend")
    return (str(backend), f"{path} \"backend\"") if backend is not None else None


def other_backend() -> str | None:
    """The Keras backend when it is not TensorFlow (whose runs keep their names and hashes), else None."""
    backend = keras_backend()
    return None if backend == "tensorflow" else backend


def backend_variant() -> list[str]:
    """``['backend-NAME']`` when runs compute with a backend other than TensorFlow, else ``[]``:
    another backend gives other numbers, so its runs and results are a named variant."""
    backend = other_backend()
    return [f"backend-{backend}"] if backend else []


def package_versions() -> dict[str, str]:
    """Versions of the packages numbers depend on, and the Keras backend they were computed with."""
    versions = {"python": platform.python_version(), "keras_backend": keras_backend()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def machine(cpuinfo: Path = Path("/proc/cpuinfo")) -> dict:
    """The CPU a number was computed on.

    Same seed, same code and same packages still give different weights on another CPU:
    TensorFlow's kernels pick their blocking and instructions from the processor, so
    floating-point sums are taken in another order (a CNN's selected epoch can move).
    A virtual machine may show one name for several processor generations ("AMD EPYC"
    for three here, whose digits differ), so the family, model and stepping are kept too.
    """
    info = {"platform": platform.machine(), "cpu": platform.processor() or "unknown", "cores": os.cpu_count()}
    try:
        text = cpuinfo.read_text()
    except OSError:
        return info
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    fields = {key.strip(): value.strip() for key, value in fields.items()}
    info["cpu"] = fields.get("model name", info["cpu"])
    cpu_id = " ".join(f"{key} {fields[key]}" for key in ("cpu family", "model", "stepping") if key in fields)
    if cpu_id:
        info["cpu_id"] = cpu_id
    info["vector_isa"] = sorted(flag for flag in fields.get("flags", "").split()
                                if flag.startswith(("avx", "amx", "fma")))
    return info


def cpu_difference(recorded: dict, here: dict | None = None) -> str:
    """How the CPU a run recorded (its ``machine``) differs from this one, in a few words; ``""`` when
    nothing either record holds differs.  A run's digits depend on the CPU (:func:`machine`), so a
    command that retrains shipped runs says first whether it can expect their digits."""
    here = machine() if here is None else here
    if not recorded:
        return "not recorded there"
    differences = [f"{recorded[key]} there, {here[key]} here" for key in ("cpu", "cpu_id")
                   if recorded.get(key) and here.get(key) and recorded[key] != here[key]]
    if "vector_isa" in recorded and "vector_isa" in here:
        there, local = set(recorded["vector_isa"]), set(here["vector_isa"])
        differences += [f"{', '.join(sorted(flags))} only {where}"
                        for flags, where in ((there - local, "there"), (local - there, "here")) if flags]
    return "; ".join(differences)


def record() -> dict:
    """What every results and run file records beside its numbers: commit, packages, machine, command,
    and the sweep it belongs to (:func:`sweep`)."""
    return {"git_commit": git_commit(), "versions": package_versions(), "machine": machine(),
            "command": command_line(), "sweep": sweep()}


#: The sweep this process and the workers it started belong to (see :func:`start_sweep`).
SWEEP_ENV = "ISARCASM_SWEEP"


def start_sweep(jobs: int) -> None:
    """Mark the runs this process trains from now, here and in the workers it starts (they inherit the
    environment), as one sweep: when it started, its ``--jobs`` and the machine's load then.  A run's
    time and memory depend on them, so a report can tell costs of one sweep from costs of another."""
    os.environ[SWEEP_ENV] = json.dumps(_sweep_now(jobs))


def sweep() -> dict:
    """The sweep a run is trained in: the one :func:`start_sweep` marked, else this process as a sweep
    of one job (``isarcasm train``), started when first asked."""
    try:
        marked = json_value(os.environ[SWEEP_ENV], f"${SWEEP_ENV}")
    except (KeyError, ValueError):
        return _own_sweep()
    return marked if isinstance(marked, dict) else _own_sweep()


@functools.cache
def _own_sweep() -> dict:
    return _sweep_now(1)


def _sweep_now(jobs: int) -> dict:
    """A sweep starting now: UTC time, jobs, and the one-minute load average (None where unknown)."""
    try:
        load = round(os.getloadavg()[0], 2)
    except OSError:
        load = None
    return {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "jobs": jobs, "load": load}


def sweep_text(sweep_record: dict | None) -> str:
    """A sweep in a few words, for a report: ``YYYY-MM-DD HH:MM UTC, --jobs 2, load 3.1``."""
    if not sweep_record:
        return "not recorded"
    load = sweep_record.get("load")
    return (f"{str(sweep_record.get('started', '?')).replace('T', ' ')[:16]} UTC, --jobs {sweep_record.get('jobs', '?')}"
            + (f", load {load:.1f}" if isinstance(load, (int, float)) else ""))


def run_origins(runs) -> list[dict]:
    """How many of the runs behind a results file were trained at each commit on each CPU.

    A reused run keeps the provenance of the session that trained it, which can differ from
    the commit and machine of the command that collected it into a table.  A CPU is told apart
    by its name, its family/model/stepping and its vector instructions, as far as the run
    recorded them: one name can cover processors that give different digits (:func:`machine`).
    """
    counts: dict[tuple, int] = {}
    for run in dict.fromkeys(str(run) for run in runs):
        try:
            config = load_json(Path(run) / "config.json")
        except (OSError, ValueError):
            config = {}
        cpu = config.get("machine", {})
        key = (config.get("git_commit", "unknown"), cpu.get("cpu", "not recorded"), cpu.get("cpu_id", ""),
               tuple(cpu.get("vector_isa", ())))
        counts[key] = counts.get(key, 0) + 1
    origins = []
    for (commit, name, cpu_id, isa), n in sorted(counts.items()):
        origin = {"git_commit": commit, "cpu": name}
        origin.update({"cpu_id": cpu_id} if cpu_id else {})
        origin.update({"vector_isa": list(isa)} if isa else {})
        origins.append({**origin, "runs": n})
    return origins


@functools.cache
def git_commit() -> str:
    """The checkout's commit when this process loaded its code, with '+dirty' when tracked files differed.

    Read once, at import: a run that finishes hours later records the code it ran, not a
    commit made in the meantime.
    """
    def git(*args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10)
    try:
        head = git("rev-parse", "HEAD")
        if head.returncode:
            return "unknown"
        dirty = git("status", "--porcelain", "--untracked-files=no").stdout.strip()
        return head.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


git_commit()  # read now, while the code this process runs is the checkout's


def config_hash(config: dict) -> str:
    """Hash of what determines a result (never of versions or commit, which are recorded beside it)."""
    canonical = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


#: What a run's config.json records beside the configuration its hash covers: the hash, what training found
#: (the model's shape, the label names, the inputs, the folder it was written to) and :func:`record`'s provenance.
RECORDED_BESIDE = ("config_hash", "experiment_dir", "model_config", "label_names", "inputs", "git_commit", "versions",
                   "machine", "command", "sweep")


def recorded_config_hash(config: dict) -> str:
    """The hash of the configuration a run's ``config`` (its config.json) records: its ``config_hash``, unless
    the file was edited since (a run of cnn renamed lstm would be reported as lstm)."""
    return config_hash({key: value for key, value in config.items() if key not in RECORDED_BESIDE})


def command_line() -> str:
    return " ".join([Path(sys.argv[0]).name, *sys.argv[1:]])


def without_options(words: list[str], options, flags=()) -> list[str]:
    """The words of a recorded command line without ``options``, each with its value (the next word, or after
    ``=``), and without ``flags``: a command that made results, retold without where or how it ran."""
    kept, value_next = [], False
    for word in words:
        if value_next or word in flags:
            value_next = False
            continue
        value_next = word in options
        if not value_next and word.split("=")[0] not in options:
            kept.append(word)
    return kept
