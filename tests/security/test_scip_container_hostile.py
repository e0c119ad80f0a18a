"""Hostile repositories against the SCIP export and the container sandbox: a manifest that
is a link out of the root, an oversized or malformed one, a name made to break the symbol
grammar; a repository policy naming `[sandbox]` (docs/security.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture import write_files

from spyglass.config import ConfigError, load_config
from spyglass.index.scip import parse
from spyglass.query.facade import CodeIntel

CODE = {"pkg/mod.py": "def f():\n    return 1\n\n\ndef g():\n    return f()\n"}


def _export(root: Path, tmp_path: Path) -> dict[str, list[str]]:
    ci = CodeIntel(root)
    ci.index()
    out = tmp_path / "out.scip"
    ci.export_scip(out)
    _, docs = parse(out.read_bytes())
    return {p: [o.symbol for o in occs] for p, occs in docs.items()}


def test_a_manifest_linking_out_of_the_root_is_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "outside.toml"
    secret.write_text('[project]\nname = "stolen-secret"\nversion = "9"\n')
    root = tmp_path / "repo"
    write_files(root, CODE)
    (root / "pyproject.toml").symlink_to(secret)
    symbols = _export(root, tmp_path)["pkg/mod.py"]
    assert symbols and all(s.startswith("spyglass python . . ") for s in symbols)
    assert not any("stolen" in s for s in symbols)


@pytest.mark.parametrize("manifest", [
    "[project\nname = ",  # malformed
    '[project]\nname = "x"\n' + "# pad\n" * 300_000,  # over the 1 MiB manifest limit
    '[project]\nname = 7\nversion = ["1"]\n',  # wrong types
])
def test_bad_manifests_give_an_empty_package(manifest: str, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_files(root, {**CODE, "pyproject.toml": manifest})
    symbols = _export(root, tmp_path)["pkg/mod.py"]
    assert symbols and all(s.startswith("spyglass python . . ") for s in symbols)


def test_a_name_made_to_break_the_grammar_stays_one_field(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_files(root, {**CODE, "pyproject.toml":
                       '[project]\nname = "a b local x"\nversion = "1 2"\n'})
    symbols = _export(root, tmp_path)["pkg/mod.py"]
    # spaces doubled: the package stays three fields, the descriptors unchanged
    assert "spyglass python a  b  local  x 1  2 mod/f()." in symbols  # pkg/ has no __init__


def test_a_repository_cannot_choose_the_sandbox(tmp_path: Path) -> None:
    host = tmp_path / "host.toml"
    host.write_text('[sandbox]\nruntime = "podman"\nimage = "localhost/lsp:1"\n')
    root = tmp_path / "repo"
    root.mkdir()
    for table in ('[sandbox]\nruntime = "bubblewrap"\n', '[sandbox]\nnetwork = "host"\n',
                  '[sandbox]\nimage = "evil/image"\n', '[sandbox]\ngroups = ["x"]\n'):
        (root / "spyglass.toml").write_text(table)
        with pytest.raises(ConfigError, match="may only narrow"):
            load_config(host, root)
    (root / "spyglass.toml").unlink()
    assert load_config(host, root).sandbox.image == "localhost/lsp:1"
