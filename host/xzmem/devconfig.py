"""The device's /config.json, made from a TOML [device] table and command-line values."""

import json
import secrets
import tomllib
from pathlib import Path

DEFAULT_PORT = 8765
# Every key the device reads from /config.json, in the order it is written.
KEYS = (
    "wifi_ssid",
    "wifi_password",
    "token",
    "listen_port",
    "utc_offset",
    "endpoint_url",
    "xiaozhi_url",
    "device_id",
    "client_id",
)
_SECRET_KEYS = ("wifi_password", "token")


class DeviceConfigError(ValueError):
    """A device setting that is missing or out of range; the message names it."""


def read_device_table(path: Path | str) -> dict:
    """The [device] table of a host TOML config file (empty when the file has none)."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise DeviceConfigError(f"cannot read config {path}: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise DeviceConfigError(f"{path}: {e}") from None
    table = data.get("device", {})
    if not isinstance(table, dict):
        raise DeviceConfigError(f"{path}: [device] must be a table")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise DeviceConfigError(f"{path}: unknown [device] keys {', '.join(unknown)}; known: {', '.join(KEYS)}")
    return table


def device_config(base: dict | None = None, **overrides) -> dict:
    """Merge a [device] table with command-line values (None means not given) and check every field.

    A missing token is generated: the device refuses every connection without one.
    """
    values = dict(base or {})
    values.update({k: v for k, v in overrides.items() if v is not None})
    unknown = sorted(set(values) - set(KEYS))
    if unknown:
        raise DeviceConfigError(f"unknown device settings {', '.join(unknown)}")
    cfg = {
        "wifi_ssid": str(values.get("wifi_ssid", "")),
        "wifi_password": str(values.get("wifi_password", "")),
        "token": str(values.get("token") or secrets.token_urlsafe(18)),
        "listen_port": values.get("listen_port", DEFAULT_PORT),
        "utc_offset": values.get("utc_offset", 0),
        "endpoint_url": str(values.get("endpoint_url", "")),
        "xiaozhi_url": str(values.get("xiaozhi_url", "")),
        "device_id": str(values.get("device_id", "")),
        "client_id": str(values.get("client_id", "")),
    }
    port = cfg["listen_port"]
    if not isinstance(port, int) or not 1 <= port <= 65535:
        raise DeviceConfigError(f"listen_port must be 1-65535, got {port!r}")
    offset = cfg["utc_offset"]
    if not isinstance(offset, int) or not -14 * 3600 <= offset <= 14 * 3600:
        raise DeviceConfigError(f"utc_offset must be seconds within +-14 hours, got {offset!r}")
    if len(cfg["wifi_ssid"].encode()) > 32:
        raise DeviceConfigError(f"wifi_ssid must be at most 32 bytes, got {cfg['wifi_ssid']!r}")
    for key in ("endpoint_url", "xiaozhi_url"):
        url = cfg[key]
        if url and not url.startswith(("ws://", "wss://")):
            raise DeviceConfigError(f"{key} must start with ws:// or wss://, got {url!r}")
    return cfg


def config_json(cfg: dict) -> bytes:
    return (json.dumps(cfg, ensure_ascii=False, indent=1) + "\n").encode()


def masked(cfg: dict) -> dict:
    """The config with its secrets hidden, for printing."""
    return {k: ("***" if k in _SECRET_KEYS and v else v) for k, v in cfg.items()}
