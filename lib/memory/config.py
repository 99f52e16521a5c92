# Device configuration: /config.json, validated, with defaults; errors name the key and the value.

import json

DEFAULTS = {
    "wifi_ssid": "",
    "wifi_password": "",
    "token": "",
    "listen_host": "0.0.0.0",
    "listen_port": 8765,
    "utc_offset": 8 * 3600,
    "endpoint_url": "",
    "xiaozhi_url": "",
    "xiaozhi_token": "",
    "device_id": "",
    "client_id": "",
    "reminder_prefix": "",
    "tls_ca": "",  # CA certificate file (DER or PEM) that wss:// servers must be signed by
    "trusted_links": "",  # comma-separated endpoint / xiaozhi: links to your own xzmem gateway only
    "ntp_host": "",
    "language": "zh",  # how the memory tool words its refusals: zh or en
}

_INTS = ("listen_port", "utc_offset")
SECRETS = ("wifi_password", "token", "xiaozhi_token")
LANGUAGES = ("zh", "en")


def validate(raw):
    """A complete config from a dict: unknown keys and wrong types are errors, missing keys default."""
    if not isinstance(raw, dict):
        raise ValueError("config must be a JSON object, got %s" % type(raw).__name__)
    cfg = dict(DEFAULTS)
    for key in raw:
        if key not in DEFAULTS:
            raise ValueError("config has an unknown key %r (known: %s)" % (key, ", ".join(sorted(DEFAULTS))))
        value = raw[key]
        if key in _INTS:
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError("config %s must be an integer, got %r" % (key, value))
        elif not isinstance(value, str):
            raise ValueError("config %s must be a string, got %r" % (key, value))
        cfg[key] = value
    if len(cfg["wifi_ssid"].encode()) > 32:
        raise ValueError("config wifi_ssid must be at most 32 bytes, got %r" % cfg["wifi_ssid"])
    if not 1 <= cfg["listen_port"] <= 65535:
        raise ValueError("config listen_port must be 1-65535, got %d" % cfg["listen_port"])
    if not -14 * 3600 <= cfg["utc_offset"] <= 14 * 3600:
        raise ValueError("config utc_offset must be seconds within +-14 hours, got %d" % cfg["utc_offset"])
    for key in ("endpoint_url", "xiaozhi_url"):
        url = cfg[key]
        if url and not (url.startswith("ws://") or url.startswith("wss://")):
            raise ValueError("config %s must start with ws:// or wss://, got %r" % (key, url))
    if cfg["language"] not in LANGUAGES:
        raise ValueError("config language must be one of %s, got %r" % (", ".join(LANGUAGES), cfg["language"]))
    for kind in cfg["trusted_links"].split(","):
        if kind.strip() not in ("", "endpoint", "xiaozhi"):
            raise ValueError("config trusted_links names endpoint and/or xiaozhi, got %r" % kind.strip())
    if cfg["listen_port"] and cfg["token"] and len(cfg["token"]) < 8:
        raise ValueError("config token must be at least 8 characters")
    return cfg


def load(path="/config.json"):
    """Read and validate the config file; a missing file gives the defaults (no server without a token)."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return validate({})
    try:
        raw = json.loads(text)
    except ValueError:
        raise ValueError("%s is not valid JSON" % path)
    return validate(raw)


def public(cfg):
    """The config without its secrets, for a backup: what a new board needs besides the passwords."""
    out = {}
    for key in cfg:
        if key not in SECRETS:
            out[key] = cfg[key]
    url = out.get("endpoint_url", "")
    if "?" in url:
        out["endpoint_url"] = url[: url.find("?")]  # an endpoint's token rides in its query (xiaozhi.me)
    return out
