"""One run's life: its protocol and splits (``protocol``), what it is and where it lives (``spec``),
its inputs, training and epoch selection (``inputs``, ``training``, ``selection``, ``trajectory``),
its numbers (``metrics``, ``footprint``, ``provenance``), its folder (``store``, the one owner of the
run format), the shipped reference set (``reference``, ``reference_arrays``) and using a finished run
(``inference``).  Everything a single run needs is here, so this room imports nothing from the
rooms that run many of them (:mod:`~experiments.runs.many`) or add other kinds
(:mod:`~experiments.runs.entrants`).
"""
