"""Runs, laid out in the order of their life cycle: :mod:`~experiments.runs.one` (one run, from its
protocol to its stored folder), :mod:`~experiments.runs.many` (running many of them: the scheduler and
its executors) and :mod:`~experiments.runs.entrants` (runs whose predictions come from something
other than a model of the suite).  ``console`` stands here, on the floor all three use, and imports none of
them; ``one`` imports neither ``many`` nor ``entrants``, and ``many`` never
``entrants`` (``tests/test_architecture.py`` checks these rooms).

The lowest layer of ``experiments``: it may import ``baselines``, ``embeddings`` and
``preprocessing``, never ``experiments.results``, ``experiments.reports``, ``experiments.studies`` or
``experiments.cli``.
:mod:`~experiments.runs.one.store` is the one owner of the run folder's format;
:mod:`~experiments.runs.many.scheduler` is the one place where runs are handed to an executor.
"""
