"""Fixtures of the RobotEQ tests (defined in roboteq_fixtures.py, which tests import)."""

from roboteq_fixtures import make_release, release  # noqa: F401
