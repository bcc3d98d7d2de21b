"""The BEV renderer draws what a full matplotlib redraw of the same artists draws.

The renderer keeps the axes as a cached background and draws markers, numbers and arrows
with the Agg calls their artists make (see ``socialbench.navigation.bev_stage``). The
reference here is the straightforward way: a fresh figure holding every artist, drawn with
``canvas.draw()``. Both run on the same matplotlib, so they must agree to the pixel, give or
take rounding: a wrong z-order, colour, size, position, clip or font shows up as hundreds of
pixels off by far more than a few levels.
"""

import math
import threading
from collections.abc import Mapping, Sequence

import matplotlib
import numpy as np
import pytest
from PIL import Image

from socialbench.navigation.bev import BevLimits, BevPerson, BevRenderer, BevStyle
from socialbench.navigation.colors import label_color, label_colors

SENT_SIZE = BevStyle(dpi=492 / 7)  # the BEV of a 768-px composite
GOAL = (9.0, 1.5)
ROBOT = (0.5, 0.0, 0.1)
# walkers (arrows) and standers; 3 and 4 overlap (a number must stay above both markers);
# 12 is a 2-digit label; 7 sits on the axes' edge (clipped)
PEOPLE = {
    1: BevPerson(3.0, 1.0, 0.5),
    2: BevPerson(6.0, -2.0, None),
    3: BevPerson(4.0, 3.0, -2.0),
    4: BevPerson(4.1, 3.1, 2.5),
    7: BevPerson(9.9, -4.9, 1.0),
    12: BevPerson(7.5, 0.5, math.pi),
}
WAYPOINTS = [(5.0, -1.0, "A"), (2.0, 2.0, "B")]


def _reference(
    limits: BevLimits,
    goal: tuple[float, float] | None,
    n_labels: int,
    style: BevStyle,
    people: Mapping[int, BevPerson],
    robot: tuple[float, float, float] | None,
    labels: Sequence[tuple[float, float, str]] = (),
) -> np.ndarray:
    """A fresh figure with every artist, drawn in full (matplotlib defaults, DejaVu Sans)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.rc_context():
        matplotlib.rcdefaults()
        matplotlib.rcParams.update({"font.family": "DejaVu Sans", "font.sans-serif": ["DejaVu Sans"]})
        fig = Figure(figsize=(style.size_in, style.size_in), dpi=style.dpi)
        canvas = FigureCanvasAgg(fig)
        ax = fig.add_subplot(1, 1, 1)
        ax.set_xlim(limits.y_max, limits.y_min)
        ax.set_ylim(limits.x_min, limits.x_max)
        ax.set_aspect("equal", adjustable="box")
        ax.set_xlabel("y (m, left +)")
        ax.set_ylabel("x (m, forward)")
        ax.grid(True, linewidth=0.5, alpha=0.4)

        def marker(x: float, y: float, color: object, text: str, z: float) -> None:
            ax.plot([y], [x], marker="o", markersize=style.markersize, color=color, linestyle="none", zorder=z)
            ax.text(
                y,
                x,
                text,
                ha="center",
                va="center",
                color="white",
                fontsize=style.fontsize,
                fontweight="bold",
                zorder=z + 0.5,
            )

        def arrow(x: float, y: float, h: float, color: object, z: float) -> None:
            L = style.arrow_length
            dx, dy = L * math.sin(h), L * math.cos(h)
            ax.arrow(y, x, dx, dy, width=style.arrow_width, color=color, length_includes_head=True, zorder=z)

        if goal is not None:
            marker(goal[0], goal[1], "black", "G", 3.0)
        if robot is not None:
            arrow(robot[0], robot[1], robot[2], "black", 4.0)
            marker(robot[0], robot[1], "black", "R", 4.1)
        colors = label_colors(max(n_labels, max(people, default=0)))
        for label in sorted(people):
            p = people[label]
            c = tuple(v / 255.0 for v in label_color(colors, label))
            if p.heading is not None:
                arrow(p.x, p.y, p.heading, c, 5.0 + label * 0.01)
            marker(p.x, p.y, c, str(label), 5.0 + label * 0.01 + 0.001)
        for x, y, text in labels:
            marker(x, y, "#6a1b9a", text, 6.0)
        canvas.draw()
        return np.asarray(canvas.buffer_rgba())[:, :, :3].copy()


def _assert_same_look(ours: Image.Image, reference: np.ndarray) -> None:
    px = np.asarray(ours)
    assert px.shape == reference.shape
    diff = np.abs(px.astype(int) - reference.astype(int)).max(axis=-1)
    assert diff.mean() < 0.05
    assert (diff > 2).sum() <= 20, f"{(diff > 2).sum()} pixels differ by more than 2 levels (max {diff.max()})"


@pytest.mark.parametrize("style", [SENT_SIZE, BevStyle(dpi=100)], ids=["sent-size", "100dpi"])
def test_bev_matches_a_full_redraw_of_the_same_artists(style: BevStyle) -> None:
    limits = BevLimits(0.0, 10.0, -5.0, 5.0)
    ours = BevRenderer(limits, GOAL, 12, style).render(PEOPLE, ROBOT, WAYPOINTS)
    _assert_same_look(ours, _reference(limits, GOAL, 12, style, PEOPLE, ROBOT, WAYPOINTS))


def test_300_dpi_bev_matches_a_full_redraw() -> None:
    style, limits = BevStyle(dpi=300), BevLimits(-0.5, 12.5, -6.0, 5.0)
    ours = BevRenderer(limits, GOAL, 12, style).render(PEOPLE, ROBOT)
    _assert_same_look(ours, _reference(limits, GOAL, 12, style, PEOPLE, ROBOT))


def test_each_timestep_matches_a_full_redraw_of_its_own_artists() -> None:
    limits = BevLimits(-0.5, 11.0, -5.0, 6.0)
    renderer = BevRenderer(limits, None, 12, SENT_SIZE)
    renderer.render(PEOPLE, ROBOT)
    moved = {label: BevPerson(p.x + 0.7, p.y - 0.4, None) for label, p in PEOPLE.items() if label != 3}
    ours = renderer.render(moved, (1.0, 0.2, -0.3))
    _assert_same_look(ours, _reference(limits, None, 12, SENT_SIZE, moved, (1.0, 0.2, -0.3)))


def test_renderers_at_other_limits_in_between_do_not_change_a_bev() -> None:
    a_limits, b_limits = BevLimits(0.0, 10.0, -5.0, 5.0), BevLimits(-2.0, 16.0, -8.0, 5.0)
    a = BevRenderer(a_limits, GOAL, 12, SENT_SIZE)
    b = BevRenderer(b_limits, (15.0, -7.0), 3, SENT_SIZE)
    b.render({1: BevPerson(12.0, -6.0, 0.2)}, ROBOT)
    _assert_same_look(a.render(PEOPLE, ROBOT), _reference(a_limits, GOAL, 12, SENT_SIZE, PEOPLE, ROBOT))


def test_labels_beyond_n_labels_get_colours_from_the_largest_label() -> None:
    people = {1: BevPerson(3.0, 1.0, None), 5: BevPerson(6.0, -2.0, 0.3)}
    ours = BevRenderer(BevLimits(), None, 2, SENT_SIZE).render(people, None)
    _assert_same_look(ours, _reference(BevLimits(), None, 5, SENT_SIZE, people, None))


def test_people_at_non_finite_positions_are_left_out() -> None:
    people = {1: BevPerson(3.0, 1.0, 0.5), 2: BevPerson(float("nan"), 0.0, 0.2)}
    ours = BevRenderer(BevLimits(), GOAL, 2, SENT_SIZE).render(people, ROBOT)
    _assert_same_look(ours, _reference(BevLimits(), GOAL, 2, SENT_SIZE, {1: people[1]}, ROBOT))


def test_a_user_rc_setting_changes_neither_the_bev_nor_stays_changed() -> None:
    limits = BevLimits(0.0, 10.0, -5.0, 5.0)
    plain = np.asarray(BevRenderer(limits, GOAL, 12, SENT_SIZE).render(PEOPLE, ROBOT))
    with matplotlib.rc_context({"font.family": "serif", "lines.markeredgewidth": 3.0, "axes.grid": False}):
        styled = np.asarray(BevRenderer(limits, GOAL, 12, SENT_SIZE).render(PEOPLE, ROBOT))
        assert matplotlib.rcParams["font.family"] == ["serif"]
        assert matplotlib.rcParams["lines.markeredgewidth"] == 3.0
    assert np.array_equal(plain, styled)


def test_threads_rendering_at_once_each_get_their_own_bev() -> None:
    scenes = [
        (BevLimits(0.0, 10.0 + i, -5.0 - i, 5.0), {1: BevPerson(2.0 + i, 1.0, 0.3 * i), 2: BevPerson(5.0, -i, None)})
        for i in range(4)
    ]
    expected = [np.asarray(BevRenderer(lim, GOAL, 2, SENT_SIZE).render(p, ROBOT)) for lim, p in scenes]
    results: dict[int, list[np.ndarray]] = {}

    def work(i: int) -> None:
        lim, people = scenes[i]
        renderer = BevRenderer(lim, GOAL, 2, SENT_SIZE)
        results[i] = [np.asarray(renderer.render(people, ROBOT)) for _ in range(5)]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(scenes))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, exp in enumerate(expected):
        assert all(np.array_equal(img, exp) for img in results[i]), i


def test_to_pixel_puts_forward_up_and_left_on_the_left() -> None:
    renderer = BevRenderer(BevLimits(), None, 0, SENT_SIZE)
    near_col, near_row = renderer.to_pixel(1.0, 0.0)
    far_col, far_row = renderer.to_pixel(9.0, 0.0)
    left_col, _ = renderer.to_pixel(5.0, 4.0)
    assert far_row < near_row and near_col == pytest.approx(far_col)
    assert left_col < near_col
