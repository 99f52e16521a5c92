# Starts the outbound links the config asks for (endpoint_url, xiaozhi_url), each as an asyncio task.

import asyncio
import binascii

try:
    from hashlib import sha256 as _sha256
except ImportError:  # not expected on ESP32; ids then come from the raw bytes
    _sha256 = None

LINK_KINDS = ("endpoint", "xiaozhi")


def mac_text(raw):
    """b'\\x24\\x0a...' -> '24:0a:...' (the Device-Id form xiaozhi servers expect)."""
    return ":".join(["%02x" % b for b in raw])


def default_device_id():
    """The WiFi station MAC as aa:bb:cc:dd:ee:ff; the chip id when there is no WLAN."""
    try:
        import network

        return mac_text(network.WLAN(network.STA_IF).config("mac"))
    except Exception:  # no network module or no interface on this port
        import machine

        return mac_text(machine.unique_id()[:6])


def client_id_from(raw):
    """A UUID-shaped id (version 4 bits and variant set) that depends only on `raw`."""
    digest = _sha256(b"xzmem client " + bytes(raw)).digest() if _sha256 else (bytes(raw) * 16)[:16]
    b = bytearray(digest[:16])
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    h = binascii.hexlify(b).decode()
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def default_client_id():
    """Client-Id derived from machine.unique_id(): the same on every boot of one board."""
    import machine

    return client_id_from(machine.unique_id())


def tls_context(ca_path):
    """An SSL context that accepts only servers whose certificate chains to the CA in `ca_path` (DER is safest).

    Without one, wss:// still encrypts, but MicroPython's default client context checks no
    certificate (CPython's checks against the system's CAs).
    """
    import ssl

    with open(ca_path, "rb") as f:
        data = f.read()
    pem = data.lstrip().startswith(b"-----BEGIN")
    if hasattr(ssl, "create_default_context"):  # CPython
        return ssl.create_default_context(cadata=data.decode() if pem else data)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_verify_locations(cadata=data)
    return ctx


def trusted(cfg, kind):
    """Whether the config names this link kind in trusted_links (only for links to xzmem gateway)."""
    return kind in [k.strip() for k in cfg.get("trusted_links", "").split(",")]


def build_links(cfg, dispatcher, announcer, log=print, **options):
    """The link objects for the URLs set in cfg (none when neither is set); `options` go to each link."""
    links = []
    if not (cfg.get("endpoint_url") or cfg.get("xiaozhi_url")):
        return links
    from memory import endpoint, xiaozhi  # only a device with links loads their code

    device_id = cfg.get("device_id") or default_device_id()
    if cfg.get("tls_ca") and "ssl" not in options:
        options["ssl"] = tls_context(cfg["tls_ca"])
    if cfg.get("endpoint_url"):
        links.append(endpoint.EndpointLink(cfg["endpoint_url"], dispatcher, announcer, device_id, trusted=trusted(cfg, "endpoint"), log=log, **options))
    if cfg.get("xiaozhi_url"):
        links.append(
            xiaozhi.XiaozhiLink(
                cfg["xiaozhi_url"],
                cfg.get("xiaozhi_token", ""),
                device_id,
                cfg.get("client_id") or default_client_id(),
                dispatcher,
                announcer,
                prefix=cfg.get("reminder_prefix", ""),
                trusted=trusted(cfg, "xiaozhi"),
                log=log,
                **options
            )
        )
    return links


def start_links(cfg, dispatcher, announcer, log=print, **options):
    """Create a task running each configured link; returns the links (each with its .task)."""
    links = build_links(cfg, dispatcher, announcer, log, **options)
    for link in links:
        link.task = asyncio.create_task(link.run())
    return links
