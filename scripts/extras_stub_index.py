"""Write a local package index of metadata-only wheels, for checking with pip's resolver,
offline and without installing anything, that socialbench's extras resolve together
(scripts/check_extras_resolve.sh).

The index holds:

* ``socialbench`` itself (version ``<pyproject version>+stub``): the dependencies and
  extras of pyproject.toml, as its wheel's ``Requires-Dist`` would have them;
* ``vllm`` at the releases in :data:`VLLM_RELEASES`, each requiring what that release
  pins (its own requirements files, copied here by hand: change them when a release
  changes them);
* every other package named by those requirements, at the versions where a range of
  socialbench or of vLLM begins or ends (each bound, and just below each upper bound), so
  that pip finds a version for a name exactly when the ranges on that name intersect.

The stubs have no dependencies of their own: the index checks socialbench's declared ranges
against each other and against vLLM's pins, not the third-party packages' own requirements
(``--online`` in the shell script checks those against PyPI).

Usage: python scripts/extras_stub_index.py DIR   (Python >= 3.11: tomllib; prints the stub socialbench version)
"""

from __future__ import annotations

import sys
import zipfile
from collections import defaultdict
from pathlib import Path

import tomllib
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

#: vLLM releases -> (Requires-Python, the pins that matter to socialbench's extras). 0.34.0:
#: issue 42 (read from vLLM 0.34.0's requirements/common.txt and cuda.txt).
VLLM_RELEASES: dict[str, tuple[str, tuple[str, ...]]] = {
    "0.34.0": (">=3.11", ("transformers<5.23", "fastapi<0.137", "torch==2.14.0")),
}

ROOT = Path(__file__).resolve().parent.parent


def _below(version: Version) -> str:
    """A version just below ``version`` (``5.23`` -> ``5.22.9999``, ``1`` -> ``0.9999``)."""
    release = list(version.release)
    while release and release[-1] == 0:
        release.pop()
    if not release:
        return "0"
    release[-1] -= 1
    return ".".join(str(p) for p in [*release, 9999])


def _wheel(folder: Path, name: str, version: str, requires: list[str], python: str | None = None) -> None:
    """A wheel holding only its metadata."""
    stem = f"{canonicalize_name(name).replace('-', '_')}-{version}"
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    if python:
        lines.append(f"Requires-Python: {python}")
    extras = sorted({r.split("extra == ")[1].strip("'\" ") for r in requires if "extra == " in r})
    lines += [f"Provides-Extra: {e}" for e in extras] + [f"Requires-Dist: {r}" for r in requires]
    info = f"{stem}.dist-info"
    files = {
        f"{info}/METADATA": "\n".join(lines) + "\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: socialbench-stub\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[f"{info}/RECORD"] = "".join(f"{path},,\n" for path in [*files, f"{info}/RECORD"])
    with zipfile.ZipFile(folder / f"{stem}-py3-none-any.whl", "w") as zf:
        for path, text in files.items():
            zf.writestr(path, text)


def main(argv: list[str]) -> int:
    folder = Path(argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    version = f"{project['version']}+stub"
    requires = list(project["dependencies"])
    for extra, reqs in project["optional-dependencies"].items():
        requires += [f"{r}; extra == '{extra}'" for r in reqs]
    _wheel(folder, project["name"], version, requires, project.get("requires-python"))
    bounds: dict[str, set[str]] = defaultdict(set)
    all_reqs = [Requirement(r.split(";")[0]) for r in requires]
    for release, (python, pins) in VLLM_RELEASES.items():
        _wheel(folder, "vllm", release, list(pins), python)
        all_reqs += [Requirement(p) for p in pins]
    for req in all_reqs:
        if canonicalize_name(req.name) == "vllm":
            continue
        found = bounds[canonicalize_name(req.name)]
        for spec in req.specifier:
            v = Version(spec.version.rstrip(".*"))
            found.add(str(v))
            if spec.operator in ("<", "<="):
                found.add(_below(v))
        if not req.specifier:
            found.add("1.0")
    for name, versions in sorted(bounds.items()):
        for v in sorted(versions, key=Version):
            _wheel(folder, name, v, [])
    print(version)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
