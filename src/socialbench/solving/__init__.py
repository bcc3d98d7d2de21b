"""Solvers: how a benchmark's questions are put to a model, over a context the runner provides
(:mod:`.context`), and the generic orders of asking (:mod:`.solvers`).
"""
