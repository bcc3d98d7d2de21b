"""Where a RobotEQ ``--data`` value points: a local folder, or a Hugging Face hub snapshot
downloaded with ``huggingface_hub`` (optional extra ``socialbench[hub]``)."""

from __future__ import annotations

import re
from pathlib import Path

from socialbench.errors import UsageError

__all__ = ["HUB_ID", "resolve_data"]

HUB_ID = "Tongji-Emotion/Robot-EQ"


def resolve_data(data: Path | str) -> Path:
    """A local dataset folder for ``data``: the folder itself, or a hub snapshot of
    ``Tongji-Emotion/Robot-EQ`` (when no such folder exists) or ``hf:OWNER/NAME`` (also
    ``hf://OWNER/NAME``), downloaded or cached by ``huggingface_hub``. Raises
    :class:`UsageError` with the fix when neither works (missing extra, offline, ...)."""
    path = Path(data)
    if path.exists():
        if not path.is_dir():
            raise UsageError(f"{path} is a file; --data needs the RobotEQ dataset folder")
        return path
    text = str(data)
    repo: str | None = None
    if text.startswith("hf:"):
        repo = text[3:].lstrip("/")
    elif text == HUB_ID or re.fullmatch(r"[A-Za-z0-9_.-]+/Robot-EQ[A-Za-z0-9_.-]*", text):
        repo = text
    if repo is None:
        raise UsageError(f"dataset folder {path} does not exist; pass the RobotEQ folder or the hub id {HUB_ID}")
    try:
        from huggingface_hub import snapshot_download  # optional extra: socialbench[hub]
    except ImportError as exc:
        raise UsageError(
            f"loading {repo} from the Hugging Face hub needs huggingface_hub: pip install 'socialbench[hub]', "
            "or download the dataset yourself and pass its folder with --data"
        ) from exc
    try:
        local = snapshot_download(repo_id=repo, repo_type="dataset")
    except Exception as exc:  # network errors, offline mode, gated repo, ...
        raise UsageError(
            f"could not fetch {repo} from the Hugging Face hub ({type(exc).__name__}: {exc}). "
            f"If this machine is offline, download it elsewhere with "
            f"`huggingface-cli download {repo} --repo-type dataset --local-dir DIR` and pass --data DIR"
        ) from exc
    return Path(local)
