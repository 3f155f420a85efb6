"""The console's one policy, for the command's process and every worker (local or Ray) alike.

What reaches stderr is ours: warnings as ``warning: ...`` lines through :mod:`logging` (``-q``:
errors only), Python warnings of third-party packages (``warnings.warn``) routed through the same
logging, and TensorFlow's Python logger too, less one false alarm: "N out of the last M calls to
<function TensorFlowTrainer.make_predict_function...> triggered tf.function retracing".  Every
run's model is a new Keras model whose predict function is traced once (Keras already makes it
``reduce_retracing``); TensorFlow counts the traces of all functions with the same code together,
so evaluating several runs in one process (``evaluate RUN...``, ``cross-eval``) reads to it as one
function retraced in a loop.  Only that message about Keras' own step functions is dropped.

TensorFlow's C++ start-up lines (``WARNING: All log messages before absl::InitializeLog() ...``,
oneDNN, "Could not find cuda drivers", CPU instructions) are written by its native libraries
straight to file descriptor 2 while ``tensorflow`` is imported, before any setting of TensorFlow's
own applies (``TF_CPP_MIN_LOG_LEVEL`` does not reach them: TensorFlow logs through absl).
So the import of ``tensorflow``, wherever it happens, runs with descriptor 2 captured, and the
captured lines are replayed filtered by ``TF_CPP_MIN_LOG_LEVEL`` (default 3 here: fatal only;
``TF_CPP_MIN_LOG_LEVEL=0 isarcasm ...`` shows them all again).  Anything else written meanwhile
(a Python traceback, a line that is not TensorFlow's) is replayed as it was.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import logging
import os
import re
import sys
import tempfile
from contextlib import contextmanager

#: The format of every warning and error line the suite logs.
LOG_FORMAT = "warning: %(message)s"
#: TensorFlow's C++ severities, in the order TF_CPP_MIN_LOG_LEVEL counts them (0: all ... 3: fatal only).
SEVERITIES = "IWEF"
#: The header of a native log line: absl's ``I0000 00:00:SECONDS.MICROS  THREAD FILE.cc:LINE] ...``
#: or that of TensorFlow's own logger, ``YYYY-MM-DD HH:MM:SS.MICROS: I FILE.cc:LINE] ...``.
NATIVE_LINE = re.compile(r"^(?:([IWEF])\d{4} [\d:.]+ +\d+ [^\]\s]+\] |\d{4}-\d\d-\d\d [\d:.]+: ([IWEF]) [^\]\s]+\] )")
#: The environment variable that carries the driver's log level to its workers (local and Ray).
LEVEL_VARIABLE = "ISARCASM_LOG_LEVEL"
#: The first line of what Python itself writes: a traceback, a warning, a logged line.
PYTHON_OUTPUT = re.compile(r"^(?:Traceback \(most recent call last\)|\S+:\d+: \w*Warning: |warning: "
                           r"|\w+(?:Error|Exception): )")
ABSL_NOTICE = "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR"


def set_up_console(level: int) -> None:
    """The policy for this process (idempotent): ``level`` for our and every package's Python logging,
    Python warnings logged, TensorFlow's native start-up lines filtered (see the module's notes)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    logging.basicConfig(level=level, format=LOG_FORMAT)
    logging.getLogger().setLevel(level)
    logging.captureWarnings(True)
    tensorflow = logging.getLogger("tensorflow")
    if not any(isinstance(f, _OneTracePerModel) for f in tensorflow.filters):
        tensorflow.addFilter(_OneTracePerModel())
    if not any(isinstance(finder, _QuietTensorFlowImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _QuietTensorFlowImport())


class _OneTracePerModel(logging.Filter):
    """Drops TensorFlow's retracing alarm about Keras' step functions (see the module's notes)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not ("triggered tf.function retracing" in message and "TensorFlowTrainer.make_" in message)


def chatty() -> bool:
    """Whether progress is shown (bars, Keras' epoch lines, word-vector coverage): not under ``-q``,
    which leaves results and errors only."""
    return logging.getLogger().getEffectiveLevel() <= logging.WARNING


def set_up_worker_console() -> None:
    """A worker's console: the policy at the level its driver passed (see :func:`worker_level`)."""
    value = os.environ.get(LEVEL_VARIABLE, "")
    set_up_console(int(value) if value.isdigit() else logging.WARNING)


def worker_level() -> dict[str, str]:
    """This process' log level, for a worker's environment."""
    return {LEVEL_VARIABLE: str(logging.getLogger().getEffectiveLevel())}


def native_lines_kept(text: str, min_level: int) -> str:
    """``text`` written to stderr during TensorFlow's import, without the native log messages below
    ``min_level`` (a message's continuation lines go with it) and without absl's notice when no
    native message is left."""
    kept, keep, any_native = [], True, False
    for line in text.splitlines(keepends=True):
        match = NATIVE_LINE.match(line)
        if match:
            keep = SEVERITIES.index(match.group(1) or match.group(2)) >= min_level
            any_native |= keep
        elif line.rstrip("\n") == ABSL_NOTICE:
            keep = None  # decided at the end: shown only beside a native message that is shown
        elif PYTHON_OUTPUT.match(line):
            keep = True  # Python's own report (a traceback, a warning) is never a native message's continuation
        if keep or keep is None:
            kept.append((keep, line))
    return "".join(line for keep, line in kept if keep or any_native)


def _min_level() -> int:
    value = os.environ.get("TF_CPP_MIN_LOG_LEVEL", "0").strip()
    return int(value) if value.isdigit() else 0


@contextmanager
def native_stderr_filtered():
    """Descriptor 2 captured while the block runs, then replayed through :func:`native_lines_kept`."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            shown = native_lines_kept(captured.read().decode("utf-8", errors="replace"), _min_level())
            if shown:
                sys.stderr.write(shown)
                sys.stderr.flush()


class _QuietTensorFlowImport(importlib.abc.MetaPathFinder):
    """Finds ``tensorflow`` as the other finders do, and imports it under :func:`native_stderr_filtered`."""

    def find_spec(self, name, path, target=None):
        if name != "tensorflow":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _FilteredLoader(spec.loader)
        return spec


class _FilteredLoader(importlib.abc.Loader):
    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        with native_stderr_filtered():
            self.loader.exec_module(module)
