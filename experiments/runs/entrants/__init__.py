"""Entrants: runs whose predictions come from something other than a classic model of the suite.
``registry`` holds every kind and scores a run through the store as a trained run is stored; the
reference rows live there, a user's scikit-learn estimator in ``estimators``, predictions made
outside the suite in ``outside`` and a user's Keras model in ``keras_models``.  The room builds on
:mod:`~experiments.runs.one` (protocol, store, metrics); the scheduler runs its tasks without
importing it.
"""
