"""What a run cost: its training time, the one-time work apart from it, the peak memory of the process
that ran it, and how fast its model predicts.

One-time work (``setup_seconds``) is what a worker does for a run that does not depend on the model:
reading the word vectors (building their cache the first time a file is read, which can take longer
than the run's training) and tokenising the splits.  It is timed apart, so ``train_seconds`` is
the run's own training (building, fitting and selecting the model, scoring its splits), whichever
run of a worker came first.

Peak memory is Linux's high-water mark of the process' resident memory (``VmHWM`` in
/proc/self/status).  Writing 5 to /proc/self/clear_refs lowers that mark to what the process holds
now, so a worker that runs many runs one after another measures each from the run's start.  The
figure includes what the process already held when the run began (the Keras runtime, the corpus, the
word vectors of an earlier run of the same worker): it is what a machine needs to run that run in that
process, not the model's own bytes.  Where /proc is missing (macOS, Windows) the peak is None and the
reports print "—".
"""
from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

#: What a run's metrics.json records about the machine that ran it rather than about the model: two
#: runs of one configuration differ in these, so a comparison of numbers leaves them out.
COSTS = ("train_seconds", "setup_seconds", "predict_texts_per_second", "peak_memory_mb")

_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


class RunMeter:
    """Started with a run: the seconds since, less the one-time work timed by :meth:`apart`, and this
    process' peak resident memory since, in MiB (None where that cannot be measured: no /proc, or the
    mark could not be lowered, when a lifetime peak is not the run's)."""

    def __init__(self) -> None:
        self.started = time.time()
        self.setup = 0.0
        try:
            _CLEAR_REFS.write_text("5")
            self._measuring = True
        except OSError:
            self._measuring = False

    def seconds(self) -> float:
        """The run's own seconds: since its start, without its one-time work."""
        return round(max(time.time() - self.started - self.setup, 0.0), 1)

    def setup_seconds(self) -> float:
        return round(self.setup, 1)

    def apart(self, call: Callable):
        """``call()``, its seconds counted as one-time work (see the module doc), not as training."""
        result, seconds = timed(call)
        self.setup += seconds
        return result

    def peak_mb(self) -> float | None:
        if not self._measuring:
            return None
        try:
            found = re.search(r"^VmHWM:\s+(\d+) kB", _STATUS.read_text(), re.MULTILINE)
        except OSError:
            return None
        return round(int(found.group(1)) / 1024, 1) if found else None


def timed(call: Callable):
    """``call()`` and the seconds it took."""
    started = time.perf_counter()
    result = call()
    return result, time.perf_counter() - started


def texts_per_second(texts: int, seconds: float | None) -> float | None:
    """A prediction throughput, rounded for the record; None where nothing was timed."""
    if seconds is None or texts == 0:
        return None
    return round(texts / max(seconds, 1e-9), 1)
