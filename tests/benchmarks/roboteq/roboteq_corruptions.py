"""A corpus of named corruptions of a small RobotEQ release, and a runner that tries each.

Each :class:`Corruption` damages a copy of the tiny release of :mod:`roboteq_fixtures`
(judgment and grounding label files, CSV and canonical forms, images). :func:`run_case`
runs, in a forked child with a hard timeout and a memory limit,
``socialbench data validate``; when validate accepts the folder it also runs ``eval`` with
``baseline:random``, ``score`` and the image encoder on every item. :func:`classify` turns
what happened into one verdict:

``clear``        validate exits 1 and its message names the damaged file;
``unclear``      validate exits 1 without naming the damaged file;
``accepted_ok``  validate accepts a harmless variant, and eval, score and image encoding run;
``accepted_bad`` validate accepts a file that eval/score cannot use (a ``bad`` case, or a
                 later stage that refuses the data);
``traceback``    any stage raised an exception other than a clean exit;
``hang``         the child did not finish within the timeout (killed);
``memory``       MemoryError, or the child was killed by a signal.

Run this file as a script to print the counts: ``python tests/benchmarks/roboteq/roboteq_corruptions.py``.
"""

from __future__ import annotations

import io
import json
import os
import select
import shutil
import signal
import struct
import sys
import time
import traceback
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

sys.path.insert(0, str(Path(__file__).parent))
from roboteq_fixtures import build_release  # noqa: E402

BJ = "roboteq-bj"
SG = "roboteq-sg"
BJ_META = "behavior_judgment/metadata.jsonl"
SG_META = "spatial_grounding/metadata.jsonl"
VERDICTS = ("clear", "unclear", "accepted_ok", "accepted_bad", "traceback", "hang", "memory")
#: address space a case may add to the test process (a blow-up raises MemoryError)
MEMORY_HEADROOM = 3 * 1024**3


@dataclass(frozen=True)
class Corruption:
    """One named damage to the release: ``apply(root)`` edits the copy in place.

    ``bench`` is the benchmark validated; ``target`` the file the message must name
    (relative to the root, or any text the message must contain); ``bad`` is True when
    eval/score cannot use the damaged folder correctly, so validate must reject it.
    """

    name: str
    bench: str
    target: str
    apply: Callable[[Path], None]
    bad: bool = True


# --------------------------------------------------------------------------- editing helpers


def _rows(root: Path, meta: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (root / meta).read_text(encoding="utf-8").splitlines() if line.strip()]


def _write_rows(root: Path, meta: str, rows: list[Any]) -> None:
    (root / meta).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _edit(meta: str, index: int, **changes: Any) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        rows = _rows(root, meta)
        rows[index].update(changes)
        _write_rows(root, meta, rows)

    return apply


def _drop(meta: str, index: int, *keys: str) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        rows = _rows(root, meta)
        for k in keys:
            rows[index].pop(k, None)
        _write_rows(root, meta, rows)

    return apply


def _append_raw(meta: str, data: bytes) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        with open(root / meta, "ab") as fh:
            fh.write(data)

    return apply


def _replace_file(rel: str, data: bytes) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        (root / rel).write_bytes(data)

    return apply


def _deep(n: int = 100_000) -> str:
    return "[" * n + "]" * n


def _fifo(rel: str) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        (root / rel).unlink()
        os.mkfifo(root / rel)

    return apply


def _symlink_outside(rel: str) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        outside = root.parent / ("outside-" + Path(rel).name)
        shutil.copy(root / rel, outside)
        (root / rel).unlink()
        (root / rel).symlink_to(outside)

    return apply


def _to_csv(meta: str, mutate: Callable[[list[list[str]]], None] = lambda rows: None) -> Callable[[Path], None]:
    """Rewrite a metadata.jsonl as metadata.csv (lists as JSON strings), then ``mutate``."""

    def apply(root: Path) -> None:
        import csv

        rows = _rows(root, meta)
        header = sorted({k for r in rows for k in r})
        table = [header] + [
            [v if isinstance(v, str) else ("" if k not in r else json.dumps(v)) for k in header for v in [r.get(k)]]
            for r in rows
        ]
        mutate(table)
        (root / meta).unlink()
        buf = io.StringIO()
        csv.writer(buf).writerows(table)
        (root / meta).with_suffix(".csv").write_text(buf.getvalue(), encoding="utf-8")

    return apply


def _csv_bytes(meta: str, tail: bytes) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        _to_csv(meta)(root)
        with open((root / meta).with_suffix(".csv"), "ab") as fh:
            fh.write(tail)

    return apply


def _to_canonical(mutate: Callable[[list[dict[str, Any]]], None] = lambda rows: None) -> Callable[[Path], None]:
    """Write the canonical ``roboteq.jsonl`` of the release, then ``mutate`` its rows."""

    def apply(root: Path) -> None:
        from socialbench.benchmarks.roboteq.scan import scan_roboteq
        from socialbench.benchmarks.roboteq.write import canonical_row

        scan = scan_roboteq(root)
        rows = [canonical_row(r) for r in (*scan.scenes, *scan.questions)]
        mutate(rows)
        (root / "roboteq.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")

    return apply


def _set_behavior(index: int, **changes: Any) -> Callable[[list[dict[str, Any]]], None]:
    def mutate(rows: list[dict[str, Any]]) -> None:
        rows[0]["behaviors"][index].update(changes)

    return mutate


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def huge_png_header(width: int = 10_000, height: int = 10_000) -> bytes:
    """A small, CRC-correct PNG whose header claims ``width`` x ``height`` pixels."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00" + b"\x00" * 3 * width)
    return b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr) + _png_chunk(b"IDAT", idat) + _png_chunk(b"IEND", b"")


def _truncated(rel: str, fmt: str) -> Callable[[Path], None]:
    """Re-save an image as ``fmt`` and cut it to half its bytes (the row keeps its name)."""

    def apply(root: Path) -> None:
        buf = io.BytesIO()
        with Image.open(root / rel) as img:
            img.convert("RGB").resize((400, 300)).save(buf, fmt)
        data = buf.getvalue()
        (root / rel).write_bytes(data[: len(data) // 2])

    return apply


def _image_dir(rel: str) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        (root / rel).unlink()
        (root / rel).mkdir()

    return apply


def _symlink_loop(root: Path) -> None:
    (root / "behavior_judgment" / "loop").symlink_to(root, target_is_directory=True)


# --------------------------------------------------------------------------- the corpus

S = "\ud800"  # a lone surrogate: valid in a JSON escape, not encodable as UTF-8
IMG_S1 = "behavior_judgment/images/s1.png"
IMG_G1 = "spatial_grounding/images/g1.png"

CORPUS: tuple[Corruption, ...] = (
    # ---- judgment label file: syntax and encoding
    Corruption("bj-invalid-json-line", BJ, BJ_META, _append_raw(BJ_META, b'{"id": "x", \n')),
    Corruption("bj-deep-nested-row", BJ, BJ_META, _append_raw(BJ_META, _deep().encode() + b"\n")),
    Corruption(
        "bj-deep-nested-object-row",
        BJ,
        BJ_META,
        _append_raw(BJ_META, ('{"a":' * 100_000 + "1" + "}" * 100_000 + "\n").encode()),
    ),
    Corruption("bj-invalid-utf8", BJ, BJ_META, _append_raw(BJ_META, b'{"id": "\xff\xfe bad"}\n')),
    Corruption("bj-row-is-array", BJ, BJ_META, _append_raw(BJ_META, b"[1, 2, 3]\n")),
    Corruption("bj-nul-bytes", BJ, BJ_META, _append_raw(BJ_META, b"\x00\x00\x00\n")),
    Corruption("bj-empty-file", BJ, BJ_META, _replace_file(BJ_META, b"")),
    Corruption("bj-label-file-fifo", BJ, BJ_META, _fifo(BJ_META)),
    Corruption("bj-label-file-symlink-outside", BJ, BJ_META, _symlink_outside(BJ_META)),
    Corruption("bj-symlink-loop-folder", BJ, "loop", _symlink_loop, bad=False),
    # ---- judgment fields: wrong types and values
    Corruption("bj-missing-question", BJ, BJ_META, _drop(BJ_META, 0, "question")),
    Corruption("bj-question-number", BJ, BJ_META, _edit(BJ_META, 0, question=5)),
    Corruption("bj-question-list", BJ, BJ_META, _edit(BJ_META, 0, question=["a", "b"])),
    Corruption("bj-labels-number", BJ, BJ_META, _edit(BJ_META, 1, labels=7)),
    Corruption("bj-labels-list", BJ, BJ_META, _edit(BJ_META, 1, labels=["[1] proper: x"])),
    Corruption("bj-option-texts-number", BJ, BJ_META, _edit(BJ_META, 2, option_texts=3)),
    Corruption("bj-gt-labels-dict", BJ, BJ_META, _edit(BJ_META, 2, gt_labels={"a": "proper"})),
    Corruption("bj-gt-labels-nan", BJ, BJ_META, _edit(BJ_META, 2, gt_labels=[float("nan"), "proper"])),
    Corruption("bj-votes-string", BJ, BJ_META, _edit(BJ_META, 0, votes="abc")),
    Corruption(
        "bj-vote-count-nan",
        BJ,
        BJ_META,
        _edit(BJ_META, 1, votes={"1": {"proper": float("nan")}, "2": ["proper"], "3": ["improper"]}),
    ),
    Corruption(
        "bj-vote-count-inf",
        BJ,
        BJ_META,
        _edit(BJ_META, 1, votes={"1": {"proper": float("inf")}, "2": ["proper"], "3": ["improper"]}),
    ),
    Corruption(
        "bj-vote-count-negative",
        BJ,
        BJ_META,
        _edit(BJ_META, 1, votes={"1": {"proper": -3}, "2": ["proper"], "3": ["improper"]}),
    ),
    Corruption(
        "bj-vote-count-huge",
        BJ,
        BJ_META,
        _edit(BJ_META, 1, votes={"1": {"proper": 10**40, "improper": 1}, "2": ["proper"], "3": ["improper"]}),
    ),
    Corruption(
        "bj-vote-count-at-limit",
        BJ,
        BJ_META,
        _edit(BJ_META, 1, votes={"1": {"proper": 10_000, "improper": 10_000}, "2": ["proper"], "3": ["improper"]}),
        bad=False,
    ),
    Corruption(
        "bj-labels-line-of-spaces",
        BJ,
        BJ_META,
        _edit(BJ_META, 1, labels="[1] proper: a" + " " * 300_000 + "x\n[2] proper: b\n[3] improper: c"),
        bad=False,
    ),
    Corruption("bj-facets-number", BJ, BJ_META, _edit(BJ_META, 0, facets=5)),
    Corruption("bj-facets-deep-string", BJ, BJ_META, _edit(BJ_META, 0, facets=_deep())),
    Corruption("bj-subset-list", BJ, BJ_META, _edit(BJ_META, 0, subset=["real"])),
    Corruption(
        "bj-behavior-number-huge",
        BJ,
        BJ_META,
        _edit(BJ_META, 1, labels="[1] proper: a\n[99999999999999999999999999] improper: b", votes=None, facets=None),
    ),
    Corruption("bj-duplicate-ids", BJ, BJ_META, _edit(BJ_META, 1, id="s1")),
    Corruption("bj-id-number", BJ, BJ_META, _edit(BJ_META, 0, id=5), bad=False),
    Corruption("bj-id-list", BJ, BJ_META, _edit(BJ_META, 0, id=["s", 1])),
    Corruption("bj-int-5000-digits", BJ, BJ_META, _append_raw(BJ_META, b'{"id": ' + b"9" * 5000 + b"}\n")),
    Corruption(
        "bj-label-number-5000-digits",
        BJ,
        BJ_META,
        _edit(BJ_META, 1, labels="[" + "1" * 5000 + "] proper: a", votes=None, facets=None),
    ),
    Corruption("bj-facets-key-5000-digits", BJ, BJ_META, _edit(BJ_META, 0, facets={"1" * 5000: ["safety"]})),
    Corruption("bj-id-lone-surrogate", BJ, BJ_META, _edit(BJ_META, 0, id="s" + S)),
    Corruption("bj-category-lone-surrogate", BJ, BJ_META, _edit(BJ_META, 0, category="Retail" + S)),
    Corruption("bj-question-lone-surrogate", BJ, BJ_META, _edit(BJ_META, 0, question="You are a robot" + S)),
    Corruption(
        "bj-labels-lone-surrogate",
        BJ,
        BJ_META,
        _edit(BJ_META, 1, labels="[1] proper: a" + S + "\n[2] proper: b\n[3] improper: c"),
    ),
    Corruption(
        "bj-task-unknown",
        BJ,
        BJ_META,
        _edit(BJ_META, 1, task="cooking", labels=None, option_texts=None, gt_labels=None),
    ),
    # ---- judgment images
    Corruption("bj-image-missing", BJ, "s1.png", lambda root: (root / IMG_S1).unlink()),
    Corruption("bj-image-absolute", BJ, BJ_META, _edit(BJ_META, 0, file_name="/etc/hostname")),
    Corruption("bj-image-dotdot", BJ, BJ_META, _edit(BJ_META, 0, file_name="../../outside.png")),
    Corruption("bj-image-symlink-outside", BJ, BJ_META, _symlink_outside(IMG_S1)),
    Corruption("bj-image-empty", BJ, "s1.png", _replace_file(IMG_S1, b"")),
    Corruption("bj-image-text", BJ, "s1.png", _replace_file(IMG_S1, b"not an image at all\n")),
    Corruption("bj-image-truncated-png", BJ, "s1.png", _truncated(IMG_S1, "PNG")),
    Corruption("bj-image-truncated-jpeg", BJ, "s1.png", _truncated(IMG_S1, "JPEG")),
    Corruption("bj-image-huge-header", BJ, "s1.png", _replace_file(IMG_S1, huge_png_header())),
    Corruption("bj-image-directory", BJ, "s1.png", _image_dir(IMG_S1)),
    Corruption("bj-image-fifo", BJ, "s1.png", _fifo(IMG_S1)),
    Corruption("bj-image-nul-in-path", BJ, BJ_META, _edit(BJ_META, 0, file_name="images/s1\x00.png")),
    Corruption("bj-image-path-too-long", BJ, BJ_META, _edit(BJ_META, 0, file_name="images/" + "x" * 5000 + ".png")),
    Corruption("bj-image-path-lone-surrogate", BJ, BJ_META, _edit(BJ_META, 0, file_name="images/s1" + S + ".png")),
    # ---- judgment CSV form
    Corruption("bj-csv-clean", BJ, "metadata.csv", _to_csv(BJ_META), bad=False),
    Corruption(
        "bj-csv-field-too-long",
        BJ,
        "metadata.csv",
        _to_csv(BJ_META, lambda t: t[1].__setitem__(t[0].index("question"), "x" * 200_000)),
    ),
    Corruption("bj-csv-invalid-utf8", BJ, "metadata.csv", _csv_bytes(BJ_META, b"\xff\xfe,\xc3\x28\n")),
    Corruption("bj-csv-unterminated-quote", BJ, "metadata.csv", _csv_bytes(BJ_META, b'"' + b"x" * 200_000)),
    Corruption("bj-csv-nul", BJ, "metadata.csv", _csv_bytes(BJ_META, b"a\x00b,c\n")),
    # ---- judgment canonical form
    Corruption(
        "bj-canonical-behaviors-string",
        BJ,
        "roboteq.jsonl",
        _to_canonical(lambda rows: rows[0].update(behaviors="none")),
    ),
    Corruption("bj-canonical-k-float", BJ, "roboteq.jsonl", _to_canonical(_set_behavior(0, k=1.5))),
    Corruption(
        "bj-canonical-votes-nan", BJ, "roboteq.jsonl", _to_canonical(_set_behavior(0, votes={"proper": float("nan")}))
    ),
    Corruption(
        "bj-canonical-text-lone-surrogate", BJ, "roboteq.jsonl", _to_canonical(_set_behavior(0, text="wave" + S))
    ),
    Corruption("bj-canonical-fifo", BJ, "roboteq.jsonl", lambda root: os.mkfifo(root / "roboteq.jsonl")),
    # ---- grounding label file and fields
    Corruption("sg-invalid-utf8", SG, SG_META, _append_raw(SG_META, b'{"question": "\xc3\x28"}\n')),
    Corruption("sg-deep-nested-row", SG, SG_META, _append_raw(SG_META, _deep().encode() + b"\n")),
    Corruption("sg-label-file-fifo", SG, SG_META, _fifo(SG_META)),
    Corruption("sg-answer-letter-e", SG, SG_META, _edit(SG_META, 0, answer=["E"])),
    Corruption("sg-answer-empty", SG, SG_META, _edit(SG_META, 0, answer=[], answers=None)),
    Corruption("sg-answer-number", SG, SG_META, _edit(SG_META, 1, answer=5)),
    Corruption("sg-answer-nan", SG, SG_META, _edit(SG_META, 1, answer=float("nan"))),
    Corruption("sg-answer-deep-string", SG, SG_META, _edit(SG_META, 1, answer=_deep())),
    Corruption("sg-options-number", SG, SG_META, _edit(SG_META, 1, options=5)),
    Corruption("sg-options-deep-json-string", SG, SG_META, _edit(SG_META, 1, options="{" + '"A":' * 100_000)),
    Corruption(
        "sg-options-deep-valid-json-string",
        SG,
        SG_META,
        _edit(SG_META, 1, options='{"A":' * 100_000 + "1" + "}" * 100_000),
    ),
    Corruption("sg-votes-string", SG, SG_META, _edit(SG_META, 0, votes="abc")),
    Corruption("sg-votes-nan", SG, SG_META, _edit(SG_META, 0, votes=[float("nan")])),
    Corruption("sg-question-lone-surrogate", SG, SG_META, _edit(SG_META, 0, question="Where" + S)),
    Corruption(
        "sg-option-text-lone-surrogate",
        SG,
        SG_META,
        _edit(SG_META, 1, options={"A": "left" + S, "B": "b", "C": "c", "D": "d"}),
    ),
    Corruption("sg-subcategory-lone-surrogate", SG, SG_META, _edit(SG_META, 0, subcategory=S)),
    Corruption("sg-image-truncated-jpeg", SG, "g1.png", _truncated(IMG_G1, "JPEG")),
    Corruption("sg-image-huge-header", SG, "g1.png", _replace_file(IMG_G1, huge_png_header())),
    Corruption("sg-image-symlink-outside", SG, SG_META, _symlink_outside(IMG_G1)),
)


# --------------------------------------------------------------------------- the runner


def _cli(args: list[str]) -> dict[str, Any]:
    """Run the CLI in this process; its exit code, output and any escaped exception."""
    from socialbench.cli import main

    buf = io.StringIO()
    old = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = buf
    code: int | None = 0
    exc_text = None
    memory = False
    try:
        main(args)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except MemoryError:
        memory = True
        exc_text = traceback.format_exc()
    except BaseException:  # noqa: BLE001 - the point is to see every escape
        exc_text = traceback.format_exc()
    finally:
        sys.stdout, sys.stderr = old
    return {"code": code, "output": buf.getvalue(), "exception": exc_text, "memory": memory}


def _encode_images(bench: str, root: Path) -> dict[str, Any]:
    """Encode every item's image as a model backend would (what eval with a VLM needs)."""
    from socialbench.benchmarks.roboteq.loader import load_roboteq
    from socialbench.benchmarks.roboteq.schema import TASK_BJ, TASK_SG
    from socialbench.errors import SocialbenchError
    from socialbench.vision.images import ImageEncoder, ImagePolicy

    try:
        ds = load_roboteq(root, TASK_BJ if bench == BJ else TASK_SG, require_images=True)
        enc = ImageEncoder(ImagePolicy())
        for item in ds.items:
            enc.encode(item.metadata["image"])
    except SocialbenchError as exc:
        return {"code": 1, "output": str(exc), "exception": None, "memory": False}
    except MemoryError:
        return {"code": None, "output": "", "exception": traceback.format_exc(), "memory": True}
    except BaseException:  # noqa: BLE001
        return {"code": None, "output": "", "exception": traceback.format_exc(), "memory": False}
    return {"code": 0, "output": "", "exception": None, "memory": False}


def _child(case: Corruption, root: Path, work: Path) -> dict[str, Any]:
    stages: dict[str, Any] = {}
    stages["validate"] = v = _cli(["data", "validate", "-b", case.bench, "-d", str(root)])
    if v["exception"] or v["code"] != 0:
        return stages
    run = work / "run"
    stages["eval"] = e = _cli(
        [
            "eval",
            "-b",
            case.bench,
            "-d",
            str(root),
            "-m",
            "baseline:random",
            "-o",
            str(run),
            "--no-progress",
            "--no-cache",
        ]
    )
    if e["exception"] or e["code"] != 0:
        return stages
    stages["score"] = s = _cli(["score", "-b", case.bench, "-d", str(root), "-p", str(run), "-o", str(work / "score")])
    if s["exception"] or s["code"] != 0:
        return stages
    stages["images"] = _encode_images(case.bench, root)
    return stages


def _limit_memory() -> None:
    try:
        import resource

        with open("/proc/self/status") as fh:
            vm = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))
        resource.setrlimit(resource.RLIMIT_AS, (vm + MEMORY_HEADROOM, resource.RLIM_INFINITY))
    except (ImportError, OSError, StopIteration, ValueError):
        pass  # not Linux: no limit, the timeout still applies


def run_case(case: Corruption, base: Path, timeout: float = 60.0) -> dict[str, Any]:
    """Build the release under ``base``, apply ``case`` and run the stages in a forked child.

    Returns ``{"stages": {...}}`` or ``{"hang": True}`` / ``{"signal": n}``.
    """
    root = build_release(base / "robot-eq")
    case.apply(root)
    work = base / "work"
    work.mkdir()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: never returns into pytest
        os.close(r)
        try:
            _limit_memory()
            result: dict[str, Any] = {"stages": _child(case, root, work)}
        except MemoryError:
            result = {
                "stages": {"harness": {"code": None, "output": "", "exception": traceback.format_exc(), "memory": True}}
            }
        except BaseException:  # noqa: BLE001
            result = {
                "stages": {
                    "harness": {"code": None, "output": "", "exception": traceback.format_exc(), "memory": False}
                }
            }
        data = json.dumps(result).encode("utf-8", "backslashreplace")
        view = memoryview(data)
        while view:
            n = os.write(w, view)
            view = view[n:]
        os.close(w)
        os._exit(0)
    os.close(w)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    hang = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            hang = True
            break
        ready, _, _ = select.select([r], [], [], left)
        if ready:
            chunk = os.read(r, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    os.close(r)
    if hang:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        return {"hang": True}
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return {"signal": os.WTERMSIG(status)}
    return json.loads(b"".join(chunks).decode("utf-8"))


def classify(case: Corruption, result: dict[str, Any]) -> tuple[str, str]:
    """``(verdict, detail)`` of one case's result (see the module docstring)."""
    if result.get("hang"):
        return "hang", "no result within the timeout"
    if "signal" in result:
        return "memory", f"killed by signal {result['signal']}"
    stages = result["stages"]
    for name, st in stages.items():
        if st["memory"]:
            return "memory", f"{name}: {st['exception'].strip().splitlines()[-1]}"
        if st["exception"]:
            return "traceback", f"{name}: {st['exception'].strip().splitlines()[-1]}"
    v = stages["validate"]
    if v["code"] != 0:
        text = v["output"].replace("\n", "")  # a console may wrap long paths
        if Path(case.target).name in text and "Traceback" not in text:
            return "clear", v["output"].strip().splitlines()[0] if v["output"].strip() else ""
        return "unclear", v["output"].strip()[:300]
    if case.bad:
        return "accepted_bad", "validate accepted a damaged folder"
    refused = [(n, st) for n, st in stages.items() if n != "validate" and st["code"] != 0]
    if refused:
        n, st = refused[0]
        return "accepted_bad", f"validate accepted but {n} exited {st['code']}: {st['output'].strip()[:200]}"
    return "accepted_ok", ""


def preload() -> None:
    """Import what the stages use, once, before forking (children then start fast)."""
    import tempfile

    import socialbench.benchmarks.roboteq.benchmark  # noqa: F401
    import socialbench.cli  # noqa: F401
    import socialbench.runner.run  # noqa: F401
    import socialbench.vision.images  # noqa: F401

    with tempfile.TemporaryDirectory() as tmp:  # imports what the commands load lazily
        root = build_release(Path(tmp) / "robot-eq")
        for bench in (BJ, SG):
            _cli(["data", "validate", "-b", bench, "-d", str(root)])


def run_corpus(base: Path, cases: tuple[Corruption, ...] = CORPUS, timeout: float = 60.0) -> dict[str, tuple[str, str]]:
    """Verdict of every case (each in its own folder under ``base``)."""
    preload()
    out = {}
    for case in cases:
        folder = base / case.name
        folder.mkdir(parents=True)
        out[case.name] = classify(case, run_case(case, folder, timeout))
    return out


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        verdicts = run_corpus(Path(tmp), timeout=float(os.environ.get("CORPUS_TIMEOUT", "60")))
    for name, (verdict, detail) in verdicts.items():
        print(f"{verdict:13} {name:40} {detail[:150]}")
    counts = Counter(v for v, _ in verdicts.values())
    print(f"cases {len(verdicts)}: " + ", ".join(f"{k} {counts.get(k, 0)}" for k in VERDICTS))
