"""`socialbench models` lists the --model-opt keys each backend declares (issue 28 §4)."""

from socialbench.cli import main


def test_models_lists_each_backends_option_keys_with_kind_and_help(capsys):
    main(["models"])
    out = capsys.readouterr().out.splitlines()
    section = out[out.index("--model-opt keys of openai:") :]
    assert "  api_key_env (text): environment variable holding the API key (default OPENAI_API_KEY)" in section
    assert "  json_mode (flag): false: never send response_format (default true)" in section
