"""Load odometry pickles (``traj_data.pkl``) without running arbitrary code.

A pickle can name any importable callable and make the loader call it. The restricted
unpickler below resolves only the globals that numpy arrays, numpy scalars, dtypes and plain
containers need; anything else is refused with a :class:`DataError` naming the file and the
global, *before* it could be called. Never use ``pickle.load`` on dataset files.
"""

from __future__ import annotations

import _compat_pickle
import importlib
import io
import pickle
from pathlib import Path
from typing import Any

from socialbench.errors import DataError

# (module, name) pairs a numpy/container pickle may reference. numpy 1.x writes
# ``numpy.core.*``; numpy 2.x writes ``numpy._core.*``; both are accepted and resolved to
# whichever the installed numpy provides.
_NUMPY_CORE_GLOBALS = {
    ("multiarray", "_reconstruct"),
    ("multiarray", "scalar"),
    ("numeric", "_frombuffer"),
}
_ALLOWED: frozenset[tuple[str, str]] = frozenset(
    {(f"numpy.{core}.{mod}", name) for core in ("core", "_core")
     for mod, name in _NUMPY_CORE_GLOBALS}
    | {
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("collections", "OrderedDict"),
        ("builtins", "dict"),
        ("builtins", "list"),
        ("builtins", "tuple"),
        ("builtins", "set"),
        ("builtins", "frozenset"),
        ("builtins", "bytearray"),
        ("builtins", "bytes"),
        ("builtins", "complex"),
        # protocol-2 pickles written by Python 3 store bytes as _codecs.encode(str, "latin1")
        ("_codecs", "encode"),
    }
)


def _resolve(module: str, name: str) -> Any:
    if module.startswith(("numpy.core.", "numpy._core.")):
        tail = module.split(".", 2)[2]
        for candidate in (f"numpy._core.{tail}", f"numpy.core.{tail}"):
            try:
                return getattr(importlib.import_module(candidate), name)
            except (ImportError, AttributeError):
                continue
        raise AttributeError(f"{module}.{name}")
    return getattr(importlib.import_module(module), name)


class RestrictedUnpickler(pickle.Unpickler):
    """Unpickler whose :meth:`find_class` admits only the allow-listed globals."""

    def __init__(self, file: io.BufferedIOBase, label: str):
        super().__init__(file, encoding="latin1")  # latin1: Python 2 numpy pickles
        self._label = label

    def find_class(self, module: str, name: str) -> Any:  # noqa: D401 - pickle API
        # Python 2 names (protocol < 3), as the default find_class would map them
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        if (module, name) not in _ALLOWED:
            raise DataError.single(
                self._label,
                "",
                f"refused to load global {module}.{name!s} from a pickle; only numpy arrays "
                "and plain containers are allowed",
                "regenerate the file as a dict of numpy arrays, or do not trust this file",
            )
        try:
            return _resolve(module, name)
        except (ImportError, AttributeError) as exc:
            raise DataError.single(self._label, "", f"cannot resolve {module}.{name}: {exc}",
                                   "install a compatible numpy") from exc

    def persistent_load(self, pid: Any) -> Any:
        raise DataError.single(self._label, "", "persistent ids are not allowed in pickles",
                               "regenerate the file as a dict of numpy arrays")


def load_pickle_bytes(data: bytes, label: str = "<bytes>") -> Any:
    """Unpickle ``data`` with :class:`RestrictedUnpickler`; ``label`` names it in errors."""
    try:
        return RestrictedUnpickler(io.BytesIO(data), label).load()
    except DataError:
        raise
    except Exception as exc:  # truncated or corrupt streams raise many kinds of error
        raise DataError.single(label, "", f"cannot unpickle: {type(exc).__name__}: {exc}",
                               "replace the file with an intact copy") from exc


def load_pickle_safely(path: Path | str) -> Any:
    """Load a pickle file, refusing every global outside the numpy/container allow-list."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise DataError.single(str(p), "", f"cannot read file: {exc}",
                               "check that the file exists and is readable") from exc
    return load_pickle_bytes(data, str(p))
