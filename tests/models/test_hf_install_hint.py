"""Without torch, ``hf:`` says to install torch first, then the extra (as the README does):
left to pip, the extra's torch requirement pulls a CUDA build of several GB."""

import sys

import pytest

from socialbench.errors import UsageError
from socialbench.models.hf_checkpoint import load_checkpoint


def test_missing_torch_says_to_install_torch_before_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(UsageError) as info:
        load_checkpoint(str(tmp_path), "hf:x", "cpu", "float32", {}, None)
    text = str(info.value)
    assert text.index("install torch first") < text.index("pip install 'socialbench[hf]'")
