"""SocialNav-SUB waypoint selection (paper App. 7.1, Figure 4, Table 3)."""

from socialbench.benchmarks.base import register_benchmark
from socialbench.benchmarks.socialnav_waypoint.options import WaypointOptions

register_benchmark(
    "socialnav-waypoint",
    title="SocialNav waypoint",
    options=WaypointOptions,
    factory="socialbench.benchmarks.socialnav_waypoint.benchmark:SocialNavWaypoint",
)
