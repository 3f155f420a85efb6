"""``python -m experiments.cli`` is the ``isarcasm`` command: its usage and the command line a results file
records name ``isarcasm``, which a reader can type again, not the module's ``__main__.py``."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

RECORDED = """
import runpy
import experiments.cli
from experiments.runs.one import provenance
experiments.cli.main = lambda **kwargs: print(provenance.command_line())
runpy.run_module("experiments.cli", run_name="__main__")
"""


def test_the_recorded_command_is_isarcasm():
    shown = subprocess.run([sys.executable, "-c", RECORDED, "reproduce", "table7", "--seeds", "2"], cwd=ROOT,
                           capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "isarcasm reproduce table7 --seeds 2"


def test_the_usage_names_isarcasm():
    shown = subprocess.run([sys.executable, "-m", "experiments.cli", "--help"], cwd=ROOT, capture_output=True,
                           text=True, check=True)
    assert shown.stdout.startswith("Usage: isarcasm ")
