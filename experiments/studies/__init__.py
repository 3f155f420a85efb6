"""Studies: many runs and what they add up to: experiment files (``tables/*.toml``), table
reproductions, the cross-dataset matrix, benchmarks of a new model, the human baseline.

Every study takes one :class:`~experiments.studies.settings.Settings`, turns its cells into
run tasks for :func:`experiments.runs.many.scheduler.run_tasks`, and returns its
:class:`~experiments.results.schema.Result`, saved through :mod:`experiments.reports.kinds`.  May import
``experiments.reports``, ``experiments.results``, ``experiments.runs`` and the packages below them, never
``experiments.cli``.
"""
