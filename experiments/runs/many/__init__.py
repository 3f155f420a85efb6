"""Running many runs: the scheduler that hands tasks to an executor (``scheduler``: local worker
processes) and the Ray executor (``cluster``).  It stands above :mod:`~experiments.runs.one`, whose
runs it trains, and knows an entrant's run only as a task's kind, so it imports nothing from
:mod:`~experiments.runs.entrants`.
"""
