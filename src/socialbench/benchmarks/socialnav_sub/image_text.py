"""The prompt's description of the images, for what ``--images`` sends.

The bank's survey instructions describe the paper's composites and are sent byte for byte
with ``--images img-with-bev``. For ``img`` and ``bev``, :func:`bank_for_images` replaces
the layout sentence (:data:`COMPOSITE_SENTENCE`) with :data:`MODE_SENTENCES` [mode] (or
appends it when a bank words it otherwise), and for ``img`` also drops the sentences about
the bird's-eye view (:data:`BEV_ONLY_SENTENCES`) and its goal marker.
"""

from __future__ import annotations

from dataclasses import replace

from socialbench.benchmarks.socialnav_sub.bank import PromptBank

__all__ = ["COMPOSITE_SENTENCE", "MODE_SENTENCES", "bank_for_images"]

#: The paper mode's layout sentence (the bundled bank's survey instructions).
COMPOSITE_SENTENCE = (
    "Each image shows the camera view on top and, below it, a bird's-eye view (BEV) of the same moment seen "
    "from above, with the robot's forward direction pointing up the page."
)
#: What each image shows, for the modes that send one view only.
MODE_SENTENCES = {
    "img": "Each image shows the robot's camera view only; no bird's-eye view is shown.",
    "bev": (
        "Each image shows only a bird's-eye view (BEV) of that moment seen from above, with the robot's forward "
        "direction pointing up the page; no camera view is shown."
    ),
}
#: Sentences about the bird's-eye view's marks, left out when no bird's-eye view is sent.
BEV_ONLY_SENTENCES = (
    " In the bird's-eye view the robot is marked R, the goal the robot is travelling to is marked G, and arrows "
    "show which way the robot and each person are heading.",
)
#: The goal block's reference to the bird's-eye view (removed for ``img``).
GOAL_IN_BEV = ", marked G in the bird's-eye view"
SURVEY = "survey_instructions"


def _without_bev(line: str) -> str:
    for sentence in (*BEV_ONLY_SENTENCES, GOAL_IN_BEV):
        line = line.replace(sentence, "")
    return line


def bank_for_images(bank: PromptBank, mode: str) -> PromptBank:
    """``bank`` with its description of the images fitted to ``--images mode`` (see the
    module docstring); ``bank`` itself for ``img-with-bev`` and for any mode not in
    :data:`MODE_SENTENCES`."""
    sentence = MODE_SENTENCES.get(mode)
    if sentence is None:
        return bank
    survey = bank.blocks.get(SURVEY, ())
    lines = [sentence if line == COMPOSITE_SENTENCE else line for line in survey]
    if COMPOSITE_SENTENCE not in survey:
        lines.append(sentence)
    blocks = {**bank.blocks, SURVEY: tuple(lines)}
    if mode == "img":
        blocks = {name: tuple(_without_bev(line) for line in text) for name, text in blocks.items()}
    return replace(bank, blocks=blocks)
