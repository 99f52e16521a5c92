# Simulated network module: a WLAN that connects at once (the simulator already has a network).

STA_IF = 0
STAT_IDLE = 0
STAT_GOT_IP = 1010

# Tests set this to make connect() fail with the given status.
fail_with = None


class WLAN:
    def __init__(self, interface=STA_IF):
        self._active = False
        self._connected = False
        self._status = STAT_IDLE

    def active(self, value=None):
        if value is None:
            return self._active
        self._active = bool(value)

    def connect(self, ssid=None, key=None, **kwargs):
        if fail_with is not None:
            self._status = fail_with
            return
        self._connected = True
        self._status = STAT_GOT_IP

    def isconnected(self):
        return self._connected

    def status(self):
        return self._status

    def ifconfig(self, value=None):
        return ("127.0.0.1", "255.0.0.0", "127.0.0.1", "127.0.0.1")

    def config(self, *args, **kwargs):
        if args and args[0] == "mac":
            return b"\x24\x0a\xc4\x12\x34\x56"
        return None
