"""Which official path read the replies, said under every table of runs scored with an
``official`` protocol: the official harness reads a reply one way for GPT (``json.loads`` of
the whole text) and another for Gemini and LLaVA (the ``{...}`` inside it), and the same
replies score differently under the two (``--protocol official`` | ``official-gemini``)."""

from __future__ import annotations

from collections.abc import Sequence

from socialbench.report.run_dir import RunDir

__all__ = ["parsing_notes"]


def parsing_notes(runs: Sequence[RunDir]) -> tuple[str, ...]:
    """One note per official protocol among ``runs`` (``Parsing (official): replies read as
    the official GPT path ...``); none for ``paper`` runs, whose replies socialbench's own
    parser reads."""
    from socialbench.metrics.protocols import OfficialProtocol, UnknownProtocolError, protocol_named

    groups: dict[str, list[str]] = {}
    for r in runs:
        groups.setdefault(r.protocol, []).append(r.label or r.path.name)
    notes = []
    for name, labels in groups.items():
        try:
            proto = protocol_named(name)
        except UnknownProtocolError:
            notes.append(f"Parsing of {', '.join(labels)}: protocol {name!r} is unknown to this version.")
            continue
        if isinstance(proto, OfficialProtocol):
            who = "" if len(groups) == 1 else f" of {', '.join(labels)}"
            notes.append(f"Parsing{who} ({name}): {proto.reading}.")
    return tuple(notes)
