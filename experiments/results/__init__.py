"""Results: what a study adds up to, as one type with one home.

:mod:`~experiments.results.schema` is the :class:`~experiments.results.schema.Result` every study returns and
every report takes; :mod:`~experiments.results.files` loads, checks and finds results files and writes a
result's files; :mod:`~experiments.results.commit` commits those files as one set.  May import
``experiments.runs`` (provenance, the run store's file helpers) and the packages below it, never
``experiments.reports``, ``experiments.studies`` or ``experiments.cli``.
"""
