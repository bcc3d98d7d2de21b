"""Exact answers to the 15 SocialNav-SUB question types from ground-truth scene geometry.

A simulator has no human panel, so its labels are *definitions*: each question below is
answered by a written geometric rule on the true positions (not the noisy tracks). All
quantities are in the initial robot frame (x forward, y left, metres), sampled at the 10
frames (4 Hz). Thresholds live in :class:`AnswerThresholds`. The spatial, goal, distance and
direction rules are :mod:`socialbench.navigation.relations`, shared with the rule-based
baseline (which passes its own thresholds).

Notation
--------
* ``r_t``, ``psi_t``: robot position and yaw (camera direction) at timestep t.
  ``rel_t(q) = R(-psi_t)(q - r_t) = (f, l)``: point q relative to the robot at t (forward,
  left); bearing ``beta = atan2(l, f)``.
* ``p_t``: the person's true position; ``v_p(t)``, ``v_r(t)``: velocities by central
  differences over the frames (one-sided at the ends).
* ``b`` / ``e`` ("begin" / "end" of a person): the first / last timestep at which the person
  is labelled in the images (seen by the tracker), which is when the annotated images show
  them. Global questions use timesteps 0 and 9.
* Corridor ``C_t``: points within ``w`` = 0.8 m (robot half width 0.35 m + 0.45 m clearance)
  of the segment from ``r_t`` to the goal g, between the two (along-path coordinate in
  [0, |g - r_t|]).
* Closest approach (CPA) of two agents at relative position Δp and relative velocity Δv over
  a horizon H: ``tau* = clip(-Δp·Δv / |Δv|², 0, H)``, ``d_cpa = |Δp + Δv tau*|``.
  A *conflict* is ``d_cpa <= R_c`` = 1.2 m within H = 2 s (now, or soon if nobody changes
  course).
* A person *walks* when their speed is >= 0.3 m/s, else *stands*. Two directions are the
  *same* when they differ by <= 45°, *crossing* between 45° and 135°, *opposite* beyond.
* ``cruise``: the robot's cruise (nominal) speed, used for its future progress.

Definitions
-----------
==============================  ===========================================================
Question                        Answer
==============================  ===========================================================
robot_moving_direction (multi)  Δψ = psi_9 - psi_0, (φ, λ) = rel_0(r_9). "moving ahead" if
                                φ >= 0.3 m and |Δψ| < 45°. "turning left" if Δψ >= 10°, or
                                |Δψ| < 10° and λ >= 0.4 m; "turning right" mirrored. If
                                nothing holds (robot stood still): "moving ahead".
person_spatial_position_begin   rel_b(p_b): "behind" if |beta| > 135°; "ahead of" if f > 0
/ _end (at e)                   and (|beta| <= 25° or |l| <= 0.5 m); else "to the left of"
                                (l > 0) / "to the right of".
person_distance_change          d_b = |rel_b(p_b)|, d_e = |rel_e(p_e)|; band =
                                max(0.5 m, 0.1·d_b). "closer to" if d_e < d_b - band,
                                "further away from" if d_e > d_b + band, else "about the
                                same distance to".
goal_position_begin / _end      rel_t(g) at t = 0 / 9: "ahead" if f > 0 and (|beta| <= 20°
                                or |l| <= 0.5 m); else "to the left" if l >= 0, else "to
                                the right" (a goal behind counts to its side).
obstructing_path                "yes" iff p_t ∈ C_t for some frame t in [b, e] (the
                                person's path enters the robot's remaining corridor to the
                                goal while seen; at 4 Hz a walker moves < 0.4 m between
                                frames, so frames cannot skip the 1.6 m wide corridor).
obstructing_end_position        "yes" iff p_e ∈ C_e.
robot_affected                  "yes" iff at some frame t in [b, e] the person is in the
                                robot's front half (f > 0) and in conflict with it
                                (Δp = p_t - r_t, Δv = v_p(t) - v_r(t)).
robot_action                    not affected: "not considering". Else, from the first such
                                frame t*: the person walks in the same direction as the
                                robot's yaw -> "overtaking" if the robot's mean speed over
                                [t*, e] exceeds the person's by > 0.15 m/s, else
                                "following"; otherwise "yielding to" if the robot's speed
                                drops to <= 50 % of cruise in [t*, e]; otherwise
                                "avoiding".
person_affected                 "yes" iff at some frame t in [b, e] they are in conflict and
                                the person stands or has the robot in their front half
                                ((r_t - p_t)·v_p(t) > 0).
person_action                   not affected: "not considering". Else, from the first such
                                frame t*: stands throughout [t*, e] -> "yielding to"; walks
                                in the same direction as the robot with the robot ahead ->
                                "overtaking" if faster than the robot by > 0.15 m/s, else
                                "following"; speed drops to <= 50 % of their speed at b ->
                                "yielding to"; otherwise "avoiding".
robot_suggested_affected        Future from the end state: the robot heads for the goal at
                                cruise speed (u = cruise·ĝ, ĝ = unit(g - r_e)), the person
                                keeps v_p(e). "yes" iff the person is ahead on the way
                                ((p_e - r_e)·ĝ > 0) and in conflict within H_f = min(4 s,
                                time to reach the goal). "no" once the robot is at the goal
                                (< 0.4 m).
robot_suggested_action          not suggested-affected: "not consider". Standing person:
                                "avoid". Walking same way as ĝ: "follow" if their speed >=
                                cruise - 0.15 m/s, else "overtake". Crossing and the person
                                reaches the robot's line first (*person first*, below):
                                "yield to". Otherwise "avoid".
human_future_action_prediction  Future conflict as above, seen by the person: conflict and
                                (person stands or the robot is in their front half), else
                                "not consider". Standing: "yield to". Same direction as ĝ
                                with the robot ahead: "overtake" if faster than cruise +
                                0.15 m/s, else "follow". Crossing and the robot reaches the
                                crossing point first (*robot first*, below): "yield to".
                                Otherwise "avoid" (also when the person walks away from
                                the robot's line or the crossing point is behind the robot).
==============================  ===========================================================

Crossing point (both future actions): a walking person in a *crossing* relation who moves
towards the robot's line (the line through ``r_e`` along ĝ) reaches it after
``t_p = |offset| / |v_across|``, at along-line distance ``s = (p_e - r_e)·ĝ +
(v_p(e)·ĝ) t_p`` from the robot, which gets there after ``t_r = s / cruise``. Only a
crossing point ahead of the robot (``s > 0``) counts: *person first* iff ``t_p <= t_r``,
*robot first* iff ``t_r < t_p``. A person on the line or moving away from it, or a
crossing point at or behind the robot, is neither.

Synthetic annotator panel
-------------------------
:func:`annotator_votes` simulates ``n`` *synthetic* annotators: each re-answers with every
threshold scaled by an independent factor in [1 - jitter, 1 + jitter] and with the people and
the goal displaced (a constant offset per person with standard deviation ``position_noise_m``
plus 3 cm per frame). It exists to exercise agreement metrics on multi-vote
distributions; it is not a model of human judgement.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace

import numpy as np

from socialbench.navigation import relations
from socialbench.navigation.relations import relative
from socialbench.navigation.tracks import FRAME_DT, RobotPath
from socialbench.types import Answer, Question


@dataclass(frozen=True)
class AnswerThresholds:
    """Every number the definitions use (see the module docstring)."""

    ahead_half_angle_deg: float = 25.0
    ahead_lateral_m: float = 0.5
    behind_angle_deg: float = 135.0
    goal_ahead_half_angle_deg: float = 20.0
    distance_band_m: float = 0.5
    distance_band_frac: float = 0.1
    moving_min_m: float = 0.3
    turn_deg: float = 10.0
    lateral_turn_m: float = 0.4
    sharp_turn_deg: float = 45.0
    corridor_half_width_m: float = 0.8
    conflict_distance_m: float = 1.2
    conflict_horizon_s: float = 2.0
    future_horizon_s: float = 4.0
    walking_speed_mps: float = 0.3
    same_direction_deg: float = 45.0
    opposite_direction_deg: float = 135.0
    speed_margin_mps: float = 0.15
    slow_fraction: float = 0.5
    goal_reached_m: float = 0.4


@dataclass(frozen=True, eq=False)
class PersonTruth:
    """True positions of one person at every frame, and the frames where it is labelled."""

    xy: np.ndarray  # (T, 2)
    seen: tuple[int, ...]

    def __post_init__(self) -> None:
        xy = np.asarray(self.xy, dtype=float).reshape(-1, 2)
        seen = tuple(sorted(int(t) for t in self.seen))
        if not seen:
            raise ValueError("PersonTruth: a labelled person needs at least one seen timestep")
        if seen[0] < 0 or seen[-1] >= len(xy):
            raise ValueError(f"PersonTruth: seen timesteps {seen} outside 0..{len(xy) - 1}")
        object.__setattr__(self, "xy", xy)
        object.__setattr__(self, "seen", seen)

    @property
    def begin(self) -> int:
        return self.seen[0]

    @property
    def end(self) -> int:
        return self.seen[-1]

    def velocities(self) -> np.ndarray:
        return _velocities(self.xy)


@dataclass(frozen=True, eq=False)
class SceneTruth:
    """Ground truth of one sample: robot path, goal and labelled people."""

    robot: RobotPath
    goal_xy: tuple[float, float]
    people: Mapping[int, PersonTruth]
    cruise_speed: float = 1.0


# --------------------------------------------------------------------------- geometry


def _velocities(xy: np.ndarray) -> np.ndarray:
    xy = np.asarray(xy, dtype=float)
    if len(xy) < 2:
        return np.zeros_like(xy)
    return np.gradient(xy, FRAME_DT, axis=0)


def angle_between(a: Sequence[float], b: Sequence[float]) -> float:
    """Unsigned angle between two vectors in degrees (0 if either is zero)."""
    na, nb = math.hypot(a[0], a[1]), math.hypot(b[0], b[1])
    if na == 0.0 or nb == 0.0:
        return 0.0
    c = (a[0] * b[0] + a[1] * b[1]) / (na * nb)
    return math.degrees(math.acos(max(-1.0, min(1.0, c))))


def closest_approach(dp: Sequence[float], dv: Sequence[float], horizon: float) -> tuple[float, float]:
    """(tau*, d_cpa) of two agents at relative position ``dp`` and velocity ``dv``."""
    dvv = dv[0] * dv[0] + dv[1] * dv[1]
    tau = 0.0 if dvv == 0.0 else min(horizon, max(0.0, -(dp[0] * dv[0] + dp[1] * dv[1]) / dvv))
    return tau, math.hypot(dp[0] + dv[0] * tau, dp[1] + dv[1] * tau)


def in_corridor(point: Sequence[float], start: Sequence[float], goal: Sequence[float], half_width: float) -> bool:
    """Whether ``point`` lies in the corridor of ``half_width`` from ``start`` to ``goal``."""
    ax, ay = float(start[0]), float(start[1])
    gx, gy = float(goal[0]) - ax, float(goal[1]) - ay
    length = math.hypot(gx, gy)
    if length == 0.0:
        return False
    ux, uy = gx / length, gy / length
    px, py = float(point[0]) - ax, float(point[1]) - ay
    along = px * ux + py * uy
    across = -px * uy + py * ux
    return 0.0 <= along <= length and abs(across) <= half_width


# --------------------------------------------------------------------------- spatial


def spatial_position(forward: float, left: float, th: AnswerThresholds = AnswerThresholds()) -> str:
    """Person sector for a position (``forward``, ``left``) relative to the robot."""
    return relations.person_sector(
        forward,
        left,
        ahead_half_angle_deg=th.ahead_half_angle_deg,
        ahead_lateral_m=th.ahead_lateral_m,
        behind_angle_deg=th.behind_angle_deg,
    )


def goal_position(forward: float, left: float, th: AnswerThresholds = AnswerThresholds()) -> str:
    """Goal sector (no "behind": a goal behind counts to its side); the goal's own half angle."""
    return relations.goal_sector(
        forward, left, ahead_half_angle_deg=th.goal_ahead_half_angle_deg, ahead_lateral_m=th.ahead_lateral_m
    )


def distance_change(d_begin: float, d_end: float, th: AnswerThresholds = AnswerThresholds()) -> str:
    """Distance option for a person ``d_begin`` / ``d_end`` metres from the robot at b / e."""
    return relations.distance_change(d_begin, d_end, band_m=th.distance_band_m, band_frac=th.distance_band_frac)


def robot_moving_direction(robot: RobotPath, th: AnswerThresholds = AnswerThresholds()) -> tuple[str, ...]:
    """Selected options of the multiple-select direction question, in option order (the
    true path has no drift, so lateral motion counts whether or not the robot moved)."""
    return relations.robot_direction(
        robot,
        moving_min_m=th.moving_min_m,
        turn_deg=th.turn_deg,
        sharp_turn_deg=th.sharp_turn_deg,
        lateral_m=th.lateral_turn_m,
        lateral_needs_motion=False,
    )


def obstructs_path(
    person: PersonTruth, robot: RobotPath, goal: Sequence[float], th: AnswerThresholds = AnswerThresholds()
) -> bool:
    last = len(robot) - 1
    for t in range(person.begin, person.end + 1):
        r = (robot.x[min(t, last)], robot.y[min(t, last)])
        if in_corridor(person.xy[t], r, goal, th.corridor_half_width_m):
            return True
    return False


def obstructs_end(
    person: PersonTruth, robot: RobotPath, goal: Sequence[float], th: AnswerThresholds = AnswerThresholds()
) -> bool:
    t = min(person.end, len(robot) - 1)
    return in_corridor(person.xy[person.end], (robot.x[t], robot.y[t]), goal, th.corridor_half_width_m)


# --------------------------------------------------------------------------- social


@dataclass(frozen=True)
class _Motion:
    """Per-frame kinematics of one robot-person pair."""

    p: np.ndarray
    vp: np.ndarray
    r: np.ndarray
    vr: np.ndarray
    yaw: np.ndarray


def _motion(person: PersonTruth, robot: RobotPath) -> _Motion:
    n = min(len(person.xy), len(robot))
    r = robot.xy()[:n]
    return _Motion(person.xy[:n], person.velocities()[:n], r, _velocities(r), robot.yaw[:n])


def _speed(v: np.ndarray) -> np.ndarray:
    return np.hypot(v[..., 0], v[..., 1])


def _conflict(m: _Motion, t: int, th: AnswerThresholds) -> bool:
    dp = m.p[t] - m.r[t]
    dv = m.vp[t] - m.vr[t]
    return closest_approach(dp, dv, th.conflict_horizon_s)[1] <= th.conflict_distance_m


def _robot_side(m: _Motion, t: int) -> bool:
    """The person is in the robot's front half at t."""
    d = m.p[t] - m.r[t]
    return d[0] * math.cos(m.yaw[t]) + d[1] * math.sin(m.yaw[t]) > 0.0


def _person_side(m: _Motion, t: int, th: AnswerThresholds) -> bool:
    """The person stands, or has the robot in their front half, at t."""
    if _speed(m.vp[t]) < th.walking_speed_mps:
        return True
    return float((m.r[t] - m.p[t]) @ m.vp[t]) > 0.0


def robot_action(
    person: PersonTruth, robot: RobotPath, cruise: float, th: AnswerThresholds = AnswerThresholds()
) -> tuple[bool, str]:
    """(robot affected, robot action)."""
    m = _motion(person, robot)
    span = range(person.begin, min(person.end, len(m.r) - 1) + 1)
    first = next((t for t in span if _robot_side(m, t) and _conflict(m, t, th)), None)
    if first is None:
        return False, "not considering"
    e = min(person.end, len(m.r) - 1)
    sp, sr = _speed(m.vp[first : e + 1]), _speed(m.vr[first : e + 1])
    heading = (math.cos(m.yaw[first]), math.sin(m.yaw[first]))
    if sp[0] >= th.walking_speed_mps and angle_between(m.vp[first], heading) <= th.same_direction_deg:
        return True, "overtaking" if sr.mean() > sp.mean() + th.speed_margin_mps else "following"
    if sr.min() <= th.slow_fraction * cruise:
        return True, "yielding to"
    return True, "avoiding"


def person_action(person: PersonTruth, robot: RobotPath, th: AnswerThresholds = AnswerThresholds()) -> tuple[bool, str]:
    """(person affected, person action)."""
    m = _motion(person, robot)
    span = range(person.begin, min(person.end, len(m.r) - 1) + 1)
    first = next((t for t in span if _person_side(m, t, th) and _conflict(m, t, th)), None)
    if first is None:
        return False, "not considering"
    e = min(person.end, len(m.r) - 1)
    sp, sr = _speed(m.vp[first : e + 1]), _speed(m.vr[first : e + 1])
    if sp.max() < th.walking_speed_mps:
        return True, "yielding to"
    robot_ahead = float((m.r[first] - m.p[first]) @ m.vp[first]) > 0.0
    if (
        sr[0] >= th.walking_speed_mps
        and sp[0] >= th.walking_speed_mps
        and robot_ahead
        and angle_between(m.vp[first], m.vr[first]) <= th.same_direction_deg
    ):
        return True, "overtaking" if sp.mean() > sr.mean() + th.speed_margin_mps else "following"
    speed_before = float(_speed(m.vp[person.begin]))
    if speed_before >= th.walking_speed_mps and sp.min() <= th.slow_fraction * speed_before:
        return True, "yielding to"
    return True, "avoiding"


@dataclass(frozen=True)
class _Future:
    conflict: bool
    person_side: bool
    standing: bool
    relation: str  # "same", "crossing", "opposite"
    person_first: bool  # crossing ahead of the robot: the person reaches the robot's line first
    robot_first: bool  # crossing ahead of the robot: the robot reaches the crossing point first
    person_speed: float


def _future(
    person: PersonTruth, robot: RobotPath, goal: Sequence[float], cruise: float, th: AnswerThresholds
) -> _Future | None:
    """The end state extrapolated (see the module docstring); None if at the goal."""
    e = min(person.end, len(robot) - 1)
    r = np.array([robot.x[e], robot.y[e]])
    to_goal = np.asarray(goal, dtype=float) - r
    dist = float(np.hypot(*to_goal))
    if dist < th.goal_reached_m:
        return None
    g = to_goal / dist
    u = cruise * g
    p = person.xy[person.end]
    vp = person.velocities()[person.end]
    speed = float(np.hypot(*vp))
    standing = speed < th.walking_speed_mps
    dp = p - r
    horizon = min(th.future_horizon_s, dist / max(cruise, 1e-9))
    _, d = closest_approach(dp, vp - u, horizon)
    conflict = float(dp @ g) > 0.0 and d <= th.conflict_distance_m
    person_side = standing or float((r - p) @ vp) > 0.0
    ang = angle_between(vp, g) if not standing else 0.0
    relation = (
        "same" if ang <= th.same_direction_deg else ("opposite" if ang >= th.opposite_direction_deg else "crossing")
    )
    person_first = robot_first = False
    if relation == "crossing" and not standing:
        across = float(-dp[0] * g[1] + dp[1] * g[0])  # person's offset from the robot's line
        v_across = float(-vp[0] * g[1] + vp[1] * g[0])
        if across * v_across < 0.0:  # moving towards the line
            t_p = abs(across) / abs(v_across)
            s_cross = float(dp @ g) + float(vp @ g) * t_p
            if s_cross > 0.0:  # the crossing point is ahead of the robot
                t_r = s_cross / max(cruise, 1e-9)
                person_first = t_p <= t_r
                robot_first = t_r < t_p
    return _Future(conflict, person_side, standing, relation, person_first, robot_first, speed)


def future_answers(
    person: PersonTruth,
    robot: RobotPath,
    goal: Sequence[float],
    cruise: float,
    th: AnswerThresholds = AnswerThresholds(),
) -> tuple[str, str, str]:
    """(robot_suggested_affected, robot_suggested_action, human_future_action_prediction)."""
    f = _future(person, robot, goal, cruise, th)
    if f is None or not f.conflict:
        return "no", "not consider", "not consider"
    if f.standing:
        suggested = "avoid"
    elif f.relation == "same":
        suggested = "follow" if f.person_speed >= cruise - th.speed_margin_mps else "overtake"
    elif f.relation == "crossing" and f.person_first:
        suggested = "yield to"
    else:
        suggested = "avoid"
    if not f.person_side:
        human = "not consider"
    elif f.standing:
        human = "yield to"
    elif f.relation == "same":
        human = "overtake" if f.person_speed > cruise + th.speed_margin_mps else "follow"
    elif f.relation == "crossing" and f.robot_first:
        human = "yield to"
    else:
        human = "avoid"
    return "yes", suggested, human


# --------------------------------------------------------------------------- all answers


def person_answers(
    person: PersonTruth,
    robot: RobotPath,
    goal: Sequence[float],
    cruise: float,
    th: AnswerThresholds = AnswerThresholds(),
) -> dict[str, Answer]:
    """The 12 per-person answers, keyed by base question key."""
    last = len(robot) - 1
    b, e = person.begin, person.end
    rb = relative(person.xy[b], robot, min(b, last))
    re_ = relative(person.xy[e], robot, min(e, last))
    yn = lambda v: "yes" if v else "no"  # noqa: E731
    r_aff, r_act = robot_action(person, robot, cruise, th)
    p_aff, p_act = person_action(person, robot, th)
    s_aff, s_act, h_act = future_answers(person, robot, goal, cruise, th)
    return {
        "q_person_spatial_position_begin": spatial_position(*rb, th),
        "q_person_spatial_position_end": spatial_position(*re_, th),
        "q_person_distance_change": distance_change(math.hypot(*rb), math.hypot(*re_), th),
        "q_obstructing_path": yn(obstructs_path(person, robot, goal, th)),
        "q_obstructing_end_position": yn(obstructs_end(person, robot, goal, th)),
        "q_robot_affected": yn(r_aff),
        "q_robot_action": r_act,
        "q_person_affected": yn(p_aff),
        "q_person_action": p_act,
        "q_robot_suggested_affected": s_aff,
        "q_robot_suggested_action": s_act,
        "q_human_future_action_prediction": h_act,
    }


def answer_scene(truth: SceneTruth, th: AnswerThresholds = AnswerThresholds()) -> dict[str, Answer]:
    """Every question of a sample: ``{full question key: answer}`` (the multiple-select
    answer as a tuple in option order)."""
    robot, goal = truth.robot, truth.goal_xy
    last = len(robot) - 1
    out: dict[str, Answer] = {
        "q_robot_moving_direction": robot_moving_direction(robot, th),
        "q_goal_position_begin": goal_position(*relative(goal, robot, 0), th),
        "q_goal_position_end": goal_position(*relative(goal, robot, last), th),
    }
    for label in sorted(truth.people):
        for base, ans in person_answers(truth.people[label], robot, goal, truth.cruise_speed, th).items():
            out[f"{base}_p{label}"] = ans
    return out


# --------------------------------------------------------------------------- votes


def jitter_thresholds(th: AnswerThresholds, rng: np.random.Generator, jitter: float) -> AnswerThresholds:
    """``th`` with every value scaled by an independent factor in [1 - jitter, 1 + jitter]."""
    return replace(th, **{f.name: getattr(th, f.name) * float(rng.uniform(1 - jitter, 1 + jitter)) for f in fields(th)})


def perturb_truth(
    truth: SceneTruth, rng: np.random.Generator, position_noise_m: float, frame_noise_m: float = 0.03
) -> SceneTruth:
    """People and goal displaced as one synthetic annotator perceives them."""
    people = {}
    for label in sorted(truth.people):
        pt = truth.people[label]
        offset = rng.normal(0.0, position_noise_m, size=2)
        xy = pt.xy + offset + rng.normal(0.0, frame_noise_m, size=pt.xy.shape)
        people[label] = PersonTruth(xy, pt.seen)
    g = np.asarray(truth.goal_xy) + rng.normal(0.0, position_noise_m, size=2)
    return replace(truth, people=people, goal_xy=(float(g[0]), float(g[1])))


def annotator_votes(
    truth: SceneTruth,
    n: int,
    rng: np.random.Generator,
    *,
    position_noise_m: float = 0.25,
    jitter: float = 0.25,
    th: AnswerThresholds = AnswerThresholds(),
) -> dict[str, list[Answer]]:
    """Answers of ``n`` synthetic annotators per question key (see the module docstring)."""
    if n < 1:
        raise ValueError(f"annotator_votes: n must be >= 1, got {n}")
    out: dict[str, list[Answer]] = {}
    for _ in range(n):
        answers = answer_scene(perturb_truth(truth, rng, position_noise_m), jitter_thresholds(th, rng, jitter))
        for k, a in answers.items():
            out.setdefault(k, []).append(a)
    return out


def vote_distribution(question: Question, votes: Sequence[Answer]) -> tuple[list[Answer], list[float], int]:
    """(answers by decreasing count then option order, count/n each, n) of ``votes``."""
    counts = Counter(votes)
    choices = list(question.choices)
    unknown = [a for a in counts if a not in choices]
    if unknown:
        raise ValueError(f"{question.key}: answers {unknown} are not choices of the question")
    order = sorted(counts, key=lambda a: (-counts[a], choices.index(a)))
    n = len(votes)
    return order, [counts[a] / n for a in order], n


__all__ = [
    "AnswerThresholds",
    "PersonTruth",
    "SceneTruth",
    "angle_between",
    "closest_approach",
    "in_corridor",
    "spatial_position",
    "goal_position",
    "distance_change",
    "robot_moving_direction",
    "obstructs_path",
    "obstructs_end",
    "robot_action",
    "person_action",
    "future_answers",
    "person_answers",
    "answer_scene",
    "jitter_thresholds",
    "perturb_truth",
    "annotator_votes",
    "vote_distribution",
]
