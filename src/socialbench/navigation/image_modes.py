"""The image modes of a SocialNav-SUB sample: what each of its ten images shows."""

from __future__ import annotations

#: ``img-with-bev``: the front view above the bird's-eye view; ``img``: the annotated front
#: view ("No BEV" ablation); ``bev``: the bird's-eye view only.
IMAGE_MODES: tuple[str, ...] = ("img-with-bev", "img", "bev")
