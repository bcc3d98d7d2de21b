"""Load odometry pickles (``traj_data.pkl``) without running arbitrary code.

A pickle can name any importable callable and make the loader call it. The restricted
unpickler below resolves only the globals that numpy arrays, numpy scalars, dtypes and plain
containers need; anything else is refused with a :class:`DataError` naming the file and the
global, *before* it could be called. Never use ``pickle.load`` on dataset files.

Sizes are bounded too: the file may hold at most :data:`MAX_PICKLE_BYTES`, and the globals
that can allocate from a small argument (``bytes``/``bytearray`` of an integer, an
``ndarray`` of a given shape) are wrapped so that one pickle allocates at most
:data:`MAX_ALLOCATION` bytes through them; ``bytes(n)``/``bytearray(n)`` of an integer and
``complex`` (which odometry never contains) are refused outright.
"""

from __future__ import annotations

import _compat_pickle
import importlib
import io
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from socialbench.errors import DataError

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

# (module, name) pairs a numpy/container pickle may reference. numpy 1.x writes
# ``numpy.core.*``; numpy 2.x writes ``numpy._core.*``; both are accepted and resolved to
# whichever the installed numpy provides.
_NUMPY_CORE_GLOBALS = {
    ("multiarray", "_reconstruct"),
    ("multiarray", "scalar"),
    ("numeric", "_frombuffer"),
}
_ALLOWED: frozenset[tuple[str, str]] = frozenset(
    {(f"numpy.{core}.{mod}", name) for core in ("core", "_core") for mod, name in _NUMPY_CORE_GLOBALS}
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
        # protocol-2 pickles written by Python 3 store bytes as _codecs.encode(str, "latin1")
        ("_codecs", "encode"),
    }
)


#: Largest odometry pickle read (bytes); a release's traj_data.pkl is well under 1 MB.
MAX_PICKLE_BYTES = 64 * 1024**2
#: Most bytes one pickle may allocate through bytes/bytearray/ndarray calls.
MAX_ALLOCATION = 256 * 1024**2


class _Budget:
    """Bytes one unpickling may still allocate through the wrapped globals."""

    def __init__(self, label: str, limit: int = MAX_ALLOCATION):
        self.label, self.left = label, limit

    def take(self, n: int, what: str) -> None:
        if n < 0 or n > self.left:
            raise DataError.single(
                self.label,
                "",
                f"the pickle asks for {n} bytes through {what}, more than "
                f"odometry needs (limit {MAX_ALLOCATION} in all)",
                "regenerate the file as a dict of numpy arrays, or do not trust this file",
            )
        self.left -= n


def _nbytes(shape: object, dtype: DTypeLike | None) -> int:
    """Bytes of an array of ``shape`` and ``dtype`` (-1 if ``shape`` is not a shape)."""
    import numpy as np

    dims = shape if isinstance(shape, (tuple, list)) else (shape,)
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in dims):
        return -1
    size = 1
    for d in dims:
        size *= d
    try:
        itemsize = np.dtype(dtype).itemsize if dtype is not None else 8
    except (TypeError, ValueError):
        itemsize = 8
    return size * max(itemsize, 1)


def _bounded(fn: Callable[..., object], name: str, budget: _Budget) -> Callable[..., object]:
    """``fn`` wrapped so that it never allocates beyond ``budget``."""
    if name in ("bytes", "bytearray"):

        def make_bytes(*args: object) -> object:
            source = args[0] if args else b""
            if not isinstance(source, (str, bytes, bytearray)):
                raise DataError.single(
                    budget.label,
                    "",
                    f"refused {name}() of a {type(source).__name__} in a pickle; odometry never builds one",
                    "regenerate the file",
                )
            budget.take(len(source), name)
            return fn(*args)

        return make_bytes
    if name == "_reconstruct":

        def reconstruct(subtype: object, shape: object, dtype: object) -> object:
            budget.take(_nbytes(shape, None), "numpy _reconstruct")
            return fn(getattr(subtype, "wrapped", subtype), shape, dtype)

        return reconstruct
    if name == "ndarray":

        def ndarray(shape: object, dtype: DTypeLike = float, *args: object, **kwargs: object) -> object:
            budget.take(_nbytes(shape, dtype), "numpy.ndarray")
            return fn(shape, dtype, *args, **kwargs)

        ndarray.wrapped = fn  # type: ignore[attr-defined]  # _reconstruct needs the class
        return ndarray
    return fn


def _resolve(module: str, name: str) -> Callable[..., object]:
    """The allow-listed global ``module.name`` (every one is a class or a function)."""
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
        self._budget = _Budget(label)

    def find_class(self, module: str, name: str) -> Callable[..., object]:  # noqa: D401 - pickle API
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
            return _bounded(_resolve(module, name), name, self._budget)
        except (ImportError, AttributeError) as exc:
            raise DataError.single(
                self._label, "", f"cannot resolve {module}.{name}: {exc}", "install a compatible numpy"
            ) from exc

    def persistent_load(self, pid: object) -> NoReturn:
        raise DataError.single(
            self._label,
            "",
            "persistent ids are not allowed in pickles",
            "regenerate the file as a dict of numpy arrays",
        )


def load_pickle_bytes(data: bytes, label: str = "<bytes>") -> object:
    """Unpickle ``data`` with :class:`RestrictedUnpickler`; ``label`` names it in errors. The
    result is untrusted: the caller checks its shape."""
    try:
        return RestrictedUnpickler(io.BytesIO(data), label).load()
    except DataError:
        raise
    except MemoryError:
        raise DataError.single(
            label, "", "the pickle needs more memory than is available", "regenerate the file as a dict of numpy arrays"
        ) from None
    except RecursionError:
        raise DataError.single(
            label, "", "the pickle is nested too deeply", "regenerate the file as a dict of numpy arrays"
        ) from None
    except Exception as exc:  # truncated or corrupt streams raise many kinds of error
        raise DataError.single(
            label, "", f"cannot unpickle: {type(exc).__name__}: {exc}", "replace the file with an intact copy"
        ) from exc


def load_pickle_safely(path: Path | str) -> object:
    """Load a pickle file, refusing every global outside the numpy/container allow-list."""
    from socialbench.files.safe_read import read_regular_bytes

    p = Path(path)
    return load_pickle_bytes(read_regular_bytes(p, MAX_PICKLE_BYTES), str(p))
