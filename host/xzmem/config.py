"""The one configuration object: read once from a TOML file and the environment, then passed down.

File: `$XZMEM_CONFIG`, else `~/.config/xzmem/config.toml` (missing is fine). Environment overrides:
`XZMEM_LLM_BASE_URL`, `XZMEM_LLM_API_KEY`, `XZMEM_LLM_MODEL`, `XZMEM_DATA` (data directory).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path


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
class Config:
    llm: LLMConfig = field(default_factory=LLMConfig)
    device: DeviceConfig = field(default_factory=DeviceConfig)
    host: HostConfig = field(default_factory=HostConfig)
    working: WorkingConfig = field(default_factory=WorkingConfig)
    sieve: SieveConfig = field(default_factory=SieveConfig)
    changes: ChangesConfig = field(default_factory=ChangesConfig)
    # The board's own /config.json values (WiFi, ports, links); checked by xzmem.devconfig with the
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


def load_config(path: str | os.PathLike | None = None, env: Mapping[str, str] | None = None) -> Config:
    """Read the TOML file (if it exists) and the environment into one Config."""
    env = os.environ if env is None else env
    if path is None:
        path = env.get("XZMEM_CONFIG") or Path.home() / ".config" / "xzmem" / "config.toml"
    path = Path(path).expanduser()
    cfg = Config(source=str(path))
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{path}: {e}") from None
        for section, values in data.items():
            if section == "board" and isinstance(values, dict):
                cfg.board = dict(values)
                continue
            target = getattr(cfg, section, None)
            if section == "source" or target is None or not isinstance(values, dict):
                raise ConfigError(f"{path}: unknown section [{section}]")
            _fill(target, values, section, str(path))
    for var, attr in (("XZMEM_LLM_BASE_URL", "base_url"), ("XZMEM_LLM_API_KEY", "api_key"), ("XZMEM_LLM_MODEL", "model")):
        if env.get(var):
            setattr(cfg.llm, attr, env[var])
    if env.get("XZMEM_DATA"):
        cfg.host.data_dir = env["XZMEM_DATA"]
    if not cfg.host.data_dir:
        cfg.host.data_dir = str(Path.home() / ".local" / "share" / "xzmem")
    return cfg
