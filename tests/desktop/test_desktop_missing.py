"""`spyglass desktop` where pywebview is not installed (the default install): exit 2 and a
message naming what to install, before any window, port or index."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.mark.skipif(importlib.util.find_spec("webview") is not None,
                    reason="pywebview is installed here: the window would open")
def test_desktop_without_pywebview_names_the_extra(make_repo: Callable[..., Path]) -> None:
    root = make_repo({"a.py": "def f():\n    return 1\n"})
    run = subprocess.run([sys.executable, "-m", "spyglass", "-C", str(root), "desktop"],
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 2
    assert "spyglass[desktop]" in run.stderr and "gir1.2-webkit2-4.1" in run.stderr
    assert not (root / ".spyglass").exists()  # nothing was started or written
