"""The ``openai:`` model spec: one OpenAI-compatible endpoint, or a pool of them.

``openai:MODEL[@URL]`` gives an :class:`~socialbench.models.openai_compat.OpenAICompatModel`;
several comma-separated URLs or the pool options give a
:class:`~socialbench.models.endpoints.MultiEndpointModel`.
"""

from __future__ import annotations

from socialbench.models.endpoints import MultiEndpointModel, create_pool_model, split_urls
from socialbench.models.openai_compat import OpenAICompatModel, parse_spec
from socialbench.models.registry import ModelOption, ModelOptions, register

#: The ``--model-opt`` keys of ``openai:`` (one endpoint and the pool); others are refused.
OPENAI_OPTIONS = (
    ModelOption("api_key_env", "text", "environment variable holding the API key (default OPENAI_API_KEY)"),
    ModelOption("json_mode", "flag", "false: never send response_format (default true)"),
    ModelOption("send_seed", "flag", "true: send the run's seed with every request (default false)"),
    ModelOption("stream", "flag", "false: never ask for streamed replies (default true)"),
    ModelOption("check_images", "flag", "false: send no probe of whether the server saw the images (default true)"),
    ModelOption("endpoints_file", "path", "file listing the endpoint URLs of a pool, one a line"),
    ModelOption("per_endpoint_concurrency", "count", "requests in flight per endpoint of a pool"),
    ModelOption("cooldown_s", "number", "seconds a failing endpoint of a pool rests at first"),
    ModelOption("max_cooldown_s", "number", "longest rest of a failing endpoint of a pool (seconds)"),
)


@register(
    "openai",
    summary="Any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, SGLang, Ollama, LM Studio); "
    "several URLs spread the load (options: api_key_env, endpoints_file, per_endpoint_concurrency, cooldown_s)",
    example="openai:Qwen/Qwen2.5-VL-7B-Instruct@http://localhost:8000/v1",
    options=OPENAI_OPTIONS,
    check_rest=parse_spec,
)
def create_openai_model(rest: str, options: ModelOptions) -> OpenAICompatModel | MultiEndpointModel:
    """OpenAI-compatible chat-completions endpoint: ``openai:MODEL[@URL1[,URL2,...]]``.

    One URL and no pool options give an :class:`OpenAICompatModel`; several URLs,
    ``--model-opt endpoints_file=PATH`` or ``--model-opt per_endpoint_concurrency=N`` give a
    :class:`socialbench.models.endpoints.MultiEndpointModel`.
    """
    model, base_url = parse_spec(rest)
    pooled = options.get("endpoints_file") or options.get("per_endpoint_concurrency")
    if base_url is not None and ("," in base_url or pooled) or (base_url is None and pooled):
        return create_pool_model(model, split_urls(base_url or ""), options)
    return OpenAICompatModel(model, base_url, options)
