"""socialbench's benchmarks as Inspect AI tasks (the ``inspect`` extra; docs/inspect.md).

``inspect eval socialbench/socialnav_sub --model PROVIDER/MODEL -T data=DIR`` (and
``socialnav_waypoint``, ``roboteq_bj``, ``roboteq_sg``): Inspect finds the tasks through the
``inspect_ai`` entry point, which names :mod:`socialbench.inspect_tasks.registry`. Each item is
one Inspect sample; its questions are asked by the benchmark's own ``solve`` with Inspect's
model behind the requests (:mod:`socialbench.inspect_tasks.tasks`), and the papers' metrics
come from the benchmark's own ``score`` (:mod:`socialbench.export.inspect_format`).

Only this package and :mod:`socialbench.export.inspect_format` (loaded by ``socialbench export
inspect``) import ``inspect_ai``; nothing else in socialbench imports this package.
"""
