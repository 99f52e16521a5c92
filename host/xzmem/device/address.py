"""Device addresses: WebSocket URLs (with the token kept out of messages) and serial port names."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

# mpremote's short names for serial ports.
_PORT_SHORTCUTS = {"a": "/dev/ttyACM", "u": "/dev/ttyUSB", "c": "COM"}


def is_websocket_target(target: str) -> bool:
    return target.startswith(("ws://", "wss://"))


def redact(url: str) -> str:
    """The URL without its token, fit for messages and logs."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "token"]
    return urlunsplit(parts._replace(query=urlencode(query)))


def with_token(url: str, token: str | None) -> str:
    """The URL carrying `token` as its `token` query parameter (replacing one already there)."""
    if not token:
        return url
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "token"]
    query.append(("token", token))
    return urlunsplit(parts._replace(query=urlencode(query)))


def serial_port(target: str) -> str:
    """`u0` → /dev/ttyUSB0, `a1` → /dev/ttyACM1, `c3` → COM3; anything else is the port itself."""
    match = re.fullmatch(r"([auc])(\d+)", target)
    return _PORT_SHORTCUTS[match.group(1)] + match.group(2) if match else target

