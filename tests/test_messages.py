"""Messages on stderr are written whole: no wrapping at any width, no markup."""

from socialbench.messages import say


def test_a_long_message_stays_one_line(capsys):
    text = "/" + "/".join(["a-folder-name-that-is-long"] * 20) + "/samples.jsonl: [field] bad (fix: x)"
    say(text)
    assert capsys.readouterr().err == text + "\n"
