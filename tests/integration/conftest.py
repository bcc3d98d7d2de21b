"""Integration tests against real external services; each is skipped unless its service is
configured (see the test modules)."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "label_studio: needs a running Label Studio (SOCIALBENCH_LABEL_STUDIO_URL and SOCIALBENCH_LABEL_STUDIO_TOKEN); "
        "scripts/label_studio_roundtrip.sh starts one",
    )
    config.addinivalue_line(
        "markers",
        "litellm: needs a running LiteLLM proxy in front of the scripted server (SOCIALBENCH_LITELLM_URL, "
        "SOCIALBENCH_LITELLM_KEY, SOCIALBENCH_LITELLM_STATS); scripts/litellm_roundtrip.sh starts one",
    )
