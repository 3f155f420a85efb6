"""Experiments on the baselines, in four layers; each imports only the layers below it:

``cli`` (the commands) → ``studies`` (many runs) → ``reports`` (read results) → ``runs`` (one run),
all above ``baselines``, ``embeddings`` and ``preprocessing``.  See docs/architecture.md.
"""
