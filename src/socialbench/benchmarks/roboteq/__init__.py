"""RobotEQ-Bench: behavior judgment (``-b roboteq-bj``) and spatial grounding (``-b roboteq-sg``)."""

from socialbench.benchmarks.base import register_benchmark
from socialbench.benchmarks.roboteq.options import JudgmentOptions, RobotEQOptions

register_benchmark(
    "roboteq-bj",
    title="RobotEQ",
    options=JudgmentOptions,
    factory="socialbench.benchmarks.roboteq.benchmark:RobotEQJudgment",
)
register_benchmark(
    "roboteq-sg",
    title="RobotEQ",
    options=RobotEQOptions,
    factory="socialbench.benchmarks.roboteq.benchmark:RobotEQGrounding",
)
