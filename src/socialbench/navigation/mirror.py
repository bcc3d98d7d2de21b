"""The left-right mirror image of a SocialNav-SUB scene (``--perturb mirror``).

A mirrored prompt image is drawn from the mirrored *scene* on flipped raw frames
(:func:`socialbench.navigation.render.render_scene`, ``mirror=True``), not by flipping the
rendered pixels, which would mirror every text drawn (person numbers, the BEV's axis
captions and ticks) so that it read backwards.

In the initial robot frame (x forward, y left) the mirror is the reflection ``y -> -y``:

* a person's position ``(x, y) -> (x, -y)``; ``pos_diff`` is unchanged (a reflection keeps
  lengths), so the same heading arrows are drawn, mirrored;
* a bounding box ``[x1, y1, x2, y2]`` in a ``W``-pixel-wide image
  ``-> [W - x2, y1, W - x1, y2]`` (the box of the flipped frame);
* the robot's ``(x, y, yaw, heading) -> (x, -y, -yaw, -heading)``;
* the goal ``(gx, gy) -> (gx, -gy)``.

Person numbers stay with their people (the questions name them), so in a mirrored scene
they run right to left.
"""

from __future__ import annotations

from dataclasses import replace

from socialbench.navigation.frames import Scene
from socialbench.navigation.tracks import BBox, Observation, PersonTrack, RobotPath

__all__ = ["mirror_bbox", "mirror_track", "mirror_robot", "mirror_scene"]


def mirror_bbox(bbox: BBox, width: float) -> BBox:
    """``[x1, y1, x2, y2] -> [W - x2, y1, W - x1, y2]`` for an image ``width`` pixels wide."""
    x1, y1, x2, y2 = bbox
    return (width - x2, y1, width - x1, y2)


def _mirror_observation(o: Observation, width: float) -> Observation:
    return replace(o, y=-o.y, bbox=None if o.bbox is None else mirror_bbox(o.bbox, width))


def mirror_track(track: PersonTrack, width: float) -> PersonTrack:
    """``track`` reflected across the robot's forward axis (``y -> -y``, boxes flipped in an
    image ``width`` pixels wide); timesteps and ``pos_diff`` unchanged."""
    return PersonTrack(track.track_id, tuple(_mirror_observation(o, width) for o in track.observations))


def mirror_robot(robot: RobotPath) -> RobotPath:
    """The robot path reflected: ``(x, y, yaw, heading) -> (x, -y, -yaw, -heading)``."""
    # plain negation (no re-wrapping) keeps every angle exactly the negative of the original
    return RobotPath(robot.x.copy(), -robot.y, -robot.yaw, -robot.heading)


def mirror_scene(scene: Scene, image_width: float) -> Scene:
    """``scene``'s mirror image (see the module docstring). ``image_width`` is the width in
    pixels of the image the bounding boxes refer to (the camera's native resolution).
    People keep their numbers; the frame paths are kept (the renderer flips the frames)."""
    goal = None if scene.goal_xy is None else (scene.goal_xy[0], -scene.goal_xy[1])
    people = {label: mirror_track(tr, image_width) for label, tr in scene.people.items()}
    return replace(scene, people=people, robot=mirror_robot(scene.robot), goal_xy=goal)
