"""SocialNav-SUB (VQA on robot navigation clips): ``-b socialnav-sub``, and ``-b
socialnav-sim`` on the bundled simulated scenes."""

from pathlib import Path

from socialbench.benchmarks.base import register_alias, register_benchmark
from socialbench.benchmarks.socialnav_sub.options import SocialNavOptions


def bundled_demo_data() -> Path:
    """The bundled default dataset (procedurally generated scenes; see its README)."""
    return Path(__file__).resolve().parent / "data" / "demo"


register_benchmark(
    "socialnav-sub",
    title="SocialNav-SUB",
    options=SocialNavOptions,
    factory="socialbench.benchmarks.socialnav_sub.benchmark:SocialNavSub",
)
register_alias("socialnav-sim", "socialnav-sub", bundled_demo_data)
