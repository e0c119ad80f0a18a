"""Host configuration (limits, target branch, language servers) and repository policy."""

from __future__ import annotations

import json
import os
import re
import stat
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from spyglass.errors import SpyglassError

# The secret-name rule (docs/security.md "Processes, secrets and limits"): a name is split
# into words (on `_`, `-`, `.`, digits and camelCase) and each word is compared with these.
SECRET_WORDS = frozenset({"KEY", "KEYS", "PASS", "PWD", "PAT", "PATS", "PIN", "OTP", "URL",
                          "URLS", "URI", "URIS", "DSN", "JWT", "SAS", "NETRC", "KUBECONFIG",
                          "ASKPASS", "AGENT"})
SECRET_SUFFIXES = ("TOKEN", "TOKENS")  # GH_TOKEN, GHTOKEN; not TOKENIZERS
SECRET_INFIXES = ("SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL",
                  "PRIVATE", "SESSION", "COOKIE", "APIKEY", "SOCK", "BEARER", "SIGNATURE")
SECRET_PREFIXES = ("AUTH", "OAUTH", "CRED")  # AUTH, AUTHTOKEN, AUTHORIZATION, CREDS
SECRET_FIRST_WORDS = frozenset({"AGE", "SOPS", "VAULT", "GNUPGHOME"})  # identities, vaults
NOT_SECRET = frozenset({"PWD", "OLDPWD"})  # the shell's working directories
NOT_SECRET_WORDS = frozenset({"AUTHOR", "AUTHORS"})  # GIT_AUTHOR_NAME
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z][a-z]+|[a-z]+")
_CREDENTIAL_VALUE = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s@]+@"  # a URL with user info (user:pass@, token@)
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|sk-[A-Za-z0-9_-]{20,})")

# A server configured for one language answers for its whole family (clangd: C and C++).
LANGUAGE_FAMILIES = {"typescript": ("typescript", "tsx", "javascript"),
                     "javascript": ("typescript", "tsx", "javascript"),
                     "c": ("c", "cpp"), "cpp": ("c", "cpp")}
BRIDGE_TOOLS = ("code_references", "code_callers")  # what an external MCP bridge may answer
ALL_TOOLS = ("code_explore", "code_find_symbol", "code_references", "code_callers",
             "code_callees", "code_type_hierarchy", "code_structure", "code_blast_radius", "code_suggest_tests", "code_status",
             "code_context", "code_diagnostics", "code_ast_query")


class ConfigError(SpyglassError):
    """The configuration file is malformed or asks for something it may not."""


@dataclass(frozen=True)
class Limits:
    """Request limits (docs/contract.md, "Limits")."""

    max_file_bytes: int = 2 * 1024 * 1024
    max_files_per_request: int = 200
    max_matches_per_request: int = 2000
    max_capture_bytes: int = 4096
    max_request_bytes: int = 1024 * 1024  # HTTP request bodies (docs/security.md)


# Trees skipped by default, tracked or not (vendored, installed or generated code); the
# user sees the rule in every skip reason and changes it with `[index] skip_dirs` / `include`.
DEFAULT_SKIP_DIRS = ("node_modules", "vendor", "dist", ".venv", "venv", "__pycache__",
                     ".next", ".turbo", ".tox", ".mypy_cache", ".pytest_cache", "generated")
# Build output skipped only where git does not say the files are source (untracked, or a
# folder that is not a repository): a tracked `src/build/` is a package like any other.
UNTRACKED_SKIP_DIRS = ("build", "target")


@dataclass(frozen=True)
class IndexRules:
    """Which files are indexed (docs/indexing.md "Skip rules"): folders skipped by name,
    and `include` globs (gitignore syntax) that bring paths under them back."""

    skip_dirs: tuple[str, ...] = DEFAULT_SKIP_DIRS
    untracked_skip_dirs: tuple[str, ...] = UNTRACKED_SKIP_DIRS
    include: tuple[str, ...] = ()
    origin: str = "default"  # where skip_dirs came from, named in skip reasons
    # `.gitignore` files apply inside a git repository only (as in ripgrep): a tarball's
    # `.gitignore` says what its authors' git ignores, not what the tree holds.
    gitignore_outside_git: bool = False

    @property
    def key(self) -> str:
        """Identity of the rules: a snapshot built under other rules is listed again."""
        return "\0".join([*self.skip_dirs, "|", *self.untracked_skip_dirs, "|", *self.include,
                          *(["|gitignore"] if self.gitignore_outside_git else [])])


CONTAINER_RUNTIMES = ("docker", "podman")
_NETWORK = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")
_IMAGE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/@-]{0,254}")


@dataclass(frozen=True)
class Sandbox:
    """`[sandbox]` of the host config (docs/bridge.md "Containers"): what runs a server whose
    execution is "sandbox" (bubblewrap, or a container `image` under docker or podman with
    `network`), and `groups`, the servers allowed on the host beside a container runtime."""

    runtime: str = "bubblewrap"
    image: str = ""
    network: str = "none"
    groups: tuple[str, ...] = ()

    @property
    def container(self) -> bool:
        return self.runtime in CONTAINER_RUNTIMES


@dataclass(frozen=True)
class LspServer:
    """An external code-intelligence server the host approved: a language server
    (`[[codeintel.lsp]]`) or an MCP server (`[[codeintel.mcp]]`, protocol "mcp")."""

    language: str
    command: tuple[str, ...]
    env: tuple[str, ...] = ()
    execution: str = "sandbox"
    allow_host_mcp: bool = False
    name: str = ""  # shown in status and notes; default: the command's file name
    binds: tuple[str, ...] = ()  # extra read-only paths visible in the sandbox
    settings: str = "{}"  # JSON answered to workspace/configuration, by section
    protocol: str = "lsp"  # or "mcp"
    tools: tuple[str, ...] = ()  # MCP: the host-approved tools it may answer (BRIDGE_TOOLS)
    sandbox: Sandbox = field(default_factory=Sandbox)  # the host's [sandbox], never the repo's

    @property
    def label(self) -> str:
        """Its name, or the file name of the program (past an interpreter such as python)."""
        if self.name:
            return self.name
        names = [Path(c).name for c in self.command if not c.startswith("-")]
        program = next((n for n in names if not n.startswith(("python", "node", "env"))),
                       names[0] if names else "lsp")
        return program

    @property
    def languages(self) -> tuple[str, ...]:
        """The language packs this server answers for."""
        return LANGUAGE_FAMILIES.get(self.language, (self.language,))


@dataclass(frozen=True)
class PreciseConfig:
    """The precise pass (`[precise]`, docs/precise.md): "auto" runs each installed SCIP
    indexer after an index, "true" makes its failure an error, "false" turns it off."""

    enabled: str = field(default_factory=lambda: _precise_default())
    timeout_s: int = 1800
    memory_mb: int = 4096
    nice: int = 10
    tools: str = ""  # folder of the npm-installed indexers; "": ~/.cache/spyglass/tools


def _precise_default() -> str:
    """"auto", or "false" where `SPYGLASS_PRECISE=off` (a process and its children)."""
    return "false" if os.environ.get("SPYGLASS_PRECISE", "") == "off" else "auto"


def _precise(section: Any) -> PreciseConfig:
    if not isinstance(section, dict):
        raise ConfigError("[precise] must be a table")
    unknown = set(section) - {"enabled", "timeout_s", "memory_mb", "nice", "tools"}
    if unknown:
        raise ConfigError("[precise] unknown keys: " + ", ".join(sorted(unknown)))
    enabled = section.get("enabled", "auto")
    if enabled not in ("auto", True, False):
        raise ConfigError('[precise] enabled must be "auto", true or false')
    nice = section.get("nice", 10)
    if not isinstance(nice, int) or isinstance(nice, bool) or not 0 <= nice <= 19:
        raise ConfigError("[precise] nice must be an integer from 0 to 19")
    tools = section.get("tools", "")
    if not isinstance(tools, str):
        raise ConfigError("[precise] tools must be a folder path")
    for key in ("timeout_s", "memory_mb"):
        value = section.get(key, 1)
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ConfigError(f"[precise] {key} must be a positive integer")
    if enabled == "auto" and os.environ.get("SPYGLASS_PRECISE", "") == "off":
        enabled = False  # one process (and its children) without the pass, e.g. the tests
    return PreciseConfig(str(enabled).lower(), section.get("timeout_s", 1800),
                         section.get("memory_mb", 4096), nice, tools)


@dataclass(frozen=True)
class Config:
    """Effective configuration: host config narrowed by repository policy."""

    enabled: bool = True
    required: bool = False  # a configured language server that cannot answer is an error
    limits: Limits = field(default_factory=Limits)
    target_branch: str | None = None
    lsp: tuple[LspServer, ...] = ()
    admin_token: str | None = None
    live_reparse: bool = True
    keep_snapshots: int = 3
    capabilities: tuple[str, ...] = ALL_TOOLS
    lsp_budget_ms: int = 2000  # how long references/callers wait for a language server
    allowed_hosts: tuple[str, ...] = ()  # Host names the HTTP servers answer besides loopback
    index: IndexRules = field(default_factory=IndexRules)
    sandbox: Sandbox = field(default_factory=Sandbox)
    store_url: str | None = None  # [store] url: a PostgreSQL team store (docs/team.md)
    store_repo: str | None = None  # [store] repo: this repository's id in that store
    team_repos: tuple[tuple[str, str], ...] = ()  # [team] repos: id → a worker's clone
    git_timeout_s: float = 120.0  # one git command; then its process group is killed
    mcp_session_idle_s: float = 600.0  # an MCP-over-HTTP session with no request: closed
    precise: PreciseConfig = field(default_factory=PreciseConfig)


def name_words(name: str) -> list[str]:
    """The words of an environment variable name, upper-cased: `apiKey_2FA` → API, KEY, FA."""
    return [w.upper() for w in _WORD.findall(name)]


def secret_reason(name: str, value: str | None = None) -> str | None:
    """Why passing environment variable `name` (with `value`, when known) could leak a
    credential, or None. The one rule for every place that forwards environment variables
    (LSP `env` entries today). Whole words count, so KEYBOARD_LAYOUT passes and API_KEY,
    GITHUB_PAT, NPM_AUTH, SSH_AUTH_SOCK, DATABASE_URL and PGPASSWORD do not."""
    upper = name.upper()
    if upper in NOT_SECRET:
        return None
    words = name_words(name)
    for word in words:
        if word in NOT_SECRET_WORDS:
            continue
        if word in SECRET_WORDS:
            return f"its name has the word {word}"
        suffix = next((m for m in SECRET_SUFFIXES if word.endswith(m)), None)
        if suffix is not None:
            return f"its name has a word ending in {suffix}"
        infix = next((m for m in SECRET_INFIXES if m in word), None)
        if infix is not None:
            return f"its name contains {infix}"
        prefix = next((m for m in SECRET_PREFIXES if word.startswith(m)), None)
        if prefix is not None:
            return f"its name has a word starting with {prefix}"
    if words and words[0] in SECRET_FIRST_WORDS:
        return f"its name starts with {words[0]} (an identity or secrets store)"
    if value is not None and _CREDENTIAL_VALUE.search(value):
        return "its value looks like a credential"
    return None


def default_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "spyglass" / "config.toml"


MAX_CONFIG_BYTES = 1 << 20


def _read(path: Path, follow_links: bool = True) -> dict[str, Any]:
    """A TOML file; only a regular file is read (a FIFO cannot block, opening is
    non-blocking), and the repository's policy file (`follow_links=False`) never through a
    link: it sits directly under the resolved root, so O_NOFOLLOW confines it as
    index/confined.py would (config is a shared leaf and cannot import index)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow_links else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ConfigError(f"cannot read config {path}: not a regular file")
            data = fh.read(MAX_CONFIG_BYTES + 1)
        if len(data) > MAX_CONFIG_BYTES:
            raise ConfigError(f"cannot read config {path}: larger than {MAX_CONFIG_BYTES} bytes")
        return tomllib.loads(data.decode("utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from exc
    except ValueError as exc:  # a NUL in the path, not UTF-8, not TOML
        raise ConfigError(f"cannot read config {str(path)!r}: {exc}") from exc


def _positive(section: dict[str, Any], key: str, default: int) -> int:
    value = section.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ConfigError(f"[codeintel] {key} must be a positive integer")
    return value


def _flag(section: dict[str, Any], key: str) -> bool:
    value = section.get(key, False)
    if not isinstance(value, bool):
        raise ConfigError(f"[codeintel] {key} must be true or false")
    return value


def _budget(section: dict[str, Any]) -> int:
    value = section.get("lsp_budget_ms", 2000)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 60000:
        raise ConfigError("[codeintel] lsp_budget_ms must be an integer from 0 to 60000")
    return value


def _seconds(section: dict[str, Any], key: str, default: float) -> float:
    value = section.get(key, default)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value <= 3600:
        raise ConfigError(f"[codeintel] {key} must be a number of seconds, above 0 and at "
                          "most 3600")
    return float(value)


def _lsp(entry: dict[str, Any], protocol: str = "lsp") -> LspServer:
    """One `[[codeintel.lsp]]` or `[[codeintel.mcp]]` entry, validated."""
    table = f"[[codeintel.{protocol}]]"
    if not isinstance(entry, dict):
        raise ConfigError(f"{table} entries must be tables")
    command = entry.get("command")
    if isinstance(command, str):
        command = [command]
    if not isinstance(command, list) or not command:
        raise ConfigError(f"{table} needs a command")
    raw_env = entry.get("env", [])
    if not isinstance(raw_env, list):
        raise ConfigError(f"{table} env must be a list of variable names")
    env = tuple(str(e) for e in raw_env)
    for item in env:
        name, eq, value = item.partition("=")
        # The value that would be passed: the entry's own, else the host's current one.
        why = secret_reason(name, value if eq else os.environ.get(name))
        if why is not None:
            raise ConfigError(f"{table} env may not pass {name!r}: {why}")
    execution = entry.get("execution", "sandbox")
    if execution not in ("sandbox", "host"):
        raise ConfigError(f"{table} execution must be 'sandbox' or 'host'")
    allow = bool(entry.get("allow_host_mcp", False))
    if execution == "host" and not allow:
        raise ConfigError(f"{table} execution = 'host' needs allow_host_mcp = true")
    language = entry.get("language")
    if not isinstance(language, str) or not language:
        raise ConfigError(f"{table} needs a language (python, go, typescript, ...)")
    binds = entry.get("binds", [])
    if not isinstance(binds, list) or not all(isinstance(b, str) and b.startswith("/")
                                              for b in binds):
        raise ConfigError(f"{table} binds must be a list of absolute paths")
    settings = entry.get("settings", {})
    if not isinstance(settings, dict):
        raise ConfigError(f"{table} settings must be a table")
    tools = entry.get("tools", list(BRIDGE_TOOLS) if protocol == "mcp" else [])
    if not isinstance(tools, list) or not all(t in BRIDGE_TOOLS for t in tools) or (
            tools and protocol != "mcp"):
        raise ConfigError(f"{table} tools must be a list of " + ", ".join(BRIDGE_TOOLS)
                          + (" (MCP servers only)" if protocol != "mcp" else ""))
    return LspServer(language, tuple(map(str, command)), env, execution, allow,
                     str(entry.get("name", "")), tuple(binds), json.dumps(settings), protocol,
                     tuple(tools))


def _servers(section: dict[str, Any]) -> tuple[LspServer, ...]:
    """The language servers, then the MCP servers, of the host config."""
    out: list[LspServer] = []
    for protocol in ("lsp", "mcp"):
        entries = section.get(protocol, [])
        if not isinstance(entries, list):
            raise ConfigError(f"[[codeintel.{protocol}]] must be an array of tables")
        out += [_lsp(e, protocol) for e in entries]
    return tuple(out)


def _sandbox(section: Any) -> Sandbox:
    """`[sandbox]` of the host config, validated."""
    if not isinstance(section, dict):
        raise ConfigError("[sandbox] must be a table")
    unknown = set(section) - {"runtime", "image", "network", "groups"}
    if unknown:
        raise ConfigError(f"[sandbox] has unknown keys: {', '.join(sorted(unknown))} "
                          "(known: runtime, image, network, groups)")
    runtime = section.get("runtime", "bubblewrap")
    if runtime not in ("bubblewrap", *CONTAINER_RUNTIMES):
        raise ConfigError("[sandbox] runtime must be 'bubblewrap', 'docker' or 'podman'")
    image = section.get("image", "")
    if not isinstance(image, str) or (image and not _IMAGE.fullmatch(image)):
        raise ConfigError("[sandbox] image must be an image name (e.g. localhost/lsp:1)")
    if runtime != "bubblewrap" and not image:
        raise ConfigError(f"[sandbox] runtime = {runtime!r} needs an image")
    network = section.get("network", "none")
    if not isinstance(network, str) or not _NETWORK.fullmatch(network):
        raise ConfigError("[sandbox] network must be a network name (default 'none')")
    groups = _names("[sandbox]", section, "groups") or ()
    return Sandbox(runtime, image, network, groups)


def _with_sandbox(servers: tuple[LspServer, ...], sandbox: Sandbox) -> tuple[LspServer, ...]:
    """Each server with the host's [sandbox]; beside a container runtime, host execution is
    an explicit opt-in: the server's name must be listed in `groups` too."""
    out = []
    for s in servers:
        if sandbox.container and s.execution == "host" and s.label not in sandbox.groups:
            raise ConfigError(f"server {s.label!r}: execution = 'host' beside [sandbox] "
                              f"runtime = {sandbox.runtime!r} needs {s.label!r} in "
                              "[sandbox] groups (explicit host opt-in)")
        out.append(replace(s, sandbox=sandbox))
    return tuple(out)


def _names(where: str, section: dict[str, Any], key: str) -> tuple[str, ...] | None:
    value = section.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError(f"{where} {key} must be a list of non-empty strings")
    return tuple(v.strip() for v in value)


def _index_rules(where: str, section: Any, base: IndexRules) -> IndexRules:
    """`[index]` of a config file on top of `base`: skip_dirs and untracked_skip_dirs
    replace the lists (folder names, no slashes), include globs are added."""
    if not isinstance(section, dict):
        raise ConfigError(f"{where} [index] must be a table")
    known = {"skip_dirs", "untracked_skip_dirs", "include", "gitignore_outside_git"}
    unknown = set(section) - known
    if unknown:
        raise ConfigError(f"{where} [index] has unknown keys: {', '.join(sorted(unknown))} "
                          f"(known: {', '.join(sorted(known))})")
    rules = base
    if "gitignore_outside_git" in section:
        flag = section["gitignore_outside_git"]
        if not isinstance(flag, bool):
            raise ConfigError(f"{where} [index] gitignore_outside_git must be true or false")
        rules = replace(rules, gitignore_outside_git=flag)
    for key in ("skip_dirs", "untracked_skip_dirs"):
        names = _names(f"{where} [index]", section, key)
        if names is None:
            continue
        bad = [n for n in names if "/" in n or n in (".", "..")]
        if bad:
            raise ConfigError(f"{where} [index] {key} holds folder names, not paths: "
                              f"{bad[0]!r} (use include/skip globs for paths)")
        rules = replace(rules, skip_dirs=names, origin=where) if key == "skip_dirs" else \
            replace(rules, untracked_skip_dirs=names, origin=where)
    include = _names(f"{where} [index]", section, "include")
    if include is not None:
        rules = replace(rules, include=rules.include + include)
    return rules


def load_config(path: Path | None = None, repo_root: Path | None = None) -> Config:
    """Load host config (missing file = defaults), then narrow it by `spyglass.toml`."""
    host_path = path or default_config_path()
    data: dict[str, Any] = {}
    if path is not None or host_path.is_file():
        data = _read(host_path)
    section = data.get("codeintel", {})
    if not isinstance(section, dict):
        raise ConfigError("[codeintel] must be a table")
    defaults = Limits()
    limits = Limits(
        max_file_bytes=_positive(section, "max_file_bytes", defaults.max_file_bytes),
        max_files_per_request=_positive(section, "max_files_per_request",
                                        defaults.max_files_per_request),
        max_matches_per_request=_positive(section, "max_matches_per_request",
                                          defaults.max_matches_per_request),
        max_capture_bytes=_positive(section, "max_capture_bytes", defaults.max_capture_bytes),
        max_request_bytes=_positive(section, "max_request_bytes", defaults.max_request_bytes),
    )
    token = section.get("admin_token")
    if token is not None and (not isinstance(token, str) or not token.strip()):
        raise ConfigError("[codeintel] admin_token must be a non-empty string")
    hosts = section.get("allowed_hosts", [])
    if not isinstance(hosts, list) or not all(isinstance(h, str) and h for h in hosts):
        raise ConfigError("[codeintel] allowed_hosts must be a list of host names")
    caps = section.get("capabilities", list(ALL_TOOLS))
    sandbox = _sandbox(data.get("sandbox", {}))
    config = Config(
        enabled=bool(section.get("enabled", True)),
        required=_flag(section, "required"),
        limits=limits,
        target_branch=section.get("target_branch"),
        lsp=_with_sandbox(_servers(section), sandbox),
        admin_token=section.get("admin_token"),
        live_reparse=bool(section.get("live_reparse", True)),
        keep_snapshots=_positive(section, "keep_snapshots", 3),
        capabilities=tuple(c for c in caps if c in ALL_TOOLS),
        lsp_budget_ms=_budget(section),
        allowed_hosts=tuple(hosts),
        index=_index_rules("host config", data.get("index", {}), IndexRules()),
        sandbox=sandbox,
        **_store(data.get("store", {})),
        team_repos=_team_repos(data.get("team", {})),
        git_timeout_s=_seconds(section, "git_timeout_s", Config.git_timeout_s),
        mcp_session_idle_s=_seconds(section, "mcp_session_idle_s", Config.mcp_session_idle_s),
        precise=_precise(data.get("precise", {})),
    )
    if repo_root is not None:
        config = apply_policy(config, repo_root)
    return config


def _store(section: Any) -> dict[str, str | None]:
    """[store] url / repo of the host config ($SPYGLASS_STORE_URL and $SPYGLASS_STORE_REPO
    win over the file)."""
    if not isinstance(section, dict):
        raise ConfigError("[store] must be a table")
    url = os.environ.get("SPYGLASS_STORE_URL") or section.get("url")
    repo = os.environ.get("SPYGLASS_STORE_REPO") or section.get("repo")
    if url is not None and (not isinstance(url, str)
                            or not url.startswith(("postgresql://", "postgres://"))):
        raise ConfigError("[store] url must be a postgresql:// URL")
    if repo is not None and (not isinstance(repo, str) or not repo.strip()):
        raise ConfigError("[store] repo must be a non-empty string")
    return {"store_url": url or None, "store_repo": repo}


def _team_repos(section: Any) -> tuple[tuple[str, str], ...]:
    """[team] repos = {"owner/name" = "/srv/mirrors/name"}: the repositories a worker
    indexes, each from a clone or mirror the operator keeps (jobs naming others are
    refused)."""
    if not isinstance(section, dict):
        raise ConfigError("[team] must be a table")
    repos = section.get("repos", {})
    if not isinstance(repos, dict) or not all(
            isinstance(k, str) and k and isinstance(v, str) and Path(v).is_absolute()
            for k, v in repos.items()):
        raise ConfigError('[team] repos must map repository ids to absolute paths of '
                          'clones, e.g. {"acme/api" = "/srv/mirrors/api"}')
    return tuple(sorted(repos.items()))


def apply_policy(config: Config, repo_root: Path) -> Config:
    """Repository policy may only narrow the host-approved capabilities, nothing else."""
    policy_path = repo_root / "spyglass.toml"
    if policy_path.is_symlink():
        raise ConfigError(f"{policy_path} is a symbolic link: the repository policy is read "
                          "only from a regular file")
    if not policy_path.is_file():
        return config
    data = _read(policy_path, follow_links=False)
    if set(data) - {"policy", "index"}:
        raise ConfigError(f"{policy_path}: a repository may only narrow [policy] capabilities "
                          "and set its [index] skip rules; language servers, their commands, "
                          "environment and execution are set in the host config only (found: "
                          + ", ".join(sorted(set(data) - {"policy", "index"})) + ")")
    if "index" in data:
        config = replace(config, index=_index_rules("spyglass.toml", data["index"],
                                                    config.index))
    policy = data.get("policy", {})
    if not isinstance(policy, dict):
        raise ConfigError(f"{policy_path}: [policy] must be a table")
    unknown = set(policy) - {"capabilities"}
    if unknown:
        raise ConfigError(f"{policy_path}: [policy] may only set capabilities, not "
                          + ", ".join(sorted(unknown)))
    wanted = policy.get("capabilities")
    if wanted is None:
        return config
    if not isinstance(wanted, list):
        raise ConfigError(f"{policy_path}: capabilities must be a list")
    narrowed = tuple(c for c in config.capabilities if c in wanted)
    return replace(config, capabilities=narrowed)
