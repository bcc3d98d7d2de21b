"""installed_version reads the version pip recorded, as importlib.metadata does."""

from importlib import metadata

import pytest

from socialbench.versions import installed_version


@pytest.mark.parametrize("name", ["pytest", "numpy", "pillow", "aiohttp"])
def test_the_version_of_an_installed_distribution_is_importlib_metadatas(name: str) -> None:
    assert installed_version(name) == metadata.version(name)


def test_a_distribution_that_is_not_installed_has_no_version() -> None:
    assert installed_version("socialbench-no-such-distribution") is None
