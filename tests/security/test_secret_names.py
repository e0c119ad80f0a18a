"""The secret-name rule, both ways: credential-shaped names (and values) are refused with a
message naming the variable; ordinary names, including ones that merely contain a marker
(KEYBOARD_LAYOUT), pass. See docs/security.md "Processes, secrets and limits"."""

from __future__ import annotations

from pathlib import Path

import pytest

from spyglass.config import ConfigError, load_config, name_words, secret_reason

REFUSED = [
    "GITHUB_PAT", "GH_PAT", "DATABASE_URL", "REDIS_URI", "SENTRY_DSN", "PIP_INDEX_URL",
    "NPM_AUTH", "NPM_AUTH_TOKEN", "AUTHORIZATION", "OAUTH_CLIENT_ID", "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO", "SSH_AGENT_PID", "API_KEY", "apiKey", "OPENAI_APIKEY",
    "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "CLIENT_SECRET", "clientSecret",
    "GH_TOKEN", "GHTOKEN", "HOMEBREW_GITHUB_API_TOKEN", "PGPASSWORD", "DB_PASSWD",
    "DB_PASS", "MYSQL_PWD", "GPG_PASSPHRASE", "GOOGLE_APPLICATION_CREDENTIALS",
    "AWS_SHARED_CREDENTIALS_FILE", "PRIVATE_KEY_PATH", "SESSION_ID", "XDG_SESSION_ID",
    "COOKIE_JAR", "AGE_IDENTITY", "AGE_KEY_FILE", "SOPS_AGE_KEY_FILE", "SOPS_KMS_ARN",
    "VAULT_ADDR", "KUBECONFIG", "NETRC", "GIT_ASKPASS", "DOCKER_SOCK", "SIGNING_KEY2",
]
ACCEPTED = [
    "KEYBOARD_LAYOUT", "PATH", "HOME", "LANG", "LC_ALL", "TERM", "USER", "SHELL", "TMPDIR",
    "PWD", "OLDPWD", "GOPATH", "GOROOT", "GOFLAGS", "GOPROXY", "PYTHONPATH", "VIRTUAL_ENV",
    "NODE_OPTIONS", "NODE_PATH", "JAVA_HOME", "CARGO_HOME", "RUSTUP_HOME",
    "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "TOKENIZERS_PARALLELISM", "SSL_CERT_FILE",
    "GIT_AUTHOR_NAME", "HTTP_PROXY", "MONKEYPATCH_MODE", "PASSTHROUGH", "COMPASS_HOME",
]


@pytest.mark.parametrize("name", REFUSED)
def test_credential_shaped_names_are_refused(name: str) -> None:
    assert secret_reason(name) is not None, name


@pytest.mark.parametrize("name", ACCEPTED)
def test_ordinary_names_pass(name: str) -> None:
    assert secret_reason(name) is None, (name, secret_reason(name))


@pytest.mark.parametrize("value", [
    "postgres://app:hunter2@db:5432/app", "https://ghp_abcdefghijklmnopqrstuvwxyz0123@x.io",
    "ghp_" + "a" * 36, "github_pat_" + "B" * 40, "AKIA" + "ABCDEFGHIJKLMNOP",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nabc", "xoxb-1234567890-abcdef",
])
def test_credential_shaped_values_are_refused(value: str) -> None:
    assert secret_reason("HTTP_PROXY", value) == "its value looks like a credential"


@pytest.mark.parametrize("value", ["http://proxy.internal:3128", "/usr/bin:/bin", "en_US.UTF-8",
                                   "mailto:dev@example.com", "--max-old-space-size=4096"])
def test_ordinary_values_pass(value: str) -> None:
    assert secret_reason("HTTP_PROXY", value) is None


def test_names_split_into_words() -> None:
    assert name_words("KEYBOARD_LAYOUT") == ["KEYBOARD", "LAYOUT"]
    assert name_words("myApiKey2") == ["MY", "API", "KEY"]
    assert name_words("AWSSecretKey") == ["AWS", "SECRET", "KEY"]
    assert name_words("sops.age-key") == ["SOPS", "AGE", "KEY"]


def _config(tmp_path: Path, env: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(f'[[codeintel.lsp]]\nlanguage = "python"\ncommand = ["pylsp"]\n'
                    f"env = {env}\n")
    return path


def test_config_refuses_a_secret_env_entry_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="env may not pass 'GITHUB_PAT': its name has the "
                                          "word PAT"):
        load_config(_config(tmp_path, '["PATH", "GITHUB_PAT"]'))


def test_config_refuses_a_credential_value_without_printing_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://me:hunter2@proxy:3128")
    with pytest.raises(ConfigError) as err:
        load_config(_config(tmp_path, '["HTTPS_PROXY"]'))
    assert "HTTPS_PROXY" in str(err.value) and "hunter2" not in str(err.value)
    with pytest.raises(ConfigError, match="'MIRROR': its value looks like a credential"):
        load_config(_config(tmp_path, '["MIRROR=https://tok@example.com"]'))


def test_config_accepts_ordinary_env_entries(tmp_path: Path) -> None:
    config = load_config(_config(tmp_path, '["KEYBOARD_LAYOUT", "PATH", "GOPATH"]'))
    assert config.lsp[0].env == ("KEYBOARD_LAYOUT", "PATH", "GOPATH")
