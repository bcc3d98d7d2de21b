"""ROS 1 bags, ROS 2 bags (sqlite3 or MCAP storage) and bare MCAP files, without ROS.

Both directions go through ``rosbags`` (the ``record`` extra, imported lazily):
:func:`read_ros_recording` reads any of the three into a :class:`~.clip.Recording` (topics
found by message type when there is exactly one of a type, else named), and
:class:`RosRecordingWriter` writes them with the library's own writers (the simulator's
``sim recording`` and the tests use it). Header stamps are the times (docs/recording.md).
"""

from __future__ import annotations

import io
import math
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from socialbench.errors import DataError, UsageError
from socialbench.files.safe_read import file_kind
from socialbench.recording.camera import CameraModel, matrix_quaternion, quaternion_matrix
from socialbench.recording.clip import Recording, check_increasing, yaw_of

__all__ = ["IMAGE_TYPES", "RosRecordingWriter", "read_ros_recording", "FORMATS"]

IMAGE_TYPES = ("sensor_msgs/msg/Image", "sensor_msgs/msg/CompressedImage")
ODOM_TYPE = "nav_msgs/msg/Odometry"
INFO_TYPE = "sensor_msgs/msg/CameraInfo"
TF_TYPE = "tf2_msgs/msg/TFMessage"
#: What :class:`RosRecordingWriter` writes: a ROS 1 bag, a ROS 2 bag folder (sqlite3 or MCAP
#: storage) or a single MCAP file (a ROS 2 MCAP bag's data file, ROS 2 message types).
FORMATS = ("ros1", "ros2-sqlite3", "ros2-mcap", "mcap")


def _rosbags() -> Any:
    try:
        import rosbags.highlevel  # noqa: F401
        import rosbags.rosbag1  # noqa: F401
        import rosbags.rosbag2  # noqa: F401
        import rosbags.typesys  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the environment
        raise UsageError("reading or writing ROS recordings needs rosbags: pip install 'socialbench[record]'") from None
    import rosbags

    return rosbags


def _stamp(header: Any) -> float:
    return float(header.stamp.sec) + 1e-9 * float(header.stamp.nanosec)


# ----------------------------------------------------------------------------- reading


def _pick(conns: Sequence[Any], types: Sequence[str], named: str | None, src: str, role: str, flag: str) -> Any:
    if named is not None:
        hits = [c for c in conns if c.topic == named]
        if not hits:
            raise DataError.single(
                src,
                named,
                f"topic {named} not in the recording (topics: {', '.join(sorted({c.topic for c in conns}))})",
                f"name an existing {role} topic with {flag}",
            )
        if hits[0].msgtype not in types:
            raise DataError.single(
                src, named, f"topic {named} is {hits[0].msgtype}, not {' or '.join(types)}", f"name the {role} topic"
            )
        return hits[0]
    hits = [c for c in conns if c.msgtype in types]
    topics = sorted({c.topic for c in hits})
    if not topics:
        raise DataError.single(
            src,
            role,
            f"no {' or '.join(types)} topic in the recording (topics: {', '.join(sorted({c.topic for c in conns})) or 'none'})",
            f"record the {role} topic, or name it with {flag}",
        )
    if len(topics) > 1:
        raise DataError.single(
            src, role, f"{len(topics)} {role} topics ({', '.join(topics)}): which one?", f"name one with {flag}"
        )
    return next(c for c in hits if c.topic == topics[0])


def _decode(msg: Any, msgtype: str) -> Any:
    from PIL import Image

    if msgtype.endswith("CompressedImage"):
        img = Image.open(io.BytesIO(bytes(msg.data)))
        img.load()
        return img.convert("RGB")
    enc = str(msg.encoding).lower()
    h, w, step = int(msg.height), int(msg.width), int(msg.step)
    chans = {"rgb8": 3, "bgr8": 3, "mono8": 1, "rgba8": 4, "bgra8": 4}.get(enc)
    if chans is None:
        raise DataError.single(
            "<image>",
            "encoding",
            f"image encoding {enc!r} not supported",
            "publish rgb8, bgr8, mono8, rgba8 or bgra8, or CompressedImage",
        )
    arr = np.frombuffer(bytes(msg.data), dtype=np.uint8).reshape(h, step)[:, : w * chans].reshape(h, w, chans)
    if enc.startswith("bgr"):
        arr = arr[:, :, [2, 1, 0] + ([3] if chans == 4 else [])]
    mode = {1: "L", 3: "RGB", 4: "RGBA"}[chans]
    return Image.fromarray(np.ascontiguousarray(arr.squeeze(-1) if chans == 1 else arr), mode).convert("RGB")


def _camera(info: Any, src: str, topic: str) -> tuple[float, float, float, float, int, int]:
    k = getattr(info, "k", None)
    if k is None:
        k = getattr(info, "K", None)
    kk = np.asarray(k if k is not None else [], dtype=float).reshape(-1)
    if kk.size != 9 or not np.isfinite(kk).all() or kk[0] <= 0 or kk[4] <= 0:
        raise DataError.single(
            src,
            f"{topic} k",
            "camera info without intrinsics (K is zero or missing)",
            "publish a calibrated CameraInfo, or give --calibration YAML",
        )
    w, h = int(info.width), int(info.height)
    if w <= 0 or h <= 0:
        raise DataError.single(
            src, f"{topic} width/height", "camera info without the image size", "publish width and height in CameraInfo"
        )
    return float(kk[0]), float(kk[4]), float(kk[2]), float(kk[5]), w, h


def _extrinsics(
    tfs: dict[str, tuple[str, np.ndarray, np.ndarray]], camera_frame: str, base_frame: str, src: str
) -> tuple[np.ndarray, np.ndarray]:
    rot, trans, frame = np.eye(3), np.zeros(3), camera_frame
    for _ in range(32):
        if frame == base_frame:
            return rot, trans
        if frame not in tfs:
            break
        parent, r, t = tfs[frame]
        rot, trans, frame = r @ rot, r @ trans + t, parent
    raise DataError.single(
        src,
        "/tf_static",
        f"no static transform chain from the camera frame {camera_frame!r} to {base_frame!r}",
        "record the camera's static TF, or give --extrinsics YAML (camera_to_base translation and rotation)",
    )


def read_ros_recording(
    path: Path,
    *,
    image_topic: str | None = None,
    odom_topic: str | None = None,
    info_topic: str | None = None,
    base_frame: str | None = None,
    extrinsics: tuple[np.ndarray, np.ndarray] | None = None,
    intrinsics: CameraModel | None = None,
) -> Recording:
    """Read a ROS 1 bag (``.bag``), a ROS 2 bag folder or a ``.mcap``/``.db3`` file.

    ``extrinsics`` (rotation, translation) replaces the static TF; ``intrinsics`` (a camera
    from a calibration YAML) replaces the CameraInfo topic."""
    src = str(path)
    kind = file_kind(path)
    if kind == "missing":
        raise DataError.single(src, "", "recording not found", "give the path of a .bag, .mcap or ROS 2 bag folder")
    if kind == "other" and not path.is_dir():
        raise DataError.single(src, "", "not a regular file (a FIFO or device)", "give the recording file itself")
    _rosbags()
    from rosbags.highlevel import AnyReader
    from rosbags.typesys import Stores, get_typestore

    try:
        reader: Any = AnyReader([path], default_typestore=get_typestore(Stores.ROS2_HUMBLE))
        reader.open()
    except Exception as exc:  # rosbags raises several unrelated types for unreadable files
        raise DataError.single(
            src, "", f"not a readable ROS bag or MCAP file ({exc})", "give a .bag, .mcap or ROS 2 bag folder"
        ) from None
    try:
        conns = list(reader.connections)
        img_c = _pick(conns, IMAGE_TYPES, image_topic, src, "image", "--image-topic")
        odo_c = _pick(conns, (ODOM_TYPE,), odom_topic, src, "odometry", "--odom-topic")
        info_c: Any = (
            None
            if intrinsics is not None
            else _pick(conns, (INFO_TYPE,), info_topic, src, "camera info", "--info-topic")
        )
        tf_c = [c for c in conns if c.msgtype == TF_TYPE and c.topic in ("/tf_static", "tf_static")]
        # every connection of the chosen topics (a topic with two publishers, or one that
        # restarted, has several): the reader yields their messages in time order
        chosen = {img_c.topic, odo_c.topic} | ({info_c.topic} if info_c is not None else set())
        wanted = [c for c in conns if c.topic in chosen] + tf_c
        ftimes: list[float] = []
        otimes: list[float] = []
        oxy: list[tuple[float, float]] = []
        oyaw: list[float] = []
        info: Any = None
        odom_child = ""
        tfs: dict[str, tuple[str, np.ndarray, np.ndarray]] = {}
        for conn, _, raw in reader.messages(connections=wanted):
            if conn.topic == img_c.topic:
                ftimes.append(_stamp(reader.deserialize(raw, conn.msgtype).header))
            elif conn.topic == odo_c.topic:
                m = reader.deserialize(raw, conn.msgtype)
                p, q = m.pose.pose.position, m.pose.pose.orientation
                otimes.append(_stamp(m.header))
                oxy.append((float(p.x), float(p.y)))
                oyaw.append(yaw_of(float(q.x), float(q.y), float(q.z), float(q.w)))
                odom_child = str(m.child_frame_id) or odom_child
            elif info_c is not None and conn.topic == info_c.topic:
                if info is None:
                    info = reader.deserialize(raw, conn.msgtype)
            else:
                for tr in reader.deserialize(raw, conn.msgtype).transforms:
                    t, r = tr.transform.translation, tr.transform.rotation
                    tfs[str(tr.child_frame_id).lstrip("/")] = (
                        str(tr.header.frame_id).lstrip("/"),
                        quaternion_matrix(float(r.x), float(r.y), float(r.z), float(r.w)),
                        np.array([float(t.x), float(t.y), float(t.z)]),
                    )
    finally:
        reader.close()
    if not ftimes:
        raise DataError.single(src, img_c.topic, "the image topic has no messages", "record the camera topic")
    if not otimes:
        raise DataError.single(src, odo_c.topic, "the odometry topic has no messages", "record the odometry topic")
    ft, ot = np.asarray(ftimes), np.asarray(otimes)
    check_increasing(ft, src, f"{img_c.topic} header.stamp", "image")
    check_increasing(ot, src, f"{odo_c.topic} header.stamp", "odometry")
    if intrinsics is not None:
        fx, fy, cx, cy, w, h = (
            intrinsics.fx,
            intrinsics.fy,
            intrinsics.cx,
            intrinsics.cy,
            intrinsics.width,
            intrinsics.height,
        )
        cam_frame = ""
    else:
        if info is None:
            raise DataError.single(
                src,
                info_c.topic,
                "the camera info topic has no messages",
                "record CameraInfo, or give --calibration YAML",
            )
        fx, fy, cx, cy, w, h = _camera(info, src, info_c.topic)
        cam_frame = str(info.header.frame_id).lstrip("/")
    if extrinsics is not None:
        rot, trans = extrinsics
    elif intrinsics is not None and extrinsics is None and not tfs:
        rot, trans = intrinsics.rotation, intrinsics.translation
    else:
        base = (base_frame or odom_child or "base_link").lstrip("/")
        if not cam_frame:
            raise DataError.single(
                src, "camera frame", "no camera frame to look up in the TF", "give --extrinsics YAML"
            )
        rot, trans = _extrinsics(tfs, cam_frame, base, src)
    camera = CameraModel(fx, fy, cx, cy, w, h, rot, trans)
    topics = {"image": img_c.topic, "odometry": odo_c.topic}
    if info_c is not None:
        topics["camera_info"] = str(info_c.topic)

    def load(indices: Sequence[int]) -> Iterator[tuple[int, object]]:
        want = sorted(set(int(i) for i in indices))
        if not want:
            return
        r2: Any
        with AnyReader([path], default_typestore=get_typestore(Stores.ROS2_HUMBLE)) as r2:
            same_topic = [c for c in r2.connections if c.topic == img_c.topic]
            k, pos = 0, 0
            for conn, _, raw in r2.messages(connections=same_topic):
                if k == want[pos]:
                    try:
                        img = _decode(r2.deserialize(raw, conn.msgtype), conn.msgtype)
                    except (OSError, ValueError, SyntaxError) as exc:  # a corrupt JPEG, a wrong step
                        raise DataError.single(
                            src,
                            f"{img_c.topic} message {k + 1}",
                            f"the image cannot be decoded ({exc})",
                            "re-record the camera topic, or drop that message",
                        ) from None
                    yield k, img
                    pos += 1
                    if pos == len(want):
                        return
                k += 1

    return Recording(src, ft, ot, np.asarray(oxy).reshape(-1, 2), np.asarray(oyaw), camera, load, topics)


# ----------------------------------------------------------------------------- writing


class RosRecordingWriter:
    """Write a recording with rosbags' own writers: ``fmt`` is one of :data:`FORMATS`.

    ``mcap`` writes a ROS 2 MCAP bag in a temporary folder and moves its one data file to
    ``path`` (a bare ``.mcap`` with its schemas). Use as a context manager."""

    def __init__(self, path: Path, fmt: str = "mcap") -> None:
        if fmt not in FORMATS:
            raise UsageError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
        _rosbags()
        from rosbags.typesys import Stores, get_typestore

        self.path, self.fmt = Path(path), fmt
        self.ts = get_typestore(Stores.ROS1_NOETIC if fmt == "ros1" else Stores.ROS2_HUMBLE)
        if TF_TYPE not in self.ts.types:  # the ROS 1 store lacks tf2_msgs: register its one-line definition
            from rosbags.typesys import get_types_from_msg

            self.ts.register(get_types_from_msg("geometry_msgs/TransformStamped[] transforms", TF_TYPE))
        self._tmp: Path | None = None
        self._writer: Any = None
        self._conns: dict[str, Any] = {}
        self._seq = 0

    def __enter__(self) -> RosRecordingWriter:
        from rosbags.rosbag1 import Writer as Writer1
        from rosbags.rosbag2 import StoragePlugin
        from rosbags.rosbag2 import Writer as Writer2

        if self.fmt == "ros1":
            self._writer = Writer1(self.path)
        elif self.fmt == "ros2-sqlite3":
            self._writer = Writer2(self.path, version=8, storage_plugin=StoragePlugin.SQLITE3)
        else:
            target = self.path
            if self.fmt == "mcap":
                self._tmp = Path(tempfile.mkdtemp(prefix=".rec-", dir=self.path.parent))
                target = self._tmp / "bag"
            self._writer = Writer2(target, version=8, storage_plugin=StoragePlugin.MCAP)
        self._writer.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self._writer.close()
        if self._tmp is not None:
            try:
                if exc[0] is None:
                    (self._tmp / "bag" / "bag.mcap").replace(self.path)
            finally:
                shutil.rmtree(self._tmp, ignore_errors=True)

    # -- messages

    def _conn(self, topic: str, msgtype: str) -> Any:
        if topic not in self._conns:
            self._conns[topic] = self._writer.add_connection(topic, msgtype, typestore=self.ts)
        return self._conns[topic]

    def restart_publisher(self, topic: str) -> None:
        """ROS 1: messages of ``topic`` written from now on go through a new connection (another
        caller id), as from a node that restarted or a second publisher of the topic."""
        if self.fmt != "ros1":
            raise UsageError("a second connection of one topic is written to ROS 1 bags only")
        if topic in self._conns:
            old = self._conns.pop(topic)
            callerid = f"/restarted_{len(self._conns)}"
            self._conns[topic] = self._writer.add_connection(topic, old.msgtype, typestore=self.ts, callerid=callerid)

    def _header(self, t: float, frame: str) -> Any:
        T = self.ts.types
        sec = int(math.floor(t))
        stamp = T["builtin_interfaces/msg/Time"](sec=sec, nanosec=int(round((t - sec) * 1e9)) % 1_000_000_000)
        if self.fmt == "ros1":
            self._seq += 1
            return T["std_msgs/msg/Header"](seq=self._seq, stamp=stamp, frame_id=frame)
        return T["std_msgs/msg/Header"](stamp=stamp, frame_id=frame)

    def _write(self, topic: str, msgtype: str, t: float, msg: Any, log_t: float | None = None) -> None:
        conn = self._conn(topic, msgtype)
        data = self.ts.serialize_ros1(msg, msgtype) if self.fmt == "ros1" else self.ts.serialize_cdr(msg, msgtype)
        self._writer.write(conn, int(round((t if log_t is None else log_t) * 1e9)), data)

    def image(
        self, topic: str, t: float, rgb: np.ndarray, frame: str = "camera_optical", log_t: float | None = None
    ) -> None:
        """A ``sensor_msgs/Image`` (rgb8) from an ``(H, W, 3)`` uint8 array."""
        h, w = int(rgb.shape[0]), int(rgb.shape[1])
        T = self.ts.types
        msg = T["sensor_msgs/msg/Image"](
            header=self._header(t, frame),
            height=h,
            width=w,
            encoding="rgb8",
            is_bigendian=0,
            step=3 * w,
            data=np.ascontiguousarray(rgb, dtype=np.uint8).reshape(-1),
        )
        self._write(topic, "sensor_msgs/msg/Image", t, msg, log_t)

    def compressed_image(
        self, topic: str, t: float, jpeg: bytes, frame: str = "camera_optical", log_t: float | None = None
    ) -> None:
        """A ``sensor_msgs/CompressedImage`` holding JPEG bytes."""
        T = self.ts.types
        msg = T["sensor_msgs/msg/CompressedImage"](
            header=self._header(t, frame), format="jpeg", data=np.frombuffer(jpeg, dtype=np.uint8)
        )
        self._write(topic, "sensor_msgs/msg/CompressedImage", t, msg, log_t)

    def odometry(
        self,
        topic: str,
        t: float,
        x: float,
        y: float,
        yaw: float,
        vx: float = 0.0,
        wz: float = 0.0,
        frame: str = "odom",
        child: str = "base_link",
        log_t: float | None = None,
    ) -> None:
        """A ``nav_msgs/Odometry`` at (x, y, yaw) in ``frame``."""
        T = self.ts.types
        pose = T["geometry_msgs/msg/Pose"](
            position=T["geometry_msgs/msg/Point"](x=float(x), y=float(y), z=0.0),
            orientation=T["geometry_msgs/msg/Quaternion"](x=0.0, y=0.0, z=math.sin(yaw / 2), w=math.cos(yaw / 2)),
        )
        twist = T["geometry_msgs/msg/Twist"](
            linear=T["geometry_msgs/msg/Vector3"](x=float(vx), y=0.0, z=0.0),
            angular=T["geometry_msgs/msg/Vector3"](x=0.0, y=0.0, z=float(wz)),
        )
        msg = T["nav_msgs/msg/Odometry"](
            header=self._header(t, frame),
            child_frame_id=child,
            pose=T["geometry_msgs/msg/PoseWithCovariance"](pose=pose, covariance=np.zeros(36)),
            twist=T["geometry_msgs/msg/TwistWithCovariance"](twist=twist, covariance=np.zeros(36)),
        )
        self._write(topic, "nav_msgs/msg/Odometry", t, msg, log_t)

    def camera_info(
        self, topic: str, t: float, camera: CameraModel, frame: str = "camera_optical", intrinsics: bool = True
    ) -> None:
        """A ``sensor_msgs/CameraInfo`` of ``camera`` (``intrinsics=False``: K all zeros, an
        uncalibrated camera)."""
        T = self.ts.types
        k = np.array([camera.fx, 0, camera.cx, 0, camera.fy, camera.cy, 0, 0, 1.0]) if intrinsics else np.zeros(9)
        p = (
            np.array([camera.fx, 0, camera.cx, 0, 0, camera.fy, camera.cy, 0, 0, 0, 1.0, 0])
            if intrinsics
            else np.zeros(12)
        )
        roi = T["sensor_msgs/msg/RegionOfInterest"](x_offset=0, y_offset=0, height=0, width=0, do_rectify=False)
        names = ("D", "K", "R", "P") if self.fmt == "ros1" else ("d", "k", "r", "p")
        fields = dict(zip(names, (np.zeros(5), k, np.eye(3).reshape(-1), p)))
        msg = T["sensor_msgs/msg/CameraInfo"](
            header=self._header(t, frame),
            height=camera.height,
            width=camera.width,
            distortion_model="plumb_bob",
            binning_x=0,
            binning_y=0,
            roi=roi,
            **fields,
        )
        self._write(topic, "sensor_msgs/msg/CameraInfo", t, msg)

    def static_transform(
        self, t: float, parent: str, child: str, rotation: np.ndarray, translation: np.ndarray
    ) -> None:
        """A ``tf2_msgs/TFMessage`` on ``/tf_static``: ``child`` in ``parent``."""
        T = self.ts.types
        qx, qy, qz, qw = matrix_quaternion(rotation)
        tr = T["geometry_msgs/msg/TransformStamped"](
            header=self._header(t, parent),
            child_frame_id=child,
            transform=T["geometry_msgs/msg/Transform"](
                translation=T["geometry_msgs/msg/Vector3"](
                    x=float(translation[0]), y=float(translation[1]), z=float(translation[2])
                ),
                rotation=T["geometry_msgs/msg/Quaternion"](x=qx, y=qy, z=qz, w=qw),
            ),
        )
        self._write("/tf_static", "tf2_msgs/msg/TFMessage", t, T["tf2_msgs/msg/TFMessage"](transforms=[tr]))
