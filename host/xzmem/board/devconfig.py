"""The device's /config.json, made from a TOML [device] table and command-line values."""

import importlib.util
import json
import secrets
from pathlib import Path

from xzmem.board.tree import ROOT
from xzmem.config import ConfigError, load_config

DEFAULT_PORT = 8765


def _device_config_module():
    """lib/memory/config.py, the device's own validator: one definition of what /config.json may hold."""
    path = ROOT / "lib" / "memory" / "config.py"
    spec = importlib.util.spec_from_file_location("xzmem_device_config", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_DEVICE = _device_config_module()
# Every key the device reads from /config.json, in the order it is written.
KEYS = tuple(_DEVICE.DEFAULTS)
_SECRET_KEYS = ("wifi_password", "token", "xiaozhi_token")


class DeviceConfigError(ValueError):
    """A device setting that is missing or out of range; the message names it."""


def read_device_table(path: Path | str) -> dict:
    """The board settings of a host config file: its [board] table, the token from [device] by default."""
    try:
        cfg = load_config(path)
    except ConfigError as e:
        raise DeviceConfigError(str(e)) from None
    if not Path(path).exists():
        raise DeviceConfigError(f"cannot read config {path}: no such file")
    table = dict(cfg.board)
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise DeviceConfigError(f"{path}: unknown [board] keys {', '.join(unknown)}; known: {', '.join(KEYS)}")
    if cfg.device.token and "token" not in table:
        table["token"] = cfg.device.token
    return table


def device_config(base: dict | None = None, **overrides) -> dict:
    """Merge a [board] table with command-line values (None means not given) and check every field.

    A missing token is generated: the device refuses every connection without one.
    """
    values = dict(base or {})
    values.update({k: v for k, v in overrides.items() if v is not None})
    unknown = sorted(set(values) - set(KEYS))
    if unknown:
        raise DeviceConfigError(f"unknown device settings {', '.join(unknown)}")
    if not values.get("token"):
        values["token"] = secrets.token_urlsafe(18)
    values.setdefault("utc_offset", 0)
    try:
        return _DEVICE.validate(values)
    except ValueError as e:
        raise DeviceConfigError(str(e).removeprefix("config ")) from None


def config_json(cfg: dict) -> bytes:
    return (json.dumps(cfg, ensure_ascii=False, indent=1) + "\n").encode()


def masked(cfg: dict) -> dict:
    """The config with its secrets hidden, for printing."""
    return {k: ("***" if k in _SECRET_KEYS and v else v) for k, v in cfg.items()}
