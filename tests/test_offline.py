"""The suite installs and downloads nothing: corpora and system packages come from
`scripts/bootstrap.sh --corpora` before pytest starts (tests/corpora.py)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from corpora import fetch_module

TESTS = Path(__file__).resolve().parent
INSTALLS = re.compile(r"apt-get|\"install\"|pip install|npm (pack|install)|urlopen|curl |wget ")


def test_fetching_inside_the_suite_never_downloads(tmp_path: Path) -> None:
    module = fetch_module()
    with pytest.raises(module.FetchError, match=r"bootstrap\.sh --corpora"):
        module.fetch("flask", dest=tmp_path)  # not in this empty cache
    assert not any(tmp_path.iterdir())


def test_no_test_installs_or_downloads() -> None:
    found = [f"{p.relative_to(TESTS)}:{n}" for p in TESTS.rglob("*.py") if p != Path(__file__)
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if INSTALLS.search(line)]
    assert found == []


def test_go_corpora_are_installed_by_bootstrap_not_by_the_fetcher() -> None:
    source = (TESTS.parent / "scripts" / "fetch_corpus.py").read_text(encoding="utf-8")
    assert "apt-get" not in source.split('"""', 2)[2]  # only its docstring mentions it
    bootstrap = (TESTS.parent / "scripts" / "bootstrap.sh").read_text(encoding="utf-8")
    assert "--debian-packages" in bootstrap and "fetch_corpus.py --tests" in bootstrap


def test_a_debian_source_tarball_is_refused_offline_and_its_mirror_read_from_apt(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = fetch_module()
    assert module.CORPORA["jawn"].kind == "debsrc" and len(module.CORPORA["jawn"].sha256) == 64
    monkeypatch.setenv(module.OFFLINE_ENV, "1")
    with pytest.raises(module.FetchError, match=r"bootstrap\.sh --corpora"):
        module.fetch("jawn", dest=tmp_path / "cache")
    # the archive apt fetches from: a one-line `.list` or a deb822 `.sources`, never a
    # security archive; $DEBIAN_MIRROR first
    monkeypatch.delenv(module.MIRROR_ENV, raising=False)
    (tmp_path / "a.list").write_text(
        "# deb http://old.invalid/debian bookworm main\n"
        "deb http://security.invalid/debian-security bookworm-security main\n"
        "deb [arch=amd64] http://one.invalid/debian/ bookworm main\n")
    assert module.debian_mirror((tmp_path / "a.list",)) == "http://one.invalid/debian"
    (tmp_path / "b.sources").write_text(
        "Types: deb\nURIs: http://security.invalid/debian-security\nSuites: bookworm-security\n"
        "\nTypes: deb deb-src\nURIs: http://two.invalid/debian\nSuites: bookworm\n")
    assert module.debian_mirror((tmp_path / "b.sources",)) == "http://two.invalid/debian"
    with pytest.raises(module.FetchError, match="DEBIAN_MIRROR"):
        module.debian_mirror((tmp_path / "missing.list",))
    monkeypatch.setenv(module.MIRROR_ENV, "http://three.invalid/debian/")
    assert module.debian_mirror((tmp_path / "a.list",)) == "http://three.invalid/debian"


def test_a_pinned_archive_with_another_sha256_is_refused(tmp_path: Path) -> None:
    module = fetch_module()
    pinned = module.CORPORA["prosemirror_view"]
    assert pinned.kind == "npm" and len(pinned.sha256) == 64
    archive = tmp_path / "package.tgz"
    archive.write_bytes(b"not the pinned tarball")
    with pytest.raises(module.FetchError, match="pinned one is " + pinned.sha256):
        module._check_sha256(pinned, archive)
    same = module.Corpus("x", "npm", "x", "1", "x-1",
                         sha256=hashlib.sha256(archive.read_bytes()).hexdigest())
    module._check_sha256(same, archive)  # the pinned digest: accepted
