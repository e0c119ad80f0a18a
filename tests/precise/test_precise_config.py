"""`[precise]` in the host config (docs/precise.md): values checked, `SPYGLASS_PRECISE=off`
turns "auto" off for a process, never an explicit `true`; a repository cannot set it."""

from __future__ import annotations

from pathlib import Path

import pytest

from spyglass.config import ConfigError, load_config


def _load(tmp_path: Path, text: str) -> object:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return load_config(path).precise


def test_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SPYGLASS_PRECISE", raising=False)
    got = _load(tmp_path, "[precise]\nenabled = true\ntimeout_s = 60\nmemory_mb = 512\n"
                          "nice = 5\ntools = '/opt/t'\n")
    assert (got.enabled, got.timeout_s, got.memory_mb, got.nice, got.tools) == \
        ("true", 60, 512, 5, "/opt/t")  # type: ignore[attr-defined]
    assert _load(tmp_path, "").enabled == "auto"  # type: ignore[attr-defined]
    assert _load(tmp_path, "[precise]\nenabled = false\n").enabled == "false"  # type: ignore[attr-defined]
    for bad in ("enabled = 'yes'", "timeout_s = 0", "nice = 40", "memory_mb = true",
                "tools = 3", "bogus = 1"):
        with pytest.raises(ConfigError, match=r"\[precise\]"):
            _load(tmp_path, f"[precise]\n{bad}\n")


def test_the_environment_turns_auto_off_only(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPYGLASS_PRECISE", "off")
    assert _load(tmp_path, "").enabled == "false"  # type: ignore[attr-defined]
    assert _load(tmp_path, "[precise]\nenabled = true\n").enabled == "true"  # type: ignore[attr-defined]


def test_a_repository_cannot_set_it(tmp_path: Path) -> None:
    (tmp_path / "spyglass.toml").write_text("[precise]\nenabled = true\n")
    (tmp_path / "host.toml").write_text("")
    with pytest.raises(ConfigError, match="a repository may only narrow"):
        load_config(tmp_path / "host.toml", repo_root=tmp_path)
