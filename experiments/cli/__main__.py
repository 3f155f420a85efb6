"""``python -m experiments.cli``: the ``isarcasm`` command where its console script is not installed
(a fresh clone run from its root).  Results files record the command a user can type again, so it is named
``isarcasm`` there too, not after this file."""
import sys

from experiments.cli import main

sys.argv[0] = "isarcasm"
main(prog_name="isarcasm")
