"""Host configuration (limits, target branch, language servers) and repository policy."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from spyglass.errors import SpyglassError

SECRET_MARKERS = ("TOKEN", "SECRET", "KEY", "PASSWORD", "PASSWD", "CREDENTIAL", "AGE_IDENTITY")

ALL_TOOLS = ("code_explore", "code_find_symbol", "code_references", "code_callers",
             "code_structure", "code_blast_radius", "code_suggest_tests", "code_status",
             "code_context", "code_diagnostics", "code_ast_query")


class ConfigError(SpyglassError):
    """The configuration file is malformed or asks for something it may not."""


@dataclass(frozen=True)
class Limits:
    """Request limits (SPEC §5)."""

    max_file_bytes: int = 2 * 1024 * 1024
    max_files_per_request: int = 200
    max_matches_per_request: int = 2000
    max_capture_bytes: int = 4096
    max_request_bytes: int = 1024 * 1024  # HTTP request bodies (docs/security.md)


@dataclass(frozen=True)
class LspServer:
    """An external language server the host approved."""

    language: str
    command: tuple[str, ...]
    env: tuple[str, ...] = ()
    execution: str = "sandbox"
    allow_host_mcp: bool = False


@dataclass(frozen=True)
class Config:
    """Effective configuration: host config narrowed by repository policy."""

    enabled: bool = True
    required: bool = False
    limits: Limits = field(default_factory=Limits)
    target_branch: str | None = None
    lsp: tuple[LspServer, ...] = ()
    admin_token: str | None = None
    live_reparse: bool = True
    keep_snapshots: int = 3
    capabilities: tuple[str, ...] = ALL_TOOLS
    allowed_hosts: tuple[str, ...] = ()  # Host names the HTTP servers answer besides loopback


def default_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "spyglass" / "config.toml"


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from exc


def _positive(section: dict[str, Any], key: str, default: int) -> int:
    value = section.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ConfigError(f"[codeintel] {key} must be a positive integer")
    return value


def _lsp(entry: dict[str, Any]) -> LspServer:
    command = entry.get("command")
    if isinstance(command, str):
        command = [command]
    if not isinstance(command, list) or not command:
        raise ConfigError("[[codeintel.lsp]] needs a command")
    env = tuple(str(e) for e in entry.get("env", []))
    for name in env:
        if any(marker in name.upper() for marker in SECRET_MARKERS):
            raise ConfigError(f"[[codeintel.lsp]] env may not pass secret-like variable {name}")
    execution = entry.get("execution", "sandbox")
    if execution not in ("sandbox", "host"):
        raise ConfigError("[[codeintel.lsp]] execution must be 'sandbox' or 'host'")
    allow = bool(entry.get("allow_host_mcp", False))
    if execution == "host" and not allow:
        raise ConfigError("[[codeintel.lsp]] execution = 'host' needs allow_host_mcp = true")
    return LspServer(str(entry.get("language", "")), tuple(map(str, command)), env, execution,
                     allow)


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
    config = Config(
        enabled=bool(section.get("enabled", True)),
        required=bool(section.get("required", False)),
        limits=limits,
        target_branch=section.get("target_branch"),
        lsp=tuple(_lsp(e) for e in section.get("lsp", [])),
        admin_token=section.get("admin_token"),
        live_reparse=bool(section.get("live_reparse", True)),
        keep_snapshots=_positive(section, "keep_snapshots", 3),
        capabilities=tuple(c for c in caps if c in ALL_TOOLS),
        allowed_hosts=tuple(hosts),
    )
    if repo_root is not None:
        config = apply_policy(config, repo_root)
    return config


def apply_policy(config: Config, repo_root: Path) -> Config:
    """Repository policy may only narrow the host-approved capabilities, nothing else."""
    policy_path = repo_root / "spyglass.toml"
    if not policy_path.is_file():
        return config
    policy = _read(policy_path).get("policy", {})
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
