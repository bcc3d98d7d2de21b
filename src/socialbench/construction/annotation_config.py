"""Label Studio annotation kinds, their choices and their labeling configs (:func:`labeling_config`):
``verification``, ``judgment``, ``grounding``, ``topics`` and ``judgment-no-image`` (RobotEQ App.
B.2, App. D, App. E, Figure 6(a); what each asks: docs/build.md, sections 6, 8, 9a, 10 and 13)."""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import quoteattr

from socialbench.benchmarks.roboteq.schema import FACETS, LETTERS

__all__ = [
    "KINDS",
    "JUDGMENT_LABELS",
    "VERIFICATION_CHOICES",
    "GROUNDING_CHOICES",
    "NO_IMAGE_KIND",
    "NO_IMAGE_LABELS",
    "labeling_config",
]

NO_IMAGE_KIND = "judgment-no-image"
KINDS = ("verification", "judgment", "grounding", "topics", NO_IMAGE_KIND)
JUDGMENT_LABELS = ("proper", "improper", "invalid")
#: The choices of a without-image judgment (Figure 6(a) compares proper / improper labels).
NO_IMAGE_LABELS = ("proper", "improper")
VERIFICATION_CHOICES = ("original", "edited", "neither")
GROUNDING_CHOICES = (*LETTERS, "invalid")


def _choices(name: str, to: str, values: Sequence[str], multiple: bool, required: bool) -> str:
    attrs = f'name="{name}" toName="{to}" choice="{"multiple" if multiple else "single"}" showInline="true"'
    if required:
        attrs += ' required="true"'
    inner = "".join(f"<Choice value={quoteattr(v)}/>" for v in values)
    return f"  <Choices {attrs}>{inner}</Choices>"


def _bodies() -> dict[str, list[str]]:
    """The lines inside ``<View>`` of each kind's config."""
    return {
        "verification": [
            '  <Header value="$title"/>',
            '  <Text name="scenario" value="$scenario"/>',
            '  <View style="display: flex; gap: 12px;">',
            '    <View style="flex: 50%;"><Header value="Original" size="5"/><Image name="original" value="$original"/></View>',
            '    <View style="flex: 50%;"><Header value="Edited" size="5"/><Image name="edited" value="$edited"/></View>',
            "  </View>",
            '  <Header value="Which image best matches the scenario?" size="5"/>',
            _choices("choice", "scenario", VERIFICATION_CHOICES, False, True),
            '  <TextArea name="instructions" toName="scenario" rows="3" editable="true" maxSubmissions="1" '
            'placeholder="If neither matches: revision instructions"/>',
        ],
        "judgment": [
            '  <Image name="image" value="$image"/>',
            '  <Header value="$question"/>',
            '  <Text name="behavior" value="$behavior"/>',
            '  <Header value="Is this next action proper, improper, or invalid for the benchmark?" size="5"/>',
            _choices("label", "behavior", JUDGMENT_LABELS, False, True),
            '  <Header value="Facets (select all that apply)" size="5"/>',
            _choices("facets", "behavior", FACETS, True, False),
        ],
        "grounding": [
            '  <Image name="image" value="$image"/>',
            '  <Header value="$question"/>',
            '  <Text name="options" value="$options_text"/>',
            '  <Header value="Select every appropriate region (or invalid)" size="5"/>',
            _choices("regions", "image", GROUNDING_CHOICES, True, True),
        ],
        "topics": [
            '  <Image name="image" value="$image"/>',
            '  <Header value="Propose spatial grounding topics for this image, one per line: decisions a robot '
            "could make from what it sees (where to move, which person to approach, which object or region is "
            'socially appropriate to select)." size="5"/>',
            '  <TextArea name="topics" toName="image" rows="5" editable="true" maxSubmissions="1" required="true" '
            'placeholder="Where should the robot wait so it does not block the aisle?"/>',
        ],
        NO_IMAGE_KIND: [
            '  <Header value="$question"/>',
            '  <Text name="behavior" value="$behavior"/>',
            '  <Header value="No image is shown on purpose: judge from the text alone. Is this next action proper '
            'or improper?" size="5"/>',
            _choices("label", "behavior", NO_IMAGE_LABELS, False, True),
        ],
    }


def labeling_config(kind: str) -> str:
    """The Label Studio labeling config (XML) for ``kind``."""
    body = _bodies().get(kind)
    if body is None:
        raise ValueError(f"unknown annotation kind {kind!r}; use {', '.join(KINDS)}")
    return "\n".join(["<View>", *body, "</View>"])
