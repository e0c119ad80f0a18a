"""Hostile git repositories for the security suite: every way a repository's configuration
could make git run a program, each armed with a canary command (docs/security.md, "Git")."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fixture import write_files as write

SH = shutil.which("sh") or "/bin/sh"
TOUCH = shutil.which("touch") or "/usr/bin/touch"
CAT = shutil.which("cat") or "/bin/cat"
NAME = "hostile"  # every scenario repository (and its control copy) has this folder name

M_V1 = "def one():\n    return 1\n\n\ndef two():\n    return 2\n"
M_V2 = "def one():\n    return 1\n\n\ndef two():\n    return 3\n"
M_EDIT = "def one():\n    return 1\n\n\ndef two():\n    return 22\n"  # the working-tree edit
FILES = {
    "pkg/__init__.py": "",
    "pkg/m.py": M_V1,
    "tests/test_m.py": "from pkg.m import two\n\n\ndef test_two():\n    assert two() == 3\n",
    "README.md": "# demo\n",
}


def plain_env(home: Path) -> dict[str, str]:
    """A trusting git environment (the attacker's, and the control's): ordinary PATH."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e", "LC_ALL": "C"}


def git(root: Path, *args: str, check: bool = True, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["git", *args], cwd=root,
                          env={**plain_env(root.parent / "home"), **(env or {})},
                          capture_output=True, text=True, check=False, timeout=60,
                          stdin=subprocess.DEVNULL)
    if check:
        assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc


def base_repo(root: Path, attributes: str | None = None) -> Path:
    """Two commits (pkg/m.py's `two` changes between them), an optional committed
    .gitattributes, and an edit of `two` in the working tree. No hostile config yet."""
    root.mkdir(parents=True)
    (root.parent / "home").mkdir(exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    write(root, FILES)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "v1")
    write(root, {"pkg/m.py": M_V2, **({".gitattributes": attributes} if attributes else {})})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "v2")
    write(root, {"pkg/m.py": M_EDIT})
    return root


def partial_clone(root: Path) -> Path:
    """A `--filter=blob:none` clone of a bare repository: HEAD's blobs are present (checked
    out), HEAD~1's version of pkg/m.py is not."""
    origin = base_repo(root.parent / "origin")
    git(origin, "checkout", "-q", "--", ".")
    bare = root.parent / "bare.git"
    git(root.parent, "clone", "-q", "--bare", str(origin), str(bare))
    git(bare, "config", "uploadpack.allowFilter", "true")
    git(root.parent, "clone", "-q", "--filter=blob:none", f"file://{bare}", str(root))
    missing = git(root, "rev-list", "--objects", "--no-walk", "--missing=print", "HEAD~1").stdout
    assert "?" in missing, "the partial clone lacks no blob: the scenario would not be armed"
    write(root, {"pkg/m.py": M_EDIT})
    return root


@dataclass(frozen=True)
class Scenario:
    """A hostile repository: how to arm it, and the plain git command (run in a copy) that
    proves the arming fires its canary — None when git fires it only in situations a test
    cannot stage cheaply (an HTTP server asking for credentials)."""

    name: str
    arm: Callable[[Path, Path], None]  # (repository, canary file)
    control: tuple[str, ...] | None
    partial: bool = False
    attributes: str | None = None
    environ: tuple[tuple[str, str], ...] = ()  # spyglass's own environment ("CANARY" filled)
    tty: bool = False  # the control needs a terminal (git pages only to one)

    def environment(self, canary: Path) -> dict[str, str]:
        return {k: v.replace("CANARY", str(canary)) for k, v in self.environ}


def script(path: Path, canary: Path) -> str:
    path.write_text(f"#!{SH}\n{TOUCH} {canary}\nexit 0\n")
    path.chmod(0o755)
    return str(path)


def _filter(kind: str, source: str) -> Callable[[Path, Path], None]:
    def arm(root: Path, canary: Path) -> None:
        cmd = f"{TOUCH} {canary}" + ("" if kind == "process" else f"; {CAT}")
        git(root, "config", f"filter.evil.{kind}", cmd)
        git(root, "config", "filter.evil.required", "true")
        if source == "info":
            (root / ".git" / "info").mkdir(exist_ok=True)
            (root / ".git" / "info" / "attributes").write_text("*.py filter=evil\n")
        elif source == "attributesfile":
            attrs = root.parent / "attrs"
            attrs.write_text("*.py filter=evil\n")
            git(root, "config", "core.attributesFile", str(attrs))
    return arm


def _racy(root: Path, canary: Path) -> None:
    _filter("clean", "gitattributes")(root, canary)
    stamp = os.stat(root / ".git" / "index").st_mtime
    os.utime(root / "tests" / "test_m.py", (stamp, stamp))  # racily clean, content unchanged


def _transport(kind: str) -> Callable[[Path, Path], None]:
    def arm(root: Path, canary: Path) -> None:
        if kind == "ext":
            git(root, "config", "remote.origin.url", f"ext::{SH} -c {TOUCH}% {canary}")
            git(root, "config", "protocol.ext.allow", "always")
        elif kind == "ext-include":
            git(root, "config", "remote.origin.url", f"ext::{SH} -c {TOUCH}% {canary}")
            inc = root.parent / "evil.cfg"
            inc.write_text('[protocol "ext"]\n\tallow = always\n')
            git(root, "config", "include.path", str(inc))
        elif kind == "file":
            git(root, "config", "protocol.file.allow", "always")
            git(root, "config", "remote.origin.uploadpack", f"{TOUCH} {canary}; exit 1;")
        elif kind == "ssh":
            git(root, "config", "remote.origin.url", "ssh://spyglass.invalid/repo.git")
            git(root, "config", "protocol.ssh.allow", "always")
            git(root, "config", "core.sshCommand", f"{TOUCH} {canary}; exit 1;")
    return arm


HOOKS = ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-checkout",
         "post-merge", "pre-auto-gc", "post-index-change", "reference-transaction",
         "post-rewrite", "pre-push", "fsmonitor-watchman", "push-to-checkout", "update")


def _hooks(root: Path, canary: Path) -> None:
    for hook in HOOKS:
        script(root / ".git" / "hooks" / hook, canary)


def _hooks_path(root: Path, canary: Path) -> None:
    folder = root.parent / "evil-hooks"
    folder.mkdir()
    for hook in HOOKS:
        script(folder / hook, canary)
    git(root, "config", "core.hooksPath", str(folder))


def _config(*pairs: tuple[str, str]) -> Callable[[Path, Path], None]:
    def arm(root: Path, canary: Path) -> None:
        for key, value in pairs:
            git(root, "config", "--add", key, value.replace("CANARY", str(canary)))
    return arm


def _fsmonitor(root: Path, canary: Path) -> None:
    git(root, "config", "core.fsmonitor", script(root.parent / "fsmonitor", canary))


def _ext_diff(root: Path, canary: Path) -> None:
    git(root, "config", "diff.external", script(root.parent / "extdiff", canary))


def _include(how: str) -> Callable[[Path, Path], None]:
    def arm(root: Path, canary: Path) -> None:
        inc = root.parent / "evil.cfg"
        inc.write_text(f'[filter "evil"]\n\tclean = {TOUCH} {canary}; {CAT}\n'
                       f'\trequired = true\n[core]\n\tfsmonitor = '
                       f'{script(root.parent / "fsmonitor", canary)}\n'
                       f'\tpager = {TOUCH} {canary}; {CAT}\n'
                       f'[diff "evil"]\n\ttextconv = {TOUCH} {canary}; {CAT}\n')
        (root / ".git" / "info").mkdir(exist_ok=True)
        (root / ".git" / "info" / "attributes").write_text("*.py filter=evil diff=evil\n")
        key = {"include": "include.path", "gitdir": f"includeIf.gitdir:**/{NAME}/.path",
               "onbranch": "includeIf.onbranch:main.path"}[how]
        git(root, "config", key, str(inc))
    return arm


# Every config key git documents as naming a program or a shell command.
KITCHEN_SINK = tuple((key, f"{TOUCH} CANARY; {CAT}") for key in (
    "filter.evil.clean", "filter.evil.smudge", "filter.other.process", "diff.evil.textconv",
    "diff.evil.command", "merge.evil.driver", "diff.external", "core.pager", "pager.log",
    "core.fsmonitor", "core.editor", "sequence.editor", "core.askPass", "core.sshCommand",
    "core.gitProxy", "core.alternateRefsCommand", "credential.helper", "gpg.program",
    "gpg.ssh.program", "gpg.x509.program", "gpg.openpgp.program", "ssh.variant",
    "uploadpack.packObjectsHook", "remote.origin.uploadpack", "remote.origin.receivepack",
    "mergetool.evil.cmd", "difftool.evil.cmd", "web.browser", "browser.evil.cmd",
    "sendemail.smtpServer", "sendemail.sendmailCmd", "receive.procReceiveRefs",
    "alias.status", "alias.x", "core.hooksPath", "http.proxy", "interactive.diffFilter",
    "submodule.evil.update", "remote.origin.url", "url.ext::sh.insteadOf"))
DIFF_HEAD = ("diff", "HEAD")
DIFF_COMMITS = ("diff", "HEAD~1", "HEAD")
SCENARIOS = [
    *(Scenario(f"filter-{kind}-{source}", _filter(kind, source),
               ("cat-file", "--filters", "HEAD:pkg/m.py") if kind == "smudge" else DIFF_HEAD,
               attributes="*.py filter=evil\n" if source == "gitattributes" else None)
      for kind in ("clean", "smudge", "process")
      for source in ("gitattributes", "info", "attributesfile")),
    Scenario("racily-clean-no-edit", _racy, ("diff", "HEAD", "--", "tests/test_m.py"),
             attributes="*.py filter=evil\n"),
    *(Scenario(f"partial-clone-{kind}", _transport(kind),
               ("cat-file", "-p", "HEAD~1:pkg/m.py"), partial=True)
      for kind in ("ext", "ext-include", "file", "ssh")),
    Scenario("hooks", _hooks, ("commit", "-q", "--allow-empty", "-m", "x")),
    Scenario("hooks-path", _hooks_path, ("commit", "-q", "--allow-empty", "-m", "x")),
    Scenario("fsmonitor", _fsmonitor, ("status",)),
    Scenario("pager", _config(("core.pager", f"{TOUCH} CANARY; {CAT}"),
                              ("pager.ls-files", "true"), ("pager.diff", "true")),
             ("log", "-1"), tty=True),
    Scenario("textconv", _config(("diff.evil.textconv", f"{TOUCH} CANARY; {CAT}")),
             DIFF_COMMITS, attributes="*.py diff=evil\n"),
    Scenario("external-diff", _ext_diff, DIFF_COMMITS),
    Scenario("diff-driver-command", _config(("diff.evil.command", f"{TOUCH} CANARY")),
             DIFF_COMMITS, attributes="*.py diff=evil\n"),
    Scenario("credential-helper", _config(
        ("credential.helper", f"!{TOUCH} CANARY"),
        ("credential.https://example.com.helper", f"!{TOUCH} CANARY"),
        ("core.askPass", f"{TOUCH} CANARY")), None),
    Scenario("alias", _config(*((f"alias.{c}", f"!{TOUCH} CANARY") for c in (
        "diff", "status", "ls-files", "ls-tree", "cat-file", "rev-parse", "diff-index")),
        ("alias.diff-tree", f"!{TOUCH} CANARY")), None),
    Scenario("merge-driver", _config(("merge.evil.driver", f"{TOUCH} CANARY")), None,
             attributes="*.py merge=evil\n"),
    *(Scenario(f"config-{how}", _include(how), DIFF_HEAD)
      for how in ("include", "gitdir", "onbranch")),
    Scenario("every-program-key-at-once", _config(*KITCHEN_SINK), DIFF_HEAD,
             attributes="*.py filter=evil diff=evil merge=evil\n*.md filter=other\n"),
    # Not the repository's doing, but what spyglass inherits: GIT_* variables are dropped.
    Scenario("inherited-git-environment", lambda root, canary: None, DIFF_COMMITS, environ=(
        ("GIT_EXTERNAL_DIFF", f"{TOUCH} CANARY"), ("GIT_SSH_COMMAND", f"{TOUCH} CANARY"),
        ("GIT_CONFIG_PARAMETERS", f"'diff.external'='{TOUCH} CANARY'"),
        ("GIT_CONFIG_COUNT", "1"), ("GIT_CONFIG_KEY_0", "core.fsmonitor"),
        ("GIT_CONFIG_VALUE_0", f"{TOUCH} CANARY"), ("GIT_PAGER", f"{TOUCH} CANARY"),
        ("GIT_ASKPASS", f"{TOUCH} CANARY"), ("SSH_ASKPASS", f"{TOUCH} CANARY"))),
]


def build(scenario: Scenario, folder: Path, canary: Path) -> Path:
    """The armed repository `folder/hostile` (nothing of it has run yet)."""
    root = folder / NAME
    if scenario.partial:
        partial_clone(root)
    else:
        base_repo(root, scenario.attributes)
    scenario.arm(root, canary)
    return root


def control(scenario: Scenario, root: Path, canary: Path) -> bool:
    """Run the scenario's plain git command in a copy of the repository: True when it
    touched the canary (the scenario is armed); the canary is removed again."""
    if scenario.control is None:
        return False
    copy = root.parent / "control" / NAME
    shutil.copytree(root, copy, symlinks=True)
    if scenario.tty:
        leader, follower = os.openpty()
        try:
            subprocess.run(["git", *scenario.control], cwd=copy, env=plain_env(copy),
                           stdin=follower, stdout=follower, stderr=follower, timeout=30,
                           check=False)
        finally:
            os.close(leader)
            os.close(follower)
    else:
        git(copy, *scenario.control, check=False, env=scenario.environment(canary))
    fired = canary.exists()
    canary.unlink(missing_ok=True)
    shutil.rmtree(copy.parent)
    return fired
