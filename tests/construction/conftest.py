"""Fixtures of the build-pipeline tests (defined in build_fixtures.py, which tests import)."""

from build_fixtures import (  # noqa: F401
    chat_server,
    cli,
    images_server,
    llm_args,
    work,
    write_scenarios,
)
