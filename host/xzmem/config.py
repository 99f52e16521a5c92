"""The one configuration object: read once from a TOML file and the environment, then passed down.

File: `$XZMEM_CONFIG`, else `$XDG_CONFIG_HOME/xzmem/config.toml` (default `~/.config`); missing is
fine. Environment overrides: `XZMEM_LLM_BASE_URL`, `XZMEM_LLM_API_KEY`, `XZMEM_LLM_MODEL`,
`XZMEM_DEVICE` and `XZMEM_TOKEN` (the device), `XZMEM_DATA_DIR` or `XZMEM_DATA` (data directory,
default `$XDG_DATA_HOME/xzmem`, i.e. `~/.local/share/xzmem`). Command-line options go over both.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10 (xiaozhi-esp32-server's image): the same parser as a package
    import tomli as tomllib


class ConfigError(Exception):
    """A configuration file or value that cannot be used; the message names it."""


@dataclass
class LLMConfig:
    base_url: str = ""
    api_key: str = ""
    model: str = ""
    timeout: float = 30.0
    max_retries: int = 2
    temperature: float = 0.1
    max_tokens: int = 800

    @property
    def enabled(self) -> bool:
        """A model name and somewhere to send it (a base URL, or an API key for the default one)."""
        return bool(self.model and (self.base_url or self.api_key))


@dataclass
class DeviceConfig:
    url: str = ""
    token: str = ""


@dataclass
class HostConfig:
    data_dir: str = ""


@dataclass
class WorkingConfig:
    capacity: int = 50
    max_tokens: int = 2000
    ttl_minutes: float = 120.0
    decay_factor: float = 0.95


@dataclass
class SieveConfig:
    additional_instructions: str = ""


@dataclass
class ChangesConfig:
    relevant_limit: int = 8
    cleanup_threshold: int = 50


@dataclass
class ChatConfig:
    idle_minutes: float = 5.0


@dataclass
class Config:
    llm: LLMConfig = field(default_factory=LLMConfig)
    device: DeviceConfig = field(default_factory=DeviceConfig)
    host: HostConfig = field(default_factory=HostConfig)
    working: WorkingConfig = field(default_factory=WorkingConfig)
    sieve: SieveConfig = field(default_factory=SieveConfig)
    changes: ChangesConfig = field(default_factory=ChangesConfig)
    chat: ChatConfig = field(default_factory=ChatConfig)
    # The board's own /config.json values (WiFi, ports, links); checked by xzmem.board.devconfig with the
    # device's validator, so they are kept as given here.
    board: dict = field(default_factory=dict)
    source: str = ""

    @property
    def data_path(self) -> Path:
        return Path(self.host.data_dir).expanduser()


def _fill(section_obj, values: Mapping, section: str, path: str) -> None:
    known = {f.name: f for f in fields(section_obj)}
    for name, value in values.items():
        if name not in known:
            raise ConfigError(f"{path}: unknown key [{section}] {name}")
        current = getattr(section_obj, name)
        try:
            if isinstance(current, bool):
                value = bool(value)
            elif isinstance(current, int):
                value = int(value)
            elif isinstance(current, float):
                value = float(value)
            else:
                value = str(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{path}: [{section}] {name} must be a {type(current).__name__}, got {value!r}") from None
        setattr(section_obj, name, value)


# Environment variables over file values: (variable, section, key); the first set one wins.
ENV_OVERRIDES = (
    ("XZMEM_LLM_BASE_URL", "llm", "base_url"),
    ("XZMEM_LLM_API_KEY", "llm", "api_key"),
    ("XZMEM_LLM_MODEL", "llm", "model"),
    ("XZMEM_DEVICE", "device", "url"),
    ("XZMEM_TOKEN", "device", "token"),
    ("XZMEM_DATA_DIR", "host", "data_dir"),
    ("XZMEM_DATA", "host", "data_dir"),
)


def config_path(env: Mapping[str, str] | None = None) -> Path:
    """Where the config file is: $XZMEM_CONFIG, else $XDG_CONFIG_HOME (or ~/.config)/xzmem/config.toml."""
    env = os.environ if env is None else env
    if env.get("XZMEM_CONFIG"):
        return Path(env["XZMEM_CONFIG"]).expanduser()
    return Path(env.get("XDG_CONFIG_HOME") or Path.home() / ".config").expanduser() / "xzmem" / "config.toml"


def env_source(env: Mapping[str, str], section: str, key: str) -> str | None:
    """The environment variable that set `[section] key`, if one did."""
    for var, var_section, var_key in ENV_OVERRIDES:
        if (var_section, var_key) == (section, key) and env.get(var):
            return var
    return None


def load_config(path: str | os.PathLike | None = None, env: Mapping[str, str] | None = None) -> Config:
    """Read the TOML file (if it exists) and the environment into one Config."""
    env = os.environ if env is None else env
    path = config_path(env) if path is None else Path(path).expanduser()
    cfg = Config(source=str(path))
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise ConfigError(f"config file {path} is not valid TOML: {e}") from None
        for section, values in data.items():
            if section == "board" and isinstance(values, dict):
                cfg.board = dict(values)
                continue
            target = getattr(cfg, section, None)
            if section == "source" or target is None or not isinstance(values, dict):
                raise ConfigError(f"{path}: unknown section [{section}]")
            _fill(target, values, section, str(path))
    for section, key in {(section, key) for _, section, key in ENV_OVERRIDES}:
        var = env_source(env, section, key)
        if var is not None:
            setattr(getattr(cfg, section), key, env[var])
    if not cfg.host.data_dir:
        cfg.host.data_dir = str(Path(env.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "xzmem")
    return cfg
