"""Text from files or models reaches the terminal with control characters escaped (issue 29)."""

from __future__ import annotations

import pytest

from socialbench.messages import say, terminal_safe


def test_escape_sequences_are_written_as_escapes() -> None:
    assert terminal_safe("model \x1b]0;pwned\x07 \x1b[2J") == "model \\x1b]0;pwned\\x07 \\x1b[2J"


def test_bidirectional_overrides_are_written_as_escapes() -> None:
    assert terminal_safe("note \u202egnp.exe") == "note \\u202egnp.exe"


def test_new_lines_tabs_and_letters_are_kept() -> None:
    assert terminal_safe("a\tb\nc é ✓") == "a\tb\nc é ✓"


def test_say_escapes_a_model_name_with_terminal_sequences(capsys: pytest.CaptureFixture[str]) -> None:
    say("error: model \x1b[31mred\x1b[0m failed")
    assert "\x1b" not in capsys.readouterr().err


def _rendered(renderable: object) -> str:
    from rich.console import Console

    console = Console(width=200, force_terminal=True, color_system=None)
    with console.capture() as cap:
        console.print(renderable)
    return cap.get()


def test_table_text_shows_rich_markup_as_written() -> None:
    from socialbench.messages import table_text

    assert "[red]x[/]" in _rendered(table_text("[red]x[/]"))


def test_table_text_escapes_control_characters() -> None:
    from socialbench.messages import table_text

    shown = _rendered(table_text("m\x1b]0;pwned\x07"))
    assert "\x1b]0" not in shown and "\\x1b]0;pwned\\x07" in shown
