"""The module the ``inspect_ai`` entry point names: importing it registers the four tasks
(``socialbench/socialnav_sub``, ``socialbench/socialnav_waypoint``, ``socialbench/roboteq_bj``,
``socialbench/roboteq_sg``) with Inspect."""

from socialbench.inspect_tasks.tasks import roboteq_bj, roboteq_sg, socialnav_sub, socialnav_waypoint

__all__ = ["roboteq_bj", "roboteq_sg", "socialnav_sub", "socialnav_waypoint"]
