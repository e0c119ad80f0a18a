"""Skip rules (docs/indexing.md "Skip rules"): tracked source is indexed unless a visible,
changeable rule skips it; vendored trees stay skipped by default and are reported."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from spyglass.config import ConfigError, load_config
from spyglass.query.facade import CodeIntel
from spyglass.query.results import StatusReport

MakeRepo = Callable[..., Path]
FILES = {
    "src/build/steps.py": "def build_step():\n    return 1\n",
    "src/target/aim.py": "def aim():\n    return 2\n",
    "vendor/lib/util.py": "def vendored():\n    return 3\n",
    "vendor/keep/mine.py": "def kept():\n    return 4\n",
    "app.py": "from src.build.steps import build_step\n\nbuild_step()\n",
}


def _names(ci: CodeIntel) -> set[str]:
    return {r.symbol.rsplit(".", 1)[-1] for r in ci.find_symbol("*").results}  # type: ignore[attr-defined]


def _status(ci: CodeIntel) -> StatusReport:
    report = ci.status().results[0]
    assert isinstance(report, StatusReport)
    return report


def _open(root: Path, host: str = "") -> CodeIntel:
    cfg = root.parent / "host.toml"
    cfg.write_text(host)
    ci = CodeIntel(root)
    ci.config = load_config(cfg, repo_root=root)
    return ci


def test_tracked_build_folders_are_source_and_vendor_is_skipped_visibly(
        make_repo: MakeRepo) -> None:
    root = make_repo(FILES)
    ci = _open(root)
    ci.index()
    names = _names(ci)
    assert {"build_step", "aim"} <= names  # tracked src/build/ and src/target/: source
    assert not {"vendored", "kept"} & names
    reasons = dict(_status(ci).skipped_by_reason)
    assert reasons.get("skipped directory vendor/ ([index] skip_dirs)") == 2


def test_untracked_build_output_stays_skipped(make_repo: MakeRepo) -> None:
    root = make_repo(FILES)
    (root / "build").mkdir()
    (root / "build" / "gen.py").write_text("def generated_output():\n    return 5\n")
    ci = _open(root)
    ci.index()
    assert "generated_output" not in _names(ci)  # the overlay does not take it either


def test_plain_folder_skips_build_output(make_repo: MakeRepo) -> None:
    root = make_repo({**FILES, "build/out.py": "def out():\n    pass\n"}, git=False)
    ci = _open(root)
    ci.index()
    names = _names(ci)
    assert "out" not in names and "build_step" not in names  # not tracked: build output
    reasons = dict(_status(ci).skipped_by_reason)
    assert any("untracked_skip_dirs" in r for r in reasons)


def test_repository_rules_change_what_is_indexed(make_repo: MakeRepo) -> None:
    root = make_repo({**FILES, "spyglass.toml": '[index]\ninclude = ["vendor/keep/**"]\n'})
    ci = _open(root)
    ci.index()
    names = _names(ci)
    assert "kept" in names and "vendored" not in names


def test_host_rules_apply_and_a_changed_rule_relists_the_same_commit(
        make_repo: MakeRepo) -> None:
    root = make_repo(FILES)
    ci = _open(root)
    first = ci.index()
    assert "vendored" not in _names(ci)
    ci = _open(root, "[index]\nskip_dirs = []\n")
    second = ci.index()
    assert second.id != first.id and second.parsed > 0  # not served from the old listing
    assert {"vendored", "kept"} <= _names(ci)


def test_untracked_file_under_an_included_folder_is_followed(make_repo: MakeRepo) -> None:
    root = make_repo({**FILES, "spyglass.toml": '[index]\ninclude = ["vendor/keep/**"]\n'})
    ci = _open(root)
    ci.index()
    (root / "vendor" / "keep" / "new.py").write_text("def fresh_one():\n    pass\n")
    (root / "vendor" / "lib" / "new.py").write_text("def fresh_two():\n    pass\n")
    names = _names(ci)
    assert "fresh_one" in names and "fresh_two" not in names


@pytest.mark.parametrize("text, message", [
    ("[index]\nskip_dirs = 'vendor'\n", "skip_dirs must be a list"),
    ("[index]\nskip_dirs = ['a/b']\n", "folder names, not paths"),
    ("[index]\ninclude = [1]\n", "include must be a list"),
    ("[index]\nexclude = ['x']\n", "unknown keys: exclude"),
    ("index = 3\n", "[index] must be a table"),
])
def test_bad_rules_are_refused_with_the_reason(tmp_path: Path, text: str, message: str) -> None:
    cfg = tmp_path / "host.toml"
    cfg.write_text(text)
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_config(cfg)
    root = tmp_path / "repo"
    root.mkdir()
    (root / "spyglass.toml").write_text(text)
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_config(None, repo_root=root)
