"""The provider's YAML block (`Memory: xzmem:` in the server's config) read into settings.

Keys (users copy them from the docs, so they are kept as they are): `type` (xzmem), `device` and
`token` (the default memory device), `devices` (role_id -> {device, token}), `data` (the host data
directory, default as for the CLI), `llm` ({base_url, model, api_key}, else the server's LLM) and
`budget_tokens` (of the memory text a prompt gets, default 600).
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xzmem.config import Config, ConfigError, LLMConfig
from xzmem.pipelines.briefing import DEFAULT_BUDGET_TOKENS

PROVIDER_TYPE = "xzmem"
KEYS = ("type", "device", "token", "devices", "data", "llm", "budget_tokens")
LLM_KEYS = ("base_url", "model", "api_key")
MIN_BUDGET_TOKENS = 50
MAX_ROLE_ID = 128
_PLAIN_ID = re.compile(r"[a-z0-9-]{1,64}")
_MAC_ID = re.compile(r"[0-9a-f]{2}(:[0-9a-f]{2}){5}")
_UNSAFE = re.compile(r"[^A-Za-z0-9]")


@dataclass(frozen=True)
class Target:
    """One memory device: its MCP URL (direct, or through `xzmem gateway`) and token."""

    url: str
    token: str


@dataclass
class ProviderSettings:
    default: Target | None
    devices: dict[str, Target] = field(default_factory=dict)
    data: Path = Path()
    llm: LLMConfig | None = None
    budget_tokens: int = DEFAULT_BUDGET_TOKENS
    base: Config = field(default_factory=Config)

    def target_for(self, role_id: str | None) -> Target:
        """The memory device of a talking device (its role_id), else the default one."""
        found = self.devices.get(str(role_id)) if role_id is not None else None
        if found is not None:
            return found
        if self.default is None:
            raise ConfigError(f"Memory.xzmem: no memory device for role_id {role_id!r}: "
                              "set `device` (the default) or add it under `devices`")
        return self.default

    def role_config(self, role_id: str) -> Config:
        """The host Config for one talking device: its own data directory (keyed mirror, working
        memory, profile, cache) under `data`, the provider's LLM when one is set. ValueError for an
        id `check_role_id` refuses."""
        cfg = copy.deepcopy(self.base)
        cfg.host.data_dir = str(self.data / "xiaozhi" / role_dir_name(role_id))
        if self.llm is not None:
            cfg.llm = copy.deepcopy(self.llm)
        return cfg


def check_role_id(role_id: object) -> str:
    """The role_id (the talking device's id) as text; ValueError when it is missing or unusable."""
    if isinstance(role_id, bool) or not isinstance(role_id, str | int):
        raise ValueError(f"the role_id must be text, got {role_id!r}")
    text = str(role_id)
    if not text.strip():
        raise ValueError("the role_id is empty")
    if len(text) > MAX_ROLE_ID:
        raise ValueError(f"the role_id is {len(text)} characters long, at most {MAX_ROLE_ID}")
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise ValueError(f"the role_id {text[:40]!r} holds control characters")
    return text


def role_dir_name(role_id: object) -> str:
    """The folder of one role_id under `data/xiaozhi`, one folder per id and inside that folder.

    Lower-case letters, digits and dashes stay as they are, and a MAC such as aa:bb:cc:dd:ee:ff
    becomes aa_bb_cc_dd_ee_ff (the names earlier versions used for them). Any other id (`..`,
    upper case, other punctuation) gets a readable part plus 12 hex digits of its SHA-256: it
    cannot be `.` or `..`, and it differs from both other forms (it holds `_` and ends in -hash,
    which neither does), so two ids never share a folder, even on a case-blind file system.
    """
    text = check_role_id(role_id)
    if _PLAIN_ID.fullmatch(text):
        return text
    if _MAC_ID.fullmatch(text):
        return text.replace(":", "_")
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{_UNSAFE.sub('_', text)[:40].lower()}_-{digest}"


def _text(block: Mapping, key: str, where: str) -> str:
    value = block.get(key)
    if value is None:
        return ""
    if not isinstance(value, str | int) or isinstance(value, bool):
        raise ConfigError(f"{where}.{key} must be text, got {value!r}")
    return str(value).strip()


def _target(block: Mapping, where: str) -> Target | None:
    url = _text(block, "device", where)
    if not url:
        return None
    if not url.startswith(("ws://", "wss://")):
        raise ConfigError(f"{where}.device must be a ws:// or wss:// MCP URL, got {url!r}")
    token = _text(block, "token", where)
    if not token and "token=" not in url:
        raise ConfigError(f"{where}.token is missing: the memory device needs its token")
    return Target(url, token)


def load_settings(block: Mapping[str, Any], base: Config) -> ProviderSettings:
    """Check and read the YAML block; ConfigError names the key at fault."""
    where = "Memory.xzmem"
    if not isinstance(block, Mapping):
        raise ConfigError(f"{where} must be a mapping of keys, got {block!r}")
    unknown = sorted(str(k) for k in block if k not in KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key {', '.join(unknown)} (known: {', '.join(KEYS)})")
    kind = block.get("type", PROVIDER_TYPE)
    if kind != PROVIDER_TYPE:
        raise ConfigError(f"{where}.type must be {PROVIDER_TYPE}, got {kind!r}")
    devices: dict[str, Target] = {}
    listed = block.get("devices") or {}
    if not isinstance(listed, Mapping):
        raise ConfigError(f"{where}.devices must map each role_id to {{device, token}}, got {listed!r}")
    for role_id, entry in listed.items():
        here = f"{where}.devices.{role_id}"
        if not isinstance(entry, Mapping) or set(entry) - {"device", "token"}:
            raise ConfigError(f"{here} must be {{device, token}}, got {entry!r}")
        target = _target(entry, here)
        if target is None:
            raise ConfigError(f"{here}.device is missing")
        devices[str(role_id)] = target
    default = _target(block, where)
    if default is None and not devices:
        raise ConfigError(f"{where}.device is missing: the MCP URL of the memory device (ws://HOST:PORT/mcp)")
    llm = None
    if block.get("llm"):
        section = block["llm"]
        if not isinstance(section, Mapping) or set(section) - set(LLM_KEYS):
            raise ConfigError(f"{where}.llm must hold only {', '.join(LLM_KEYS)}, got {section!r}")
        llm = copy.deepcopy(base.llm)
        for key in LLM_KEYS:
            if section.get(key):
                setattr(llm, key, _text(section, key, where + ".llm"))
        if not llm.enabled:
            raise ConfigError(f"{where}.llm needs model and base_url (or api_key)")
    budget = block.get("budget_tokens", DEFAULT_BUDGET_TOKENS)
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < MIN_BUDGET_TOKENS:
        raise ConfigError(f"{where}.budget_tokens must be a whole number of at least {MIN_BUDGET_TOKENS}, got {budget!r}")
    data = Path(_text(block, "data", where)).expanduser() if block.get("data") else base.data_path
    return ProviderSettings(default, devices, data, llm, budget, base)
