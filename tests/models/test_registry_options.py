"""Each backend declares its ``--model-opt`` keys and refuses others (issue 28 §4)."""

from __future__ import annotations

import pytest

from socialbench.errors import UsageError
from socialbench.models.openai_compat import OpenAICompatModel
from socialbench.models.registry import ModelOptions, backends, create_model

URL = "http://127.0.0.1:9/v1"


def _refusal(spec: str, *pairs: tuple[str, str]) -> str:
    with pytest.raises(UsageError) as caught:
        create_model(spec, ModelOptions(extra=pairs))
    return str(caught.value)


def test_a_typo_is_refused_naming_the_closest_key() -> None:
    message = _refusal(f"openai:m@{URL}", ("api_key_evn", "MY_KEY"))
    assert "'api_key_evn' is not an option of openai: did you mean 'api_key_env'?" in message


def test_the_refusal_lists_every_valid_key_on_one_line() -> None:
    message = _refusal(f"openai:m@{URL}", ("batch_size", "8"))
    valid = "api_key_env, check_images, cooldown_s, endpoints_file, json_mode, max_cooldown_s, per_endpoint_concurrency"
    assert "\n" not in message and f"valid keys: {valid}, send_seed, stream" in message


def test_another_backends_option_is_refused() -> None:
    assert "did you mean" not in _refusal(f"openai:m@{URL}", ("batch_size", "8"))


def test_a_backend_without_options_says_it_takes_none() -> None:
    assert _refusal("baseline:random", ("seed_offset", "1")).endswith("it takes no --model-opt")


def test_a_declared_key_is_accepted() -> None:
    model = create_model(f"openai:m@{URL}", ModelOptions(extra=(("json_mode", "false"),)))
    assert isinstance(model, OpenAICompatModel) and not model.json_mode_allowed


def test_the_option_value_is_not_shown() -> None:
    assert "sk-secret" not in _refusal(f"openai:m@{URL}", ("api_key", "sk-secret"))


def test_every_declared_option_has_a_known_kind_and_a_help_line() -> None:
    declared = [(b.prefix, o) for b in backends() for o in b.options]
    assert declared and all(
        o.kind in {"text", "flag", "count", "number", "path"} and o.help.strip() for _, o in declared
    )


def test_check_model_spec_refuses_an_option_without_building_the_model() -> None:
    from socialbench.models.registry import check_model_spec

    with pytest.raises(UsageError, match="did you mean 'api_key_env'"):
        check_model_spec("openai:gpt-4o@http://localhost:8000/v1", [("api_key_evn", "X")])


def test_check_model_spec_refuses_what_the_spec_itself_gets_wrong() -> None:
    from socialbench.models.registry import check_model_spec

    with pytest.raises(UsageError, match="names no host"):
        check_model_spec("openai:gpt-4o@http://")


def test_an_unknown_model_names_the_nearest_spec() -> None:
    from socialbench.models.registry import check_model_spec

    with pytest.raises(UsageError, match="did you mean 'openai:gpt-4o'"):
        check_model_spec("opena:gpt-4o")
