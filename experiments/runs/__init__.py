"""One run: the protocol (splits, training settings), training, model selection, inference, the
run store and the scheduler that trains many runs.

The lowest layer of ``experiments``: it may import ``baselines``, ``embeddings`` and
``preprocessing``, never ``experiments.reports``, ``experiments.studies`` or ``experiments.cli``.
:mod:`~experiments.runs.store` is the one owner of the run folder's format;
:mod:`~experiments.runs.scheduler` is the one place where runs are handed to an executor.
"""
