"""The OpenAI-compatible backend posts over aiohttp itself: the SDK is never imported."""

import subprocess
import sys


def test_creating_and_using_the_backend_imports_no_sdk():
    code = (
        "import asyncio, sys\n"
        "from socialbench.models.registry import ModelOptions, create_model\n"
        "from socialbench.testing.openai_server import ScriptedOpenAIServer\n"
        "from socialbench.types import Request\n"
        "async def go(m):\n"
        "    g = await m.generate(Request(prompt='{\"answer\": 1}'))\n"
        "    await m.aclose()\n"
        "    return g.text\n"
        "with ScriptedOpenAIServer() as srv:\n"
        "    text = asyncio.run(go(create_model(f'openai:m@{srv.base_url}', ModelOptions())))\n"
        "print(bool(text), 'openai' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "False"]
