"""Send requests to a model one after the other from a fresh event loop, then close it (the
model tests that talk to a local server)."""

from __future__ import annotations

import asyncio

from socialbench.models.base import Model
from socialbench.types import Generation, Request


def generate_in_turn(model: Model, *requests: Request) -> list[Generation]:
    """The model's generations for ``requests``, each sent once the previous one is answered;
    the model is closed afterwards, also when one fails."""

    async def go() -> list[Generation]:
        try:
            return [await model.generate(r) for r in requests]
        finally:
            await model.aclose()

    return asyncio.run(go())
