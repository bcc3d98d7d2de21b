"""Solvers: how a benchmark's questions are put to a model, over a context the runner provides.

:mod:`.context` is what a solver may do while a run is going (send a request, record an
answer, look up a stored one, prepare images), as callables the runner builds;
:mod:`.solvers` holds the generic orders of asking (each question on its own, or in order
with earlier answers) and the one way a model's reply becomes a
:class:`~socialbench.types.SampleRecord`.
"""
