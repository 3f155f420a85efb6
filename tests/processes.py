"""A command run as a real process in a session of its own, to signal it and to check that every process of
it (its workers, their resource tracker, the Ray it started) ends with it."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from locations import ROOT


def start(args: list[str], cwd: Path) -> subprocess.Popen:
    """``isarcasm ARGS`` in a new session (its process group is its pid), output captured."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "3"}
    code = "import sys; from experiments.cli import main; sys.exit(main(prog_name='isarcasm'))"
    return subprocess.Popen([sys.executable, "-c", code, *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            # a test run in the background (nohup, CI) ignores SIGINT, and under nohup SIGHUP;
                            # the command, which keeps a SIGHUP ignored on purpose, must start as from a terminal
                            preexec_fn=_signals_as_from_a_terminal)


def _signals_as_from_a_terminal() -> None:
    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def wait_for_the_group_to_end(group: int, seconds: float) -> None:
    """Every process of the command's group (start_new_session: its workers, their resource tracker) ends."""
    deadline = time.time() + seconds
    while group_alive(group):
        assert time.time() < deadline, "processes of the command outlived it"
        time.sleep(0.1)
