"""The click commands of ``isarcasm``, and nothing else: parsing options, calling a study,
a run or a report, and printing what they return.

The top layer: it may import ``experiments.studies``, ``experiments.reports``,
``experiments.runs`` and the packages below them; nothing imports it.  Shared
options live in :mod:`experiments.cli.options`; command modules never import
each other.
"""
from experiments.cli.main import main

__all__ = ["main"]
