"""The ``isarcasm`` group: global options, and every command attached.

Each command family lives in its own module of this package.  User errors
(:class:`IsarcasmError`) become one line on stderr and exit code 1; faults of the machine (a full disk,
a folder without permission) one line too, exit code 74.
"""
from __future__ import annotations

import contextlib
import errno
import logging
import os
import shlex
import signal
import sys
import threading

import click

from experiments.cli.benchmark import benchmark, cross_eval, leaderboard_command
from experiments.cli.data import data
from experiments.cli.embeddings import embeddings
from experiments.cli.models import models
from experiments.cli.preprocess import preprocess
from experiments.cli.reproduce import report, reproduce
from experiments.cli.runs import runs
from experiments.cli.train import evaluate, predict, train
from experiments.runs.console import set_up_console
from experiments.runs.one.protocol import RETIRED_SETTINGS, rerun_at
from experiments.runs.one.provenance import BACKENDS, keras_settings_backend, use_backend
from preprocessing.datadir import resolve_data_dir
from preprocessing.errors import IsarcasmError, one_line


class _Group(click.Group):
    """A click group that reports user errors in one line, without a traceback: a wrong option or
    argument too (click's usage block is replaced by a pointer to ``--help``; exit code 2)."""

    def invoke(self, ctx: click.Context):
        try:
            with _sigterm_as_interrupt():
                result = super().invoke(ctx)
                sys.stdout.flush()  # a pipe closed early fails here, not in Python's flush at exit
                return result
        except BrokenPipeError:
            raise _stdout_closed() from None
        except IsarcasmError as exc:
            raise click.ClickException(one_line(str(exc))) from None
        except click.UsageError as exc:
            raise _one_line(exc) from None
        except KeyboardInterrupt:
            signum = _RECEIVED[-1] if _RECEIVED else signal.SIGINT
            raise _Interrupted(128 + signum, _ENDING_SIGNALS.get(signum, "interrupted")) from None
        except OSError as exc:
            if exc.errno not in MACHINE_FAULTS:
                raise
            raise _MachineFault(exc) from None

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta[_TYPED] = list(args)  # shared with every nested context: what a retired option's line repeats
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            raise _one_line(exc) from None
        except BrokenPipeError:  # --help into `| head`
            raise _stdout_closed() from None


def _stdout_closed() -> click.exceptions.Exit:
    """What a command whose reader stopped reading (``isarcasm ... | head``) ends with: nothing more on
    stdout or stderr and exit code 0, as the usual command-line tools end there.  stdout is pointed at
    /dev/null first: Python flushes it again at exit, which would fail once more and print a traceback."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no file descriptor (a test's captured stdout)
        pass
    return click.exceptions.Exit(0)


#: The signals that end a command as Ctrl-C does, with what the one line says: SIGTERM (``kill``, a batch
#: system's time limit) and SIGHUP (the terminal or SSH session closed).
_ENDING_SIGNALS = {signal.SIGTERM: "terminated", signal.SIGHUP: "terminated (hang-up: SIGHUP)"}


#: The ending signals received while the command runs: what the one line reports, even where the
#: interrupt raised for one came back as a plain KeyboardInterrupt (Ray's waits turn any into one).
_RECEIVED: list[int] = []


class _Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the program is, as Ctrl-C is: every ``except KeyboardInterrupt``
    that ends the worker processes (experiments/runs/many/scheduler.py), ends Ray tasks or drops a
    half-written run does the same for it.  Python's default for them ends this process alone, and its
    ``--jobs`` workers, re-parented, went on training."""


def _raise_terminated(signum, frame):
    _RECEIVED.append(signum)
    raise _Terminated(signum)


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """SIGTERM and SIGHUP raise :class:`_Terminated` while a command runs (signals are the main thread's
    alone).  A SIGHUP ignored on purpose (``nohup``) stays ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _RECEIVED.clear()
    previous = {signum: signal.getsignal(signum) for signum in _ENDING_SIGNALS}
    for signum in _ENDING_SIGNALS:
        if not (signum == signal.SIGHUP and previous[signum] is signal.SIG_IGN):
            signal.signal(signum, _raise_terminated)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


class _Interrupted(click.ClickException):
    """Ctrl-C (SIGINT), SIGTERM or SIGHUP: one line and exit code 130, 143 or 129, as a shell reports a
    command that signal ended (128 + the signal's number)."""

    def __init__(self, exit_code: int, what: str):
        super().__init__(f"{what}; finished runs are kept (a run being trained is not), and the same command resumes")
        self.exit_code = exit_code


_ELSEWHERE = "or choose another --output-dir / --results-dir"
_ACCESS = f"give this user access to it (write access, where files go), {_ELSEWHERE}"
_SPACE = f"free some space, {_ELSEWHERE}, and run the same command again"
#: Faults of the machine, not of the command or its input (errno -> what happened, what to do). Every
#: file is written to a temporary name and renamed once complete (experiments/runs/one/store.py), and a
#: run is staged in a folder swapped in at the end, so nothing half-written is left to clean up.
MACHINE_FAULTS = {
    errno.ENOSPC: ("no space left on the device", _SPACE),
    errno.EDQUOT: ("disk quota exceeded", _SPACE),
    errno.EACCES: ("permission denied", _ACCESS),
    errno.EPERM: ("operation not permitted", _ACCESS),
    errno.EROFS: ("read-only file system", "choose another --output-dir / --results-dir"),
}


class _MachineFault(click.ClickException):
    """A full disk, a folder without write permission...: one line naming the path and what to do, exit
    code 74 (EX_IOERR of sysexits.h: an input/output error, not the user's input)."""

    exit_code = 74

    def __init__(self, exc: OSError):
        problem, remedy = MACHINE_FAULTS[exc.errno]
        where = f"{exc.filename}: " if exc.filename else ""
        super().__init__(one_line(f"{where}{problem}; nothing half-written was kept; {remedy}"))


#: Options that left the suite, with what they chose: the one line an old option gets names the last commit
#: that has them and the command typed, to run there (:func:`~experiments.runs.one.protocol.rerun_at`).
RETIRED_OPTIONS = {
    **{f"--{key.replace('_', '-')}": f"--{key.replace('_', '-')} ({what})" for key, what in RETIRED_SETTINGS.items()},
    "--padded-batches": "--padded-batches (rescoring runs on padded validation and test splits, a diagnostic)",
}
_TYPED = "isarcasm.typed"


def _one_line(exc: click.UsageError) -> click.UsageError | click.exceptions.Exit:
    """The same error without the usage lines (a UsageError without a context prints only its message).
    A group called without a command (``isarcasm``, ``isarcasm models``) is not an error: its help is
    printed, exit code 0.  An option that left the suite (:data:`RETIRED_OPTIONS`) is the line saying where
    it still is."""
    if isinstance(exc, click.exceptions.NoArgsIsHelpError) and exc.ctx is not None:
        click.echo(exc.ctx.get_help())
        return click.exceptions.Exit(0)
    command = exc.ctx.command_path if exc.ctx is not None else "isarcasm"
    retired = RETIRED_OPTIONS.get(exc.option_name) if isinstance(exc, click.NoSuchOption) else None
    if retired:
        typed = exc.ctx.meta.get(_TYPED, []) if exc.ctx is not None else []
        plain = click.UsageError(rerun_at(retired, f"`isarcasm {shlex.join(typed)}`"))
    else:
        plain = click.UsageError(f"{one_line(exc.format_message())} (see `{command} --help`)")
    plain.exit_code = exc.exit_code
    return plain


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--data-dir", type=click.Path(file_okay=False), envvar=None,
              help="Data directory (default: $ISARCASM_DATA, else ./data).")
@click.option("-q", "--quiet", is_flag=True, help="Print only results and errors (no warnings, no TensorFlow lines).")
@click.option("--model-module", "model_modules", multiple=True, metavar="FILE.py",
              help="A Python file registering a model with baselines.register_model (repeatable).")
@click.option("--backend", type=click.Choice(list(BACKENDS)), default=None,
              help="Keras backend to train and predict with (default: $KERAS_BACKEND, else tensorflow, the backend "
                   "of the committed numbers). Another backend gives other numbers, so its runs and results are "
                   "a named variant: <experiment>-backend-NAME.")
@click.version_option(package_name="isarcasm-baselines")
@click.pass_context
def main(ctx: click.Context, data_dir: str | None, quiet: bool, model_modules: tuple[str, ...],
         backend: str | None) -> None:
    """Classic neural sarcasm detectors and the iSarcasm (ACL 2020) baseline tables."""
    set_up_console(logging.ERROR if quiet else logging.WARNING)  # before anything imports TensorFlow
    named = keras_settings_backend()  # Keras' own settings file: its number-changing settings are refused
    if backend or os.environ.get("KERAS_BACKEND"):  # before anything imports Keras (the plugins below do)
        use_backend(backend or os.environ["KERAS_BACKEND"], "--backend" if backend else "$KERAS_BACKEND")
    elif named and named[0] != "tensorflow":  # what Keras would use: set now, so runs are named for it
        use_backend(*named)
    ctx.obj = {"data_dir": resolve_data_dir(data_dir)}
    if model_modules:  # imported only when asked: importing the models loads TensorFlow
        from baselines.plugins import load_plugins

        load_plugins(model_modules)


for command in (data, preprocess, embeddings, models, train, evaluate, predict, reproduce, report, cross_eval,
                benchmark, leaderboard_command, runs):
    main.add_command(command)
