# Once at power-on: the config, WiFi, the clock by NTP and the links' DNS. app.main() unloads it after.

from micropython import const

from memory import clock

_WIFI_ATTEMPTS = const(3)
_WIFI_WAIT_MS = const(10000)
_WIFI_POLL_MS = const(200)


def start(config_path):
    """Everything before the device's tasks start; returns the config (defaults when the file is bad)."""
    from memory import config

    try:
        cfg = config.load(config_path)
    except ValueError as e:
        # Memory stays reachable over serial (xzmem --device PORT) so the file can be fixed.
        print("config: %s; starting with defaults, no network server until it is fixed" % e)
        cfg = config.validate({})
    print(connect_wifi(cfg))
    print(set_clock_by_ntp(cfg))
    resolve_links(cfg)
    return cfg


def connect_wifi(cfg, wait_ms=_WIFI_WAIT_MS):
    """Join the configured network; returns a status line. No SSID: assume the port already has a network."""
    if not cfg["wifi_ssid"]:
        return "wifi: no wifi_ssid in config, using the existing network"
    import time

    import network

    wlan = network.WLAN(network.STA_IF)
    wlan.active(True)
    for attempt in range(1, _WIFI_ATTEMPTS + 1):
        if wlan.isconnected():
            break
        wlan.connect(cfg["wifi_ssid"], cfg["wifi_password"])
        # Poll in 200 ms steps; time.sleep() with a fraction works on every port and on CPython.
        for _ in range(wait_ms // _WIFI_POLL_MS):
            if wlan.isconnected():
                break
            time.sleep(_WIFI_POLL_MS / 1000)
        if not wlan.isconnected():
            print("wifi: attempt %d of %d failed (status %s)" % (attempt, _WIFI_ATTEMPTS, wlan.status()))
    if not wlan.isconnected():
        return 'wifi: could not join "%s"; serving memory over serial only' % cfg["wifi_ssid"]
    return 'wifi: connected to "%s" as %s' % (cfg["wifi_ssid"], wlan.ifconfig()[0])


def set_clock_by_ntp(cfg):
    try:
        import ntptime

        if cfg["ntp_host"]:
            ntptime.host = cfg["ntp_host"]
        ntptime.settime()
        return "clock: set by NTP, %s" % clock.iso_local(clock.now())
    except (ImportError, OSError) as e:
        return "clock: NTP failed (%s); %s" % (e, "still set" if clock.is_set() else "not set, no reminders yet")


def resolve_links(cfg):
    """Look up the links' hosts while nothing else runs: DNS blocks MicroPython's event loop, and
    reconnects reuse the address (memory.wsclient)."""
    urls = [u for u in (cfg["endpoint_url"], cfg["xiaozhi_url"]) if u]
    if urls:
        from memory import wsclient

        for url in urls:
            wsclient.resolve_url(url)


def load_config(path):
    """The validated config; ValueError names what is wrong with the file."""
    from memory import config

    return config.load(path)
