"""``python -m experiments.cli``: the ``isarcasm`` command where its console script is not installed
(a fresh clone run from its root)."""
from experiments.cli import main

main(prog_name="isarcasm")
