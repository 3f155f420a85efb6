"""`isarcasm ... | head`: when the reader of stdout stops reading, the command stops quietly with exit
code 0, as the usual command-line tools do (not exit 1, not a traceback)."""
import subprocess
import sys

import pytest
from locations import ROOT


@pytest.mark.parametrize("args", [["models", "list"], ["--help"]])
def test_a_closed_stdout_ends_the_command_quietly(args):
    command = subprocess.Popen([sys.executable, "-c", "from experiments.cli import main; main()", *args], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    command.stdout.close()  # closed before the command writes: its first write meets a broken pipe
    stderr = command.stderr.read().decode()
    assert command.wait(timeout=120) == 0
    assert "Traceback" not in stderr and "Broken" not in stderr and "Error:" not in stderr  # TensorFlow may log
