"""What each run sent the model, said under every table: its generation settings.

``run.json`` records the settings a run sends (``generation``: only those that are set; a
setting left out was not sent and the provider's default applied) and what the backend had
to change because the server refused them (``generation_adapted``: setting -> what was done,
then the server's words). :func:`generation_notes` turns them into one note for the runs of
a table when they agree, else one per group of runs::

    Sent: temperature 0, max_tokens 1024, JSON mode; adapted: max_tokens
    sent as max_completion_tokens, temperature not sent; images longest side 768 px
    (aspect kept), JPEG quality 90.
    Sent: no sampling setting, no token limit (provider defaults), JSON mode; images
    512×512 (squashed, OpenCV bilinear), JPEG quality 95.

The images part comes from ``run.json``'s ``image_policy``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from socialbench.report.run_dir import RunDir

__all__ = ["describe_generation", "describe_images_seen", "describe_images_sent", "generation_notes"]

_ORDER = ("temperature", "top_p", "max_tokens", "reasoning_effort")


def _number(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def describe_generation(settings: Mapping[str, object], adapted: Mapping[str, object] | None = None) -> str:
    """One run's generation settings in words (see the module docstring).

    >>> describe_generation({"max_tokens": 1024, "temperature": 0.0, "json_mode": True})
    'temperature 0, max_tokens 1024, JSON mode'
    >>> describe_generation({"json_mode": True})
    'no sampling setting, no token limit (provider defaults), JSON mode'
    """
    parts = [f"{name} {_number(settings[name])}" for name in _ORDER if settings.get(name) is not None]
    if not any(settings.get(name) is not None for name in ("temperature", "top_p")):
        parts.insert(0, "no sampling setting")
        if settings.get("max_tokens") is None:
            parts.insert(1, "no token limit (provider defaults)")
    elif settings.get("max_tokens") is None:
        parts.append("no token limit")
    parts.append("JSON mode" if settings.get("json_mode", True) else "no JSON mode")
    text = ", ".join(parts)
    changes = [f"{name} {str(what).split(';')[0]}" for name, what in sorted((adapted or {}).items())]
    if changes:
        text += "; adapted: " + ", ".join(changes)
    return text


def describe_images_sent(run: Mapping[str, object]) -> str:
    """run.json's ``image_policy`` in words ('' when run.json records none).

    >>> describe_images_sent({"image_policy": {"max_side": 0, "format": "JPEG", "quality": 95,
    ...     "size": [512, 512], "resample": "opencv-linear"}})
    '; images 512×512 (squashed, OpenCV bilinear), JPEG quality 95'
    >>> describe_images_sent({"image_policy": {"max_side": 768, "format": "JPEG", "quality": 90}})
    '; images longest side 768 px (aspect kept), JPEG quality 90'
    """
    from socialbench.vision.images import ImagePolicy

    doc = run.get("image_policy")
    if not isinstance(doc, Mapping):
        return ""
    try:
        policy = ImagePolicy(**{str(k): v for k, v in doc.items()})
    except (TypeError, ValueError, IndexError):
        return "; images: an image policy this version cannot read"
    return f"; images {policy.label()}"


def describe_images_seen(run: Mapping[str, object]) -> str:
    """What run.json's ``images_seen`` (the ``openai:`` backend's images probe) says when it
    is not a plain yes: '' for true or not recorded.

    >>> describe_images_seen({"images_seen": False, "images_check": {"images": 3,
    ...     "prompt_tokens_with_images": 120, "prompt_tokens_without_images": 120}})
    '; images NOT seen (3 images: 120 prompt tokens with them, 120 without; a text-only model?)'
    >>> describe_images_seen({"images_seen": None, "images_check": {"reason": "not checked"}})
    '; whether the images were seen: not checked'
    """
    if "images_seen" not in run or run["images_seen"] is True:
        return ""
    check = run.get("images_check")
    check = check if isinstance(check, Mapping) else {}
    if run["images_seen"] is False:
        return (
            f"; images NOT seen ({check.get('images', '?')} images: {check.get('prompt_tokens_with_images', '?')} "
            f"prompt tokens with them, {check.get('prompt_tokens_without_images', '?')} without; a text-only model?)"
        )
    return f"; whether the images were seen: {check.get('reason', 'unknown')}"


def _of(run: RunDir) -> str | None:
    settings = run.run.get("generation")
    if not isinstance(settings, Mapping):
        return None
    adapted = run.run.get("generation_adapted")
    text = describe_generation(settings, adapted if isinstance(adapted, Mapping) else None)
    return text + describe_images_sent(run.run) + describe_images_seen(run.run)


def generation_notes(runs: Sequence[RunDir]) -> tuple[str, ...]:
    """The notes on what ``runs`` sent: none when no run records it (runs made before
    ``run.json`` did), one when they agree, else one per group (``Sent by A, B: ...``)."""
    groups: dict[str, list[str]] = {}
    for r in runs:
        groups.setdefault(_of(r) or "not recorded", []).append(r.label or r.path.name)
    if set(groups) <= {"not recorded"}:
        return ()
    if len(groups) == 1:
        (only,) = groups
        return (f"Sent: {only}.",)
    return tuple(f"Sent by {', '.join(labels)}: {text}." for text, labels in groups.items())
