"""``socialbench export inspect`` without the ``inspect`` extra: a usage error naming the fix."""

from __future__ import annotations

import importlib.util

import pytest

from socialbench.cli import main


def test_export_inspect_without_inspect_ai_names_the_extra(tmp_path, monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "inspect_ai" else real(name, *a))
    with pytest.raises(SystemExit) as exc:
        main(["export", "inspect", str(tmp_path), "--out", str(tmp_path / "run.eval")])
    assert exc.value.code != 0
    assert "pip install 'socialbench[inspect]'" in capsys.readouterr().err
