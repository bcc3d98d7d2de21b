"""Snapshots of loaded datasets, so that a re-run skips parsing and checking its data folder.

A benchmark that lists :attr:`~socialbench.benchmarks.base.BaseBenchmark.snapshot_types` gets
its loaded dataset pickled into ``<render cache>/datasets/<key>.snapshot``; a later run with
the same key whose data folder and installed package are unchanged (same stat signature)
unpickles it instead. Key, signature and the racy window: README.md, "Render cache".
Snapshots are untrusted: only a regular file of bounded size is read, and
:class:`SnapshotUnpickler` resolves only the benchmark's listed types, so a tampered file
cannot run code. A snapshot that cannot be read or written is skipped: it only saves time.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import pickle
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from socialbench.errors import DataError
from socialbench.files.atomic_write import write_bytes_atomic
from socialbench.files.safe_read import file_kind, read_regular_bytes
from socialbench.records import json_digest
from socialbench.versions import installed_version

if TYPE_CHECKING:
    from socialbench.benchmarks.base import Benchmark, Dataset

log = logging.getLogger(__name__)

#: Bump when the snapshot file layout changes.
SNAPSHOT_FORMAT = "1"
#: Files modified less than this long before a load (ns) leave no snapshot (see the module
#: docstring): twice the coarsest common timestamp resolution (FAT's 2 s is the worst).
RACY_NS = 4_000_000_000
_FOLDER = "datasets"
_SUFFIX = ".snapshot"
_MAGIC = b"socialbench-dataset-snapshot\n"
#: Largest snapshot read (bytes); the release of SocialNav-SUB snapshots to a few MB.
MAX_SNAPSHOT_BYTES = 512 * 1024**2
#: Globals any snapshot may name besides the benchmark's types.
_PLAIN_GLOBALS: frozenset[tuple[str, str]] = frozenset(
    {
        ("pathlib", "PosixPath"),
        ("pathlib", "WindowsPath"),
        ("pathlib", "PurePosixPath"),
        ("pathlib", "PureWindowsPath"),
        ("builtins", "frozenset"),
        ("builtins", "set"),
    }
)


#: A warning the loader logged: (level, logger name, message), stored with a snapshot.
LoggedWarning = tuple[int, str, str]


class SnapshotRefused(Exception):
    """A snapshot names a global outside its allow-list."""


class SnapshotUnpickler(pickle.Unpickler):
    """Unpickler whose :meth:`find_class` resolves only ``allowed`` types (by module and
    qualified name) and :data:`_PLAIN_GLOBALS`."""

    def __init__(self, file: io.BufferedIOBase, allowed: Iterable[type]):
        super().__init__(file)
        self._allowed = {(t.__module__, t.__qualname__): t for t in allowed}

    def find_class(self, module: str, name: str) -> type:  # noqa: D401 - pickle API
        if (module, name) in self._allowed:
            return self._allowed[(module, name)]
        if (module, name) in _PLAIN_GLOBALS:
            found: type = super().find_class(module, name)  # every plain global is a class
            return found
        raise SnapshotRefused(f"the snapshot names {module}.{name}, which a loaded dataset never holds")

    def persistent_load(self, pid: object) -> NoReturn:
        raise SnapshotRefused("the snapshot holds a persistent id")


@dataclass(frozen=True)
class FolderSignature:
    """What :func:`folder_signature` found: ``digest`` of every entry's stat fields, and the
    newest modification or status-change time among them (ns since the epoch)."""

    digest: str
    newest_ns: int


def _walk(root: Path) -> Iterable[tuple[str, int, int, int, int]]:
    """(path relative to ``root``, size, mtime, ctime, inode) of ``root`` and everything
    under it, following links (a linked folder is entered once); ``__pycache__`` skipped.
    Raises OSError where a folder cannot be read."""
    st = root.stat()
    yield ".", st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino
    if not root.is_dir():
        return
    visited = {(st.st_dev, st.st_ino)}
    stack = [(str(root), "")]
    while stack:
        folder, rel = stack.pop()
        with os.scandir(folder) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.name == "__pycache__":
                    continue
                est = entry.stat()
                name = f"{rel}{entry.name}"
                yield name, est.st_size, est.st_mtime_ns, est.st_ctime_ns, est.st_ino
                if entry.is_dir() and (est.st_dev, est.st_ino) not in visited:
                    visited.add((est.st_dev, est.st_ino))
                    stack.append((entry.path, name + "/"))


def folder_signature(roots: Iterable[Path]) -> FolderSignature:
    """The :class:`FolderSignature` of the files and folders under ``roots`` (each a
    folder or a file). Raises OSError where one cannot be read."""
    h = hashlib.sha256()
    newest = 0
    for i, root in enumerate(roots):
        h.update(f"root {i}\0".encode())
        for name, size, mtime, ctime, ino in _walk(root):
            h.update(f"{name}\0{size}\0{mtime}\0{ctime}\0{ino}\n".encode("utf-8", "surrogateescape"))
            newest = max(newest, mtime, ctime)
    return FolderSignature(h.hexdigest(), newest)


def _environment() -> dict[str, str | None]:
    """The versions a loaded dataset may depend on beyond socialbench's own files."""
    import socialbench

    return {
        "python": sys.version,
        "socialbench": socialbench.__version__,
        **{pkg: installed_version(pkg) for pkg in ("pillow", "numpy")},
    }


def _package_folder() -> Path:
    import socialbench

    return Path(socialbench.__file__).resolve().parent


def snapshot_key(benchmark: Benchmark, data: Path, *, require_images: bool, limit: int | None) -> str:
    """The snapshot file's key (see the module docstring); ``data`` resolved by the caller."""
    doc = {
        "format": SNAPSHOT_FORMAT,
        "benchmark": benchmark.name,
        "identity": benchmark.load_identity(),
        "data": str(data),
        "require_images": require_images,
        "limit": limit,
        "environment": _environment(),
    }
    return json_digest(doc)


class _Captured(logging.Handler):
    """Keeps the warnings (and worse) logged while a dataset loads."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[LoggedWarning] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append((record.levelno, record.name, record.getMessage()))


def _load_capturing(load: Callable[[], Dataset]) -> tuple[Dataset, list[LoggedWarning]]:
    handler = _Captured()
    root = logging.getLogger("socialbench")
    root.addHandler(handler)
    try:
        return load(), handler.records
    finally:
        root.removeHandler(handler)


def _replay(records: list[LoggedWarning]) -> None:
    """Log again the warnings a load logged (from a snapshot, or captured while loading)."""
    for level, name, message in records:
        logging.getLogger(name).log(level, "%s", message)


class SnapshotStore:
    """The snapshots under ``<cache>/datasets``."""

    def __init__(self, cache: Path, racy_ns: int | None = None):
        self.folder = Path(cache) / _FOLDER
        self.racy_ns = RACY_NS if racy_ns is None else racy_ns

    def path(self, key: str) -> Path:
        return self.folder / f"{key}{_SUFFIX}"

    def read(
        self, key: str, signature: FolderSignature, allowed: Iterable[type]
    ) -> tuple[Dataset, list[LoggedWarning]] | None:
        """The dataset and log stored under ``key`` if its signature is ``signature``;
        None when there is none or it is stale. A file that is not a snapshot this version
        can use is logged as a warning and ignored."""
        path = self.path(key)
        if file_kind(path) == "missing":
            return None
        try:
            blob = read_regular_bytes(path, MAX_SNAPSHOT_BYTES)
        except DataError as exc:  # a FIFO, a device, a folder, too large, unreadable
            log.warning("dataset snapshot %s is unusable (%s); loading the data folder instead", path, exc)
            return None
        try:
            if not blob.startswith(_MAGIC):
                raise ValueError("it does not start with the snapshot header")
            head, _, body = blob[len(_MAGIC) :].partition(b"\n")
            meta = json.loads(head)
            if meta.get("signature") != signature.digest:
                return None  # the data (or socialbench) changed since it was written
            records = [(int(level), str(name), str(message)) for level, name, message in meta["log"]]
            dataset = SnapshotUnpickler(io.BytesIO(body), allowed).load()
        except Exception as exc:  # corrupt, tampered or from an incompatible version
            log.warning(
                "dataset snapshot %s is unusable (%s: %s); loading the data folder instead",
                path,
                type(exc).__name__,
                exc,
            )
            return None
        return dataset, records

    def write(self, key: str, signature: FolderSignature, dataset: Dataset, records: list[LoggedWarning]) -> bool:
        """Store ``dataset`` under ``key`` unless a signed file is racy (then, or when the
        folder cannot be written, nothing is stored). Returns whether it was stored."""
        if signature.newest_ns >= time.time_ns() - self.racy_ns:
            return False
        head = json.dumps({"signature": signature.digest, "log": records}, separators=(",", ":")).encode()
        try:
            body = pickle.dumps(dataset, protocol=pickle.HIGHEST_PROTOCOL)
            write_bytes_atomic(self.path(key), b"".join([_MAGIC, head, b"\n", body]))
        except (OSError, pickle.PicklingError, TypeError, AttributeError) as exc:
            log.debug("dataset snapshot %s not written: %s", self.path(key), exc)
            return False
        return True


@contextmanager
def loaded_dataset(
    benchmark: Benchmark,
    data: Path,
    *,
    require_images: bool,
    limit: int | None,
    cache: Path | None,
    racy_ns: int | None = None,
) -> Iterator[Dataset]:
    """``benchmark.load(data, ...)``, through a snapshot in ``cache`` where the benchmark lists
    :attr:`snapshot_types`. A new snapshot is written by a thread while the caller goes on
    with the dataset; the context waits for it on exit."""

    def load() -> Dataset:
        return benchmark.load(data, require_images=require_images, limit=limit)

    allowed = tuple(benchmark.snapshot_types)
    if cache is None or not allowed:
        yield load()
        return
    try:
        resolved = Path(data).resolve()
        signature = folder_signature([resolved, _package_folder()])
    except OSError:
        yield load()  # a missing or unreadable folder: the loader says what is wrong
        return
    store = SnapshotStore(cache, racy_ns)
    key = snapshot_key(benchmark, resolved, require_images=require_images, limit=limit)
    hit = store.read(key, signature, allowed)
    if hit is not None:
        dataset, records = hit
        _replay(records)
        yield dataset
        return
    dataset, records = _load_capturing(load)
    _replay(records)  # captured for the snapshot, and shown now as a load without one shows them
    writer = threading.Thread(target=store.write, args=(key, signature, dataset, records), name="socialbench-snapshot")
    writer.start()
    try:
        yield dataset
    finally:
        writer.join()
