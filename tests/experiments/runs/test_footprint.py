"""A run's peak memory is measured from the run's start, not over the process' life."""
from pathlib import Path

import numpy as np
import pytest

from experiments.runs.one.footprint import RunMeter, texts_per_second

pytestmark = pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(),
                                reason="peak memory is measured through Linux' /proc only")


def test_the_peak_counts_what_the_run_allocated_and_a_new_run_starts_from_what_is_held_now():
    meter = RunMeter()
    before = meter.peak_mb()
    block = np.ones(300 * 2**20 // 8)  # 300 MiB, touched
    peak = meter.peak_mb()
    assert peak - before >= 280
    del block
    assert RunMeter().peak_mb() < peak - 250  # the next run is not charged for this one's peak


def test_throughput_is_texts_over_seconds_and_unknown_without_a_timing():
    assert texts_per_second(500, 0.25) == 2000.0
    assert texts_per_second(500, None) is None and texts_per_second(0, 1.0) is None
