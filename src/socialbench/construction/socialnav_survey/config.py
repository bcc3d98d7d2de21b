"""The Label Studio labeling config of a SocialNav-SUB survey (:func:`survey_config`).

One task is one scenario (Figure 7): the survey instructions, the ten composites in time
order (``$image_0`` .. ``$image_9``, the release's ``sample_with_bev_<i>.png``, the images
the models get), the questions about the robot and the goal, then a ``<Repeater>`` over
the task's ``people`` with each person's questions (order and control names:
:mod:`.order`). Every question is a ``<Text>`` holding its text (from the task data, so it
reads "person 3" exactly as the model's prompt does) and a required ``<Choices>`` with the
bank's options; the robot-direction question allows several choices ("Select all that
apply")."""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

from socialbench.benchmarks.socialnav_sub.bank import PromptBank
from socialbench.benchmarks.socialnav_sub.layout import N_FRAMES
from socialbench.construction.socialnav_survey.order import INDEX_FLAG, PERSON_KEYS, SCENE_KEYS, person_control

__all__ = ["survey_config", "text_name", "PEOPLE_FIELD"]

#: The task-data list the Repeater runs over.
PEOPLE_FIELD = "people"


def text_name(control: str) -> str:
    """Name of the ``<Text>`` a question's choices point at (``toName``)."""
    if control.endswith(f"__r{INDEX_FLAG}"):
        return control.removesuffix(f"__r{INDEX_FLAG}") + f"__text__r{INDEX_FLAG}"
    return f"{control}__text"


def _question(bank: PromptBank, base: str, control: str, value: str, indent: str) -> list[str]:
    q = bank.questions[base]
    to = text_name(control)
    choice = "multiple" if q.kind == "multi" else "single"
    options = "".join(f"<Choice value={quoteattr(o)}/>" for o in q.options)
    return [
        f"{indent}<Text name={quoteattr(to)} value={quoteattr(value)}/>",
        f'{indent}<Choices name={quoteattr(control)} toName={quoteattr(to)} choice="{choice}" showInline="true" '
        f'required="true">{options}</Choices>',
    ]


def _frames() -> list[str]:
    cells = []
    for t in range(N_FRAMES):
        when = " (beginning)" if t == 0 else " (end)" if t == N_FRAMES - 1 else ""
        cells.append(
            f'    <View><Header value="Image {t + 1}{when}" size="6"/><Image name="frame_{t}" value="$image_{t}"/></View>'
        )
    return [
        '  <Header value="The video, in time order: the first image is the beginning, the last image is the end" '
        'size="5"/>',
        '  <View style="display: grid; grid-template-columns: repeat(5, 1fr); gap: 8px;">',
        *cells,
        "  </View>",
    ]


def survey_config(bank: PromptBank) -> str:
    """The labeling config (XML) of a survey asking the questions of ``bank``."""
    lines = ["<View>", '  <Header value="$title"/>', '  <Text name="instructions" value="$instructions"/>', *_frames()]
    lines.append('  <Header value="The robot and its goal" size="4"/>')
    for base in SCENE_KEYS:
        lines += _question(bank, base, base, f"${base}", "  ")
    lines.append(f'  <Repeater on="${PEOPLE_FIELD}" indexFlag="{INDEX_FLAG}">')
    lines.append(f'    <Text name="person__r{INDEX_FLAG}" value="${PEOPLE_FIELD}[{INDEX_FLAG}].title"/>')
    for base in PERSON_KEYS:
        lines += _question(bank, base, person_control(base), f"${PEOPLE_FIELD}[{INDEX_FLAG}].{base}", "    ")
    lines += ["  </Repeater>", "</View>"]
    return "\n".join(lines)
