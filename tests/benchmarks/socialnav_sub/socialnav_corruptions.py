"""A corpus of named corruptions of a small SocialNav-SUB dataset, and the runner that feeds
each one to ``socialbench data validate`` (and, when validate accepts it, ``eval`` + ``score``).

Each corruption is a small function ``f(root, ctx) -> rel`` that damages a fresh copy of the
fixture dataset in place and returns the dataset-relative path that an error message must
name. ``BAD`` corruptions make the data unusable, so ``data validate`` must reject them;
the others are oddities ``eval``/``score`` must survive when validate accepts them.

Run as a script (``python socialnav_corruptions.py BASE WORK OUT.json``), it runs every case
in this process under an address-space limit (a memory blow-up becomes ``MemoryError``) and
a per-case alarm (a hang becomes a timeout), and writes one outcome per case:

``rejected``        validate exited 1 and named the file
``unclear``         validate exited 1 without naming the file
``accepted``        validate exited 0 and eval + score completed
``accepted-bad``    validate exited 0 on a corruption that makes the data unusable
``accepted-broken`` validate exited 0 but eval or score then failed
``traceback``       an exception escaped a command
``memory``          a command ran out of the address-space limit
``hang``            a command did not finish within the per-case time limit
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pickle
import shutil
import signal
import struct
import sys
import traceback
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

CASE_TIMEOUT_S = 60
ADDRESS_SPACE_LIMIT = 6 * 1024**3


@dataclass(frozen=True)
class Ctx:
    """Facts about the fixture dataset the corruptions need."""

    sid: str  # the sample that gets corrupted
    other: str  # a second sample
    n_people: int
    first_frame: int
    multi_key: str  # a multiple-select question key of ``sid``
    single_key: str  # a single-choice question key of ``sid``
    outside: Path  # a folder outside the dataset (symlink targets)


@dataclass(frozen=True)
class Corruption:
    name: str
    bad: bool
    media: bool  # touches images/tracks/odometry: also evaluated with an image model
    apply: Callable[[Path, Ctx], str]
    modes: tuple[str, ...] = ("img-with-bev", "img")  # --images modes the image model runs


CORRUPTIONS: dict[str, Corruption] = {}


def corruption(name: str, *, bad: bool = True, media: bool = False, modes: tuple[str, ...] = ("img-with-bev", "img")):
    def deco(fn: Callable[[Path, Ctx], str]) -> Callable[[Path, Ctx], str]:
        assert name not in CORRUPTIONS, name
        CORRUPTIONS[name] = Corruption(name, bad, media, fn, modes)
        return fn

    return deco


# --------------------------------------------------------------------------- helpers

SI = "prompts/sample_info.json"
SI_COPIES = ("prompts/sample_info.json", "sample_info.json", "human_labels/sample_info.json")


def _labels(c: Ctx) -> str:
    return f"human_labels/{c.sid}/common_answers.json"


def _tracks(c: Ctx) -> str:
    return f"prompts/{c.sid}/{c.sid}_localized_obj_coords.json"


def _odo(c: Ctx) -> str:
    return f"front_view/{c.sid}/traj_data.pkl"


def _frame(c: Ctx, t: int = 3) -> str:
    return f"front_view/{c.sid}/{c.first_frame + t}.jpg"


def _composite(c: Ctx, i: int = 3) -> str:
    return f"prompts/{c.sid}/sample_with_bev_{i}.png"


def _read(root: Path, rel: str) -> Any:
    return json.loads((root / rel).read_text(encoding="utf-8"))


def _write(root: Path, rel: str, obj: Any) -> str:
    (root / rel).write_text(json.dumps(obj, indent=1), encoding="utf-8")
    return rel


def _raw(root: Path, rel: str, data: bytes | str) -> str:
    p = root / rel
    if p.is_symlink() or p.is_file():
        p.unlink()
    elif p.is_dir():
        shutil.rmtree(p)
    if isinstance(data, str):
        data = data.encode("utf-8")
    p.write_bytes(data)
    return rel


def _edit_info(root: Path, fn: Callable[[dict], None]) -> str:
    """Apply ``fn`` to every copy of sample_info.json (the loader may read any of them)."""
    for rel in SI_COPIES:
        data = _read(root, rel)
        fn(data)
        _write(root, rel, data)
    return SI


def _entry(root: Path, c: Ctx, **changes: Any) -> str:
    def fn(d: dict) -> None:
        for e in d["samples"]:
            if e["folderpath"] == c.sid:
                for k, v in changes.items():
                    if v is _DELETE:
                        e.pop(k, None)
                    else:
                        e[k] = v

    return _edit_info(root, fn)


_DELETE = object()


def _edit_labels(root: Path, c: Ctx, **changes: Any) -> str:
    rel = _labels(c)
    data = _read(root, rel)
    for k, v in changes.items():
        if v is _DELETE:
            data.pop(k, None)
        else:
            data[k] = v
    return _write(root, rel, data)


def _label(root: Path, c: Ctx, key: str, value: Any) -> str:
    return _edit_labels(root, c, **{key: value})


def _deep(n: int = 100_000) -> str:
    return "[" * n + "]" * n


def _fifo(root: Path, rel: str) -> str:
    p = root / rel
    if p.exists() or p.is_symlink():
        p.unlink()
    os.mkfifo(p)
    return rel


def _symlink_outside(root: Path, rel: str, c: Ctx) -> str:
    p = root / rel
    target = c.outside / (rel.replace("/", "__"))
    shutil.copyfile(p, target)
    p.unlink()
    p.symlink_to(target)
    return rel


def _directory(root: Path, rel: str) -> str:
    p = root / rel
    p.unlink()
    p.mkdir()
    return rel


def _edit_tracks(root: Path, c: Ctx, fn: Callable[[dict], None]) -> str:
    rel = _tracks(c)
    data = _read(root, rel)
    obs = next(iter(data["track_id_to_object_trajectory"].values()))
    fn(obs[0])
    return _write(root, rel, data)


def _pickle(root: Path, c: Ctx, obj: Any) -> str:
    return _raw(root, _odo(c), pickle.dumps(obj, protocol=4))


def _good_odometry(c: Ctx) -> dict[str, np.ndarray]:
    n = c.first_frame + 20
    return {"position": np.zeros((n, 2)), "yaw": np.zeros(n)}


def _png_header(width: int, height: int) -> bytes:
    """A PNG that claims ``width x height`` pixels and holds almost no data."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b"")
    )


def _truncate(root: Path, rel: str, keep: float = 0.5) -> str:
    p = root / rel
    data = p.read_bytes()
    p.write_bytes(data[: int(len(data) * keep)])
    return rel


# --------------------------------------------------------------------------- sample_info.json


@corruption("si_missing")
def _(r, c):
    for rel in SI_COPIES:
        (r / rel).unlink()
    return SI


@corruption("si_empty_file")
def _(r, c):
    for rel in SI_COPIES:
        _raw(r, rel, b"")
    return SI


@corruption("si_invalid_json")
def _(r, c):
    for rel in SI_COPIES:
        _raw(r, rel, '{"samples": [')
    return SI


@corruption("si_not_object")
def _(r, c):
    for rel in SI_COPIES:
        _write(r, rel, [1, 2])
    return SI


@corruption("si_samples_not_list")
def _(r, c):
    return _edit_info(r, lambda d: d.update(samples={"a": 1}))


@corruption("si_samples_empty")
def _(r, c):
    return _edit_info(r, lambda d: d.update(samples=[]))


@corruption("si_entry_not_object")
def _(r, c):
    return _edit_info(r, lambda d: d["samples"].append("x"))


@corruption("si_folderpath_missing")
def _(r, c):
    return _entry(r, c, folderpath=_DELETE)


@corruption("si_folderpath_int")
def _(r, c):
    return _entry(r, c, folderpath=17)


@corruption("si_folderpath_traversal")
def _(r, c):
    return _entry(r, c, folderpath="../../etc_Spot_1_5")


@corruption("si_folderpath_absolute")
def _(r, c):
    return _entry(r, c, folderpath="/tmp/x_Spot_1_5")


@corruption("si_folderpath_bad_pattern")
def _(r, c):
    return _entry(r, c, folderpath="not a sample id")


@corruption("si_folderpath_unknown")
def _(r, c):
    _entry(r, c, folderpath="999_Spot_9_10")
    return "human_labels/999_Spot_9_10/common_answers.json"


@corruption("si_folderpath_surrogate")
def _(r, c):
    return _entry(r, c, folderpath="a\ud800b_Spot_1_5")


@corruption("si_folderpath_nul")
def _(r, c):
    return _entry(r, c, folderpath="ab\x00_Spot_1_5")


@corruption("si_duplicate_id")
def _(r, c):
    return _edit_info(r, lambda d: d["samples"].append(dict(d["samples"][0])))


@corruption("si_n_people_missing")
def _(r, c):
    return _entry(r, c, n_people=_DELETE)


@corruption("si_n_people_negative")
def _(r, c):
    return _entry(r, c, n_people=-1)


@corruption("si_n_people_string")
def _(r, c):
    return _entry(r, c, n_people="2")


@corruption("si_n_people_float")
def _(r, c):
    return _entry(r, c, n_people=2.5)


@corruption("si_n_people_bool")
def _(r, c):
    return _entry(r, c, n_people=True)


@corruption("si_n_people_huge")
def _(r, c):
    return _entry(r, c, n_people=1_000_000)


@corruption("si_n_people_10e40")
def _(r, c):
    return _entry(r, c, n_people=10**40)


@corruption("si_n_people_more_than_labelled")
def _(r, c):
    _entry(r, c, n_people=c.n_people + 1)
    return _labels(c)  # the questions of the extra person have no labels


@corruption("si_n_people_fewer_than_labelled", bad=False)
def _(r, c):
    return _entry(r, c, n_people=c.n_people - 1)


@corruption("si_extra_entry_keys", bad=False)
def _(r, c):
    return _entry(r, c, comment="hello")


@corruption("si_deep_nesting")
def _(r, c):
    for rel in SI_COPIES:
        _raw(r, rel, '{"samples": ' + _deep() + "}")
    return SI


@corruption("si_invalid_utf8")
def _(r, c):
    for rel in SI_COPIES:
        _raw(r, rel, b'{"samples": [{"folderpath": "\xff\xfe", "n_people": 1}]}')
    return SI


@corruption("si_nan_n_people")
def _(r, c):
    for rel in SI_COPIES:
        text = (r / rel).read_text()
        _raw(r, rel, text.replace(f'"n_people": {c.n_people}', '"n_people": NaN', 1))
    return SI


@corruption("si_symlink_outside")
def _(r, c):
    for rel in SI_COPIES:
        _symlink_outside(r, rel, c)
    return SI


@corruption("si_fifo")
def _(r, c):
    for rel in SI_COPIES:
        _fifo(r, rel)
    return SI


@corruption("si_directory")
def _(r, c):
    for rel in SI_COPIES:
        _directory(r, rel)
    return SI


# --------------------------------------------------------------------------- common_answers.json


@corruption("ca_missing")
def _(r, c):
    (r / _labels(c)).unlink()
    return _labels(c)


@corruption("ca_empty_file")
def _(r, c):
    return _raw(r, _labels(c), b"")


@corruption("ca_invalid_json")
def _(r, c):
    return _raw(r, _labels(c), '{"q": ')


@corruption("ca_not_object")
def _(r, c):
    return _write(r, _labels(c), ["a"])


@corruption("ca_deep_nesting")
def _(r, c):
    return _raw(r, _labels(c), '{"x": ' + _deep() + "}")


@corruption("ca_invalid_utf8")
def _(r, c):
    return _raw(r, _labels(c), b'{"x\xc3\x28": 1}')


@corruption("ca_fifo")
def _(r, c):
    return _fifo(r, _labels(c))


@corruption("ca_symlink_outside")
def _(r, c):
    return _symlink_outside(r, _labels(c), c)


@corruption("ca_directory")
def _(r, c):
    return _directory(r, _labels(c))


@corruption("ca_missing_key")
def _(r, c):
    return _edit_labels(r, c, **{c.single_key: _DELETE})


@corruption("ca_missing_probabilities")
def _(r, c):
    return _edit_labels(r, c, **{f"{c.single_key}_probabilities": _DELETE})


@corruption("ca_missing_n_answers")
def _(r, c):
    return _edit_labels(r, c, **{f"{c.single_key}_n_answers": _DELETE})


@corruption("ca_answers_not_list")
def _(r, c):
    return _label(r, c, c.single_key, "yes")


@corruption("ca_answers_empty")
def _(r, c):
    return _label(r, c, c.single_key, [])


@corruption("ca_answer_unknown_option")
def _(r, c):
    data = _read(r, _labels(c))
    data[c.single_key] = ["no such option"] + data[c.single_key][1:]
    return _write(r, _labels(c), data)


@corruption("ca_answer_int")
def _(r, c):
    data = _read(r, _labels(c))
    data[c.single_key] = [3] + data[c.single_key][1:]
    return _write(r, _labels(c), data)


@corruption("ca_answer_surrogate")
def _(r, c):
    data = _read(r, _labels(c))
    data[c.single_key] = ["\udc80"] + data[c.single_key][1:]
    return _write(r, _labels(c), data)


@corruption("ca_duplicate_answers")
def _(r, c):
    data = _read(r, _labels(c))
    a = data[c.single_key][0]
    data[c.single_key] = [a, a]
    data[f"{c.single_key}_probabilities"] = [0.5, 0.5]
    data[f"{c.single_key}_n_answers"] = 2
    return _write(r, _labels(c), data)


@corruption("ca_multi_not_list")
def _(r, c):
    data = _read(r, _labels(c))
    data[c.multi_key] = [data[c.multi_key][0][0]] + data[c.multi_key][1:]
    return _write(r, _labels(c), data)


@corruption("ca_multi_empty_selection")
def _(r, c):
    data = _read(r, _labels(c))
    data[c.multi_key] = [[]] + data[c.multi_key][1:]
    return _write(r, _labels(c), data)


@corruption("ca_multi_repeated_option")
def _(r, c):
    data = _read(r, _labels(c))
    first = data[c.multi_key][0]
    data[c.multi_key] = [first + first[:1]] + data[c.multi_key][1:]
    return _write(r, _labels(c), data)


@corruption("ca_probs_strings")
def _(r, c):
    data = _read(r, _labels(c))
    data[f"{c.single_key}_probabilities"] = [str(p) for p in data[f"{c.single_key}_probabilities"]]
    return _write(r, _labels(c), data)


def _prob_literal(r: Path, c: Ctx, literal: str) -> str:
    data = _read(r, _labels(c))
    k = f"{c.single_key}_probabilities"
    data[k] = "@@"
    text = json.dumps(data, indent=1).replace('"@@"', literal)
    return _raw(r, _labels(c), text)


@corruption("ca_probs_nan")
def _(r, c):
    return _prob_literal(r, c, "[NaN]")


@corruption("ca_probs_infinity")
def _(r, c):
    return _prob_literal(r, c, "[Infinity, -Infinity]")


@corruption("ca_probs_huge_int")
def _(r, c):
    return _prob_literal(r, c, "[1" + "0" * 400 + "]")


@corruption("ca_probs_negative")
def _(r, c):
    data = _read(r, _labels(c))
    a = data[c.single_key][0]
    data[c.single_key] = [a]
    data[f"{c.single_key}_probabilities"] = [-1.0]
    return _write(r, _labels(c), data)


@corruption("ca_probs_not_summing_to_one")
def _(r, c):
    data = _read(r, _labels(c))
    data[f"{c.single_key}_probabilities"] = [0.3] * len(data[c.single_key])
    return _write(r, _labels(c), data)


@corruption("ca_probs_length_mismatch")
def _(r, c):
    data = _read(r, _labels(c))
    data[f"{c.single_key}_probabilities"] = data[f"{c.single_key}_probabilities"] + [0.0]
    return _write(r, _labels(c), data)


@corruption("ca_n_answers_string")
def _(r, c):
    return _label(r, c, f"{c.single_key}_n_answers", "7")


@corruption("ca_n_answers_float")
def _(r, c):
    return _label(r, c, f"{c.single_key}_n_answers", 7.5)


@corruption("ca_n_answers_one")
def _(r, c):
    return _label(r, c, f"{c.single_key}_n_answers", 1)


@corruption("ca_n_answers_negative")
def _(r, c):
    return _label(r, c, f"{c.single_key}_n_answers", -4)


@corruption("ca_n_answers_bool")
def _(r, c):
    return _label(r, c, f"{c.single_key}_n_answers", True)


@corruption("ca_n_answers_10e40")
def _(r, c):
    data = _read(r, _labels(c))
    data[c.single_key] = data[c.single_key][:1]
    data[f"{c.single_key}_probabilities"] = [1.0]
    data[f"{c.single_key}_n_answers"] = 10**40
    return _write(r, _labels(c), data)


@corruption("ca_n_answers_huge_int")
def _(r, c):
    data = _read(r, _labels(c))
    data[c.single_key] = data[c.single_key][:1]
    data[f"{c.single_key}_probabilities"] = [1.0]
    data[f"{c.single_key}_n_answers"] = 10**12
    return _write(r, _labels(c), data)


@corruption("ca_extra_keys", bad=False)
def _(r, c):
    return _label(r, c, "unrelated_key", [1, 2, 3])


@corruption("ca_counts_not_whole", bad=False)
def _(r, c):
    data = _read(r, _labels(c))
    a = data[c.single_key][0]
    data[c.single_key] = [a]
    data[f"{c.single_key}_probabilities"] = [1.0]
    data[f"{c.single_key}_n_answers"] = 3
    return _write(r, _labels(c), data)


@corruption("ca_surrogate_key", bad=False)
def _(r, c):
    return _label(r, c, "\ud800junk", 1)


# --------------------------------------------------------------------------- tracks


@corruption("tr_missing_with_composites", bad=False, media=True, modes=("img-with-bev",))
def _(r, c):
    (r / _tracks(c)).unlink()
    return _tracks(c)


@corruption("tr_missing_without_composites", media=True)
def _(r, c):
    (r / _tracks(c)).unlink()
    (r / _composite(c)).unlink()
    return _tracks(c)


@corruption("tr_invalid_json", media=True)
def _(r, c):
    return _raw(r, _tracks(c), "{")


@corruption("tr_not_object", media=True)
def _(r, c):
    return _write(r, _tracks(c), [])


@corruption("tr_trajectories_not_object", media=True)
def _(r, c):
    return _write(r, _tracks(c), {"track_id_to_object_trajectory": [1]})


@corruption("tr_observations_not_list", media=True)
def _(r, c):
    return _write(r, _tracks(c), {"track_id_to_object_trajectory": {"1": {"a": 1}}})


@corruption("tr_bbox_string", media=True)
def _(r, c):
    return _edit_tracks(r, c, lambda o: o.update(bbox="abc"))


@corruption("tr_bbox_three_numbers", media=True)
def _(r, c):
    return _edit_tracks(r, c, lambda o: o.update(bbox=[1, 2, 3]))


@corruption("tr_timestep_negative", media=True)
def _(r, c):
    return _edit_tracks(r, c, lambda o: o.update(timestep=-5))


@corruption("tr_timestep_out_of_range", media=True)
def _(r, c):
    return _edit_tracks(r, c, lambda o: o.update(timestep=10**6))


@corruption("tr_timestep_float", media=True)
def _(r, c):
    return _edit_tracks(r, c, lambda o: o.update(timestep=1.5))


@corruption("tr_center_string", media=True)
def _(r, c):
    return _edit_tracks(r, c, lambda o: o.update(center_x="1.0"))


@corruption("tr_center_nan", media=True)
def _(r, c):
    rel = _edit_tracks(r, c, lambda o: o.update(center_y="@@"))
    return _raw(r, rel, (r / rel).read_text().replace('"@@"', "NaN"))


@corruption("tr_center_huge_int", media=True)
def _(r, c):
    rel = _edit_tracks(r, c, lambda o: o.update(center_y="@@"))
    return _raw(r, rel, (r / rel).read_text().replace('"@@"', "1" + "0" * 400))


@corruption("tr_deep_nesting", media=True)
def _(r, c):
    return _raw(r, _tracks(c), '{"track_id_to_object_trajectory": ' + _deep() + "}")


@corruption("tr_invalid_utf8", media=True)
def _(r, c):
    return _raw(r, _tracks(c), b'{"track_id_to_object_trajectory": {"\xff": []}}')


@corruption("tr_fifo", media=True)
def _(r, c):
    return _fifo(r, _tracks(c))


@corruption("tr_symlink_outside", media=True)
def _(r, c):
    return _symlink_outside(r, _tracks(c), c)


@corruption("tr_duplicate_timestep", bad=False, media=True)
def _(r, c):
    rel = _tracks(c)
    data = _read(r, rel)
    obs = next(iter(data["track_id_to_object_trajectory"].values()))
    obs.append(dict(obs[0]))
    return _write(r, rel, data)


# --------------------------------------------------------------------------- odometry


@corruption("odo_missing", bad=False, media=True)
def _(r, c):
    (r / _odo(c)).unlink()
    return _odo(c)


@corruption("odo_missing_without_composites", media=True)
def _(r, c):
    (r / _odo(c)).unlink()
    (r / _composite(c)).unlink()
    return _odo(c)


@corruption("odo_empty_file", media=True)
def _(r, c):
    return _raw(r, _odo(c), b"")


@corruption("odo_garbage", media=True)
def _(r, c):
    return _raw(r, _odo(c), os.urandom(64))


@corruption("odo_truncated", media=True)
def _(r, c):
    return _truncate(r, _odo(c))


class _Call:
    """Pickles as ``fn(*args)``: how a small pickle makes the loader call an allowed global."""

    def __init__(self, fn: Any, *args: Any):
        self.fn, self.args = fn, args

    def __reduce__(self) -> tuple:
        return (self.fn, self.args)


@corruption("odo_bytearray_bomb", media=True)
def _(r, c):
    # builtins.bytearray(12_000_000_000): a ~40-byte pickle that allocates 12 GB
    return _raw(r, _odo(c), pickle.dumps(_Call(bytearray, 12_000_000_000), protocol=2))


@corruption("odo_bytes_bomb", media=True)
def _(r, c):
    return _raw(r, _odo(c), pickle.dumps(_Call(bytes, 12_000_000_000), protocol=4))


@corruption("odo_set_bomb", media=True)
def _(r, c):
    return _raw(
        r, _odo(c), pickle.dumps({"position": _Call(frozenset, _Call(bytearray, 10**9)), "yaw": []}, protocol=4)
    )


@corruption("odo_list_of_dicts_bomb", media=True)
def _(r, c):
    # a 200 MB pickle would be needed for a real list bomb; a deep nesting is cheap
    data = b"\x80\x04" + b"]" * 200_000 + b"a" * 199_999 + b"."
    return _raw(r, _odo(c), data)


@corruption("odo_malicious_global", media=True)
def _(r, c):
    return _raw(r, _odo(c), b"\x80\x04\x8c\x02os\x8c\x06system\x93\x8c\x04true\x85R.")


@corruption("odo_not_dict", media=True)
def _(r, c):
    return _pickle(r, c, [1, 2, 3])


@corruption("odo_missing_yaw", media=True)
def _(r, c):
    d = _good_odometry(c)
    del d["yaw"]
    return _pickle(r, c, d)


@corruption("odo_nan_position", media=True)
def _(r, c):
    d = _good_odometry(c)
    d["position"][c.first_frame + 2, 0] = np.nan
    return _pickle(r, c, d)


@corruption("odo_inf_yaw", media=True)
def _(r, c):
    d = _good_odometry(c)
    d["yaw"][c.first_frame + 1] = np.inf
    return _pickle(r, c, d)


@corruption("odo_short", media=True)
def _(r, c):
    d = _good_odometry(c)
    return _pickle(r, c, {"position": d["position"][:3], "yaw": d["yaw"][:3]})


@corruption("odo_1d_position", media=True)
def _(r, c):
    d = _good_odometry(c)
    return _pickle(r, c, {"position": d["yaw"], "yaw": d["yaw"]})


@corruption("odo_string_position", media=True)
def _(r, c):
    d = _good_odometry(c)
    return _pickle(r, c, {"position": [["a", "b"]] * len(d["yaw"]), "yaw": d["yaw"]})


@corruption("odo_complex_position", media=True)
def _(r, c):
    d = _good_odometry(c)
    return _pickle(r, c, {"position": d["position"] + 1j, "yaw": d["yaw"]})


@corruption("odo_yaw_length_mismatch", media=True)
def _(r, c):
    d = _good_odometry(c)
    return _pickle(r, c, {"position": d["position"], "yaw": d["yaw"][:-5]})


@corruption("odo_symlink_outside", media=True)
def _(r, c):
    return _symlink_outside(r, _odo(c), c)


@corruption("odo_fifo", media=True)
def _(r, c):
    return _fifo(r, _odo(c))


@corruption("odo_lists_not_arrays", bad=False, media=True)
def _(r, c):
    d = _good_odometry(c)
    return _pickle(r, c, {"position": d["position"].tolist(), "yaw": d["yaw"].tolist()})


# --------------------------------------------------------------------------- images


@corruption("frame_missing_without_composites", media=True)
def _(r, c):
    (r / _frame(c)).unlink()
    (r / _composite(c)).unlink()
    return _frame(c)


@corruption("frames_missing_with_composites", bad=False, media=True, modes=("img-with-bev",))
def _(r, c):
    for p in (r / "front_view" / c.sid).glob("*.jpg"):
        p.unlink()
    return f"front_view/{c.sid}"


@corruption("frame_truncated_jpeg", media=True)
def _(r, c):
    return _truncate(r, _frame(c))


@corruption("frame_garbage", media=True)
def _(r, c):
    return _raw(r, _frame(c), os.urandom(300))


@corruption("frame_empty_file", media=True)
def _(r, c):
    return _raw(r, _frame(c), b"")


@corruption("frame_png_bomb_header", media=True)
def _(r, c):
    return _raw(r, _frame(c), _png_header(10000, 10000))


@corruption("frame_symlink_outside", media=True)
def _(r, c):
    return _symlink_outside(r, _frame(c), c)


@corruption("frame_fifo", media=True)
def _(r, c):
    return _fifo(r, _frame(c))


@corruption("frame_directory", media=True)
def _(r, c):
    return _directory(r, _frame(c))


@corruption("frame_png_content", bad=False, media=True)
def _(r, c):
    from PIL import Image

    p = r / _frame(c)
    with Image.open(p) as im:
        im.load()
        im.save(p, format="PNG")
    return _frame(c)


@corruption("composite_truncated_png", media=True)
def _(r, c):
    return _truncate(r, _composite(c))


@corruption("composite_png_bomb_header", media=True)
def _(r, c):
    return _raw(r, _composite(c), _png_header(10000, 10000))


@corruption("composite_garbage", media=True)
def _(r, c):
    return _raw(r, _composite(c), os.urandom(200))


@corruption("composite_one_missing", bad=False, media=True)
def _(r, c):
    (r / _composite(c)).unlink()
    return _composite(c)


@corruption("composites_all_missing", bad=False, media=True)
def _(r, c):
    for i in range(10):
        (r / _composite(c, i)).unlink()
    return f"prompts/{c.sid}"


# --------------------------------------------------------------------------- goal_info.json

GOAL = "goal_info.json"


@corruption("goal_missing", bad=False, media=True)
def _(r, c):
    (r / GOAL).unlink()
    return GOAL


@corruption("goal_invalid_json")
def _(r, c):
    return _raw(r, GOAL, "{,}")


@corruption("goal_not_object")
def _(r, c):
    return _write(r, GOAL, [])


@corruption("goal_entry_not_pair")
def _(r, c):
    data = _read(r, GOAL)
    data[next(iter(data))] = "x"
    return _write(r, GOAL, data)


@corruption("goal_nan")
def _(r, c):
    data = _read(r, GOAL)
    k = next(iter(data))
    data[k] = [data[k][0], "[nan, 1]"]
    return _write(r, GOAL, data)


@corruption("goal_traversal")
def _(r, c):
    data = _read(r, GOAL)
    k = next(iter(data))
    data[k] = ["../../etc/passwd", data[k][1]]
    return _write(r, GOAL, data)


@corruption("goal_deep_nesting")
def _(r, c):
    return _raw(r, GOAL, _deep())


@corruption("goal_invalid_utf8")
def _(r, c):
    return _raw(r, GOAL, b'{"\xff": 1}')


@corruption("goal_entry_missing", bad=False, media=True)
def _(r, c):
    data = _read(r, GOAL)
    return _write(r, GOAL, {k: v for k, v in data.items() if not k.startswith(c.sid.rsplit("_", 1)[0])})


# --------------------------------------------------------------------------- sample_metadata.json

META = "sample_metadata.json"


@corruption("meta_invalid_json")
def _(r, c):
    return _raw(r, META, "{")


@corruption("meta_not_object")
def _(r, c):
    return _write(r, META, [])


@corruption("meta_attrs_not_object")
def _(r, c):
    return _write(r, META, {c.sid: 3})


@corruption("meta_reserved_key")
def _(r, c):
    return _write(r, META, {c.sid: {"n_people": 40}})


@corruption("meta_surrogate_value")
def _(r, c):
    return _write(r, META, {c.sid: {"site": "a\ud800b"}})


@corruption("meta_surrogate_attribute")
def _(r, c):
    return _write(r, META, {c.sid: {"\udcff": True}})


@corruption("meta_deep_nesting")
def _(r, c):
    return _raw(r, META, '{"' + c.sid + '": {"x": ' + _deep() + "}}")


@corruption("meta_invalid_utf8")
def _(r, c):
    return _raw(r, META, b'{"\xff": {}}')


@corruption("meta_unknown_sample", bad=False)
def _(r, c):
    return _write(r, META, {"nosuch_Spot_1_5": {"indoors": True}})


@corruption("meta_fifo")
def _(r, c):
    return _fifo(r, META)


# --------------------------------------------------------------------------- config and prompt bank

CFG = "dataset_cfg.yaml"
BANK = "prompts/survey_prompt.json"
DEPS = "prompts/relevant_prev_questions.json"


@corruption("cfg_invalid_yaml")
def _(r, c):
    return _raw(r, CFG, "a: [\n")


@corruption("cfg_not_mapping")
def _(r, c):
    return _raw(r, CFG, "- 1\n- 2\n")


@corruption("cfg_invalid_utf8")
def _(r, c):
    return _raw(r, CFG, b"a: \xff\xfe\n")


@corruption("cfg_fifo")
def _(r, c):
    return _fifo(r, CFG)


@corruption("bank_invalid_json")
def _(r, c):
    return _raw(r, BANK, "{")


@corruption("bank_not_object")
def _(r, c):
    return _write(r, BANK, [1])


@corruption("bank_deep_nesting")
def _(r, c):
    return _raw(r, BANK, _deep())


@corruption("bank_invalid_utf8")
def _(r, c):
    return _raw(r, BANK, b'{"\xff": 1}')


@corruption("bank_fifo")
def _(r, c):
    return _fifo(r, BANK)


@corruption("deps_invalid_json")
def _(r, c):
    return _raw(r, DEPS, "[")


@corruption("deps_not_object")
def _(r, c):
    return _write(r, DEPS, "x")


# --------------------------------------------------------------------------- runner


class CaseTimeout(BaseException):
    """Raised by the per-case alarm."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise CaseTimeout()


def _cli(args: list[str]) -> tuple[int | str, str]:
    """Run the CLI in-process: (exit code or failure kind, stdout+stderr)."""
    from socialbench.cli import main

    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            try:
                main(args)
                code: int | str = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except CaseTimeout:
        raise
    except MemoryError:
        return "memory", buf.getvalue()
    except BaseException:  # noqa: BLE001 - the point is to catch everything
        return "traceback", buf.getvalue() + traceback.format_exc()
    text = buf.getvalue()
    if "Traceback (most recent call last)" in text:
        return "traceback", text
    return code, text


def context(base: Path, outside: Path) -> Ctx:
    from socialbench.benchmarks.socialnav_sub.bank import expand_questions
    from socialbench.benchmarks.socialnav_sub.bank_file import load_bank

    samples = json.loads((base / SI).read_text())["samples"]
    sid, n = samples[0]["folderpath"], samples[0]["n_people"]
    qs = expand_questions(load_bank(), n)
    multi = next(q.key for q in qs if q.kind == "multi")
    single = next(q.key for q in qs if q.kind == "single")
    return Ctx(sid, samples[1]["folderpath"], n, int(sid.rsplit("_", 1)[1]), multi, single, outside)


def run_case(name: str, base: Path, work: Path) -> dict[str, Any]:
    """Corrupt a copy of ``base`` with ``name`` and classify what the commands do with it."""
    case = CORRUPTIONS[name]
    cdir = work / name
    shutil.rmtree(cdir, ignore_errors=True)
    outside = cdir / "outside"
    outside.mkdir(parents=True)
    data = Path(shutil.copytree(base, cdir / "data", symlinks=True))
    ctx = context(base, outside)
    rel = case.apply(data, ctx)
    result: dict[str, Any] = {"name": name, "bad": case.bad, "file": rel}
    code, text = _cli(["data", "validate", "-b", "socialnav-sub", "-d", str(data)])
    result["validate"] = text[-2000:]
    if code in ("traceback", "memory") or "MemoryError" in text:
        result["outcome"] = "memory" if "MemoryError" in text else code
        return result
    if code != 0:
        flat = text.replace("\n", "")  # a console may wrap a long path
        named = str(data / rel) in flat
        result["outcome"] = "rejected" if code == 1 and named else "unclear"
        return result
    if case.bad:
        result["outcome"] = "accepted-bad"
        return result
    runs = [["-m", "baseline:random"]]
    if case.media:
        runs.extend(["-m", "mock:first-option", "--images", mode, "--limit", "1"] for mode in case.modes)
    for i, extra in enumerate(runs):
        run_dir = cdir / f"run{i}"
        code, text = _cli(
            ["eval", "-b", "socialnav-sub", "-d", str(data), "-o", str(run_dir), "--no-progress", "--no-cache", *extra]
        )
        if code != 0:
            result["outcome"] = code if code in ("traceback", "memory") else "accepted-broken"
            result["eval"] = text[-3000:]
            return result
        code, text = _cli(
            ["score", "-b", "socialnav-sub", "-d", str(data), "-p", str(run_dir), "-o", str(cdir / f"score{i}")]
        )
        if code != 0:
            result["outcome"] = code if code in ("traceback", "memory") else "accepted-broken"
            result["score"] = text[-3000:]
            return result
    result["outcome"] = "accepted"
    return result


def run_corpus(
    base: Path, work: Path, names: list[str] | None = None, timeout_s: float = CASE_TIMEOUT_S
) -> list[dict[str, Any]]:
    """Run the cases in this process (main thread) under the alarm and memory limit."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = ADDRESS_SPACE_LIMIT if hard == resource.RLIM_INFINITY else min(hard, ADDRESS_SPACE_LIMIT)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    signal.signal(signal.SIGALRM, _on_alarm)
    results = []
    for name in names or list(CORRUPTIONS):
        signal.setitimer(signal.ITIMER_REAL, timeout_s)
        try:
            res = run_case(name, base, work)
        except CaseTimeout:
            res = {"name": name, "bad": CORRUPTIONS[name].bad, "outcome": "hang"}
        except MemoryError:
            res = {"name": name, "bad": CORRUPTIONS[name].bad, "outcome": "memory"}
        except Exception:  # noqa: BLE001 - a broken corruption function
            res = {
                "name": name,
                "bad": CORRUPTIONS[name].bad,
                "outcome": "traceback",
                "validate": traceback.format_exc(),
            }
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        results.append(res)
        shutil.rmtree(work / name, ignore_errors=True)
    return results


def counts(results: list[dict[str, Any]]) -> dict[str, int]:
    """The totals the issue asks for."""
    outcomes = [r["outcome"] for r in results]
    return {
        "cases": len(results),
        "clear_errors": outcomes.count("rejected"),
        "unclear_errors": outcomes.count("unclear"),
        "accepted_ok": outcomes.count("accepted"),
        "tracebacks": outcomes.count("traceback"),
        "hangs": outcomes.count("hang"),
        "memory_blowups": outcomes.count("memory"),
        "accepted_bad": outcomes.count("accepted-bad"),
        "accepted_broken": outcomes.count("accepted-broken"),
    }


if __name__ == "__main__":
    base_dir, work_dir, out_json = (Path(a) for a in sys.argv[1:4])
    only = sys.argv[4].split(",") if len(sys.argv) > 4 else None
    res = run_corpus(base_dir, work_dir, only)
    out_json.write_text(json.dumps({"counts": counts(res), "results": res}, indent=1))
    sys.stdout.flush()
    os._exit(0)  # a hung worker thread must not keep the process alive
