"""YAML that says when a key is written twice: PyYAML's safe loader keeps the last value of
a repeated mapping key without a word, so a plan with ``method: [cot]`` and, further down,
``method: [independent]`` ran only the second (and a camera file's second ``camera_height``
won). :class:`UniqueKeyLoader` refuses it instead (:class:`DuplicateKeyError`, naming the key
and both lines); every YAML file socialbench reads goes through it (:func:`load_yaml`).
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import MappingNode

__all__ = ["DuplicateKeyError", "UniqueKeyLoader", "load_yaml", "yaml_error_text"]

_MERGE_TAG = "tag:yaml.org,2002:merge"


class DuplicateKeyError(yaml.YAMLError):
    """A mapping key written twice: the key, and the lines (from 1) of its first and second
    occurrence."""

    def __init__(self, key: object, first_line: int, second_line: int) -> None:
        self.key = key
        self.first_line = first_line
        self.second_line = second_line
        super().__init__(
            f"line {second_line}: key {key!r} is written twice (lines {first_line} and {second_line}); "
            "keep one of them (YAML would silently keep only the last)"
        )


class UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a mapping that repeats a key (:class:`DuplicateKeyError`).
    Merge keys (``<<: *base``) keep their meaning: a key they bring in may be overridden."""

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, MappingNode):
            seen: dict[object, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == _MERGE_TAG:
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.get(key)
                except TypeError:  # an unhashable key: the base loader refuses it itself
                    continue
                line = key_node.start_mark.line + 1
                if first is not None:
                    raise DuplicateKeyError(key, first, line)
                seen[key] = line
        return super().construct_mapping(node, deep)


def load_yaml(text: str, loader: type[UniqueKeyLoader] = UniqueKeyLoader) -> Any:
    """The YAML document ``text`` read safely, a repeated key refused (:class:`DuplicateKeyError`,
    a :class:`yaml.YAMLError`)."""
    return yaml.load(text, Loader=loader)  # noqa: S506 - a SafeLoader subclass


def yaml_error_text(exc: yaml.YAMLError) -> str:
    """One line saying what is wrong with the YAML, with its line when known:
    ``line 4: key 'method' is written twice ...`` or ``line 3: expected ',' or ']'``."""
    if isinstance(exc, DuplicateKeyError):
        return str(exc)
    mark = getattr(exc, "problem_mark", None)
    where = f"line {mark.line + 1}: " if mark is not None else ""
    what = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return f"{where}{what}"
