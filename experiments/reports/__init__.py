"""Reports: tables, figures and significance tests, read from results and run folders; nothing
here trains.

May import ``experiments.results`` (the results they show), ``experiments.runs`` (to read run folders) and the
packages below them, never
``experiments.studies`` or ``experiments.cli``.  :mod:`~experiments.reports.kinds` is the
registry of result kinds (table, cross, benchmark), each with its markdown, csv and figures.
"""
