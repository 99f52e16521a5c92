"""Who may use the dashboard: loopback by default, a password elsewhere, a CSRF token on every change.

Sessions live in the dashboard's memory (a restart signs everyone out). With a password, a session
is made only by signing in: a request without one keeps nothing on the server (the login form's
CSRF token is an HMAC of a cookie it sets), and at most MAX_SESSIONS are kept, the longest idle
dropped first. Wrong passwords are counted per address and in all: past the limits, sign-ins are
refused (429) until the window has passed. Each session has its own CSRF token, put into every
form; a POST without the session's token changes nothing. The Host
header must name the address the dashboard listens on, so a page elsewhere cannot reach it through
a name that resolves to 127.0.0.1 (DNS rebinding).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field

COOKIE = "xzmem_dashboard"
LOGIN_COOKIE = "xzmem_login"  # the login form's own nonce: no server-side state before a sign-in
SESSION_IDLE_SECONDS = 12 * 3600
MAX_SESSIONS = 64  # a household's browsers, with room to spare
LOGIN_WINDOW_SECONDS = 300
LOGIN_FAILURES_PER_ADDRESS = 5  # wrong passwords from one address within the window
LOGIN_FAILURES_IN_ALL = 30  # wrong passwords from everywhere within the window
_TRACKED_ADDRESSES = 1024
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1", "[::1]")


class SecurityProblem(Exception):
    """The dashboard cannot start safely with these settings (shown as one `xzmem:` line)."""


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_listen(host: str, password: str | None) -> None:
    """Refuse an address other people can reach unless a dashboard password guards it."""
    if not is_loopback(host) and not password:
        raise SecurityProblem(
            f"--listen {host} is reachable from other machines; pass --password (or set "
            "$XZMEM_DASHBOARD_PASSWORD) to guard it, or listen on 127.0.0.1"
        )


def allowed_hosts(host: str, port: int) -> set[str]:
    names = {host} | (set(LOOPBACK_NAMES) if is_loopback(host) else set())
    if host in ("0.0.0.0", "::"):
        return set()  # any name: the password is the guard there
    return {f"{n}:{port}" for n in names} | ({f"[{host}]:{port}"} if ":" in host else set())


@dataclass
class Session:
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    signed_in: bool = False
    flash: list = field(default_factory=list)
    seen: float = field(default_factory=time.monotonic)


class LoginLimiter:
    """Wrong passwords within the last LOGIN_WINDOW_SECONDS, per address and in all."""

    def __init__(self, clock=time.monotonic):
        self._clock = clock
        self._by_address: OrderedDict[str, deque] = OrderedDict()
        self._all: deque = deque()

    def _prune(self, times: deque, now: float) -> deque:
        while times and now - times[0] > LOGIN_WINDOW_SECONDS:
            times.popleft()
        return times

    def wait(self, address: str) -> int:
        """Seconds until `address` may try again (0: now)."""
        now = self._clock()
        times = self._prune(self._by_address.get(address, deque()), now)
        everyone = self._prune(self._all, now)
        waits = [times[0] + LOGIN_WINDOW_SECONDS - now] if len(times) >= LOGIN_FAILURES_PER_ADDRESS else []
        if len(everyone) >= LOGIN_FAILURES_IN_ALL:
            waits.append(everyone[0] + LOGIN_WINDOW_SECONDS - now)
        return int(max(waits)) + 1 if waits else 0

    def failed(self, address: str) -> None:
        now = self._clock()
        times = self._by_address.pop(address, None) or deque()
        times.append(now)
        self._by_address[address] = times
        while len(self._by_address) > _TRACKED_ADDRESSES:
            self._by_address.popitem(last=False)
        self._all.append(now)


class Sessions:
    def __init__(self, password: str | None):
        self.password = password
        self._sessions: OrderedDict[str, Session] = OrderedDict()  # least recently seen first
        self._secret = secrets.token_bytes(32)
        self.limiter = LoginLimiter()

    def __len__(self) -> int:
        return len(self._sessions)

    def get(self, cookie: str | None) -> tuple[str | None, Session | None]:
        """The session the cookie names; without one, a new session only where no password is
        asked (loopback), else (None, None): the caller sends the browser to sign in."""
        now = time.monotonic()
        while self._sessions:
            oldest = next(iter(self._sessions.values()))
            if now - oldest.seen <= SESSION_IDLE_SECONDS:
                break
            self._sessions.popitem(last=False)
        if cookie and cookie in self._sessions:
            session = self._sessions[cookie]
            session.seen = now
            self._sessions.move_to_end(cookie)
            return cookie, session
        if self.password is None:
            return self._new()
        return None, None

    def _new(self) -> tuple[str, Session]:
        while len(self._sessions) >= MAX_SESSIONS:
            self._sessions.popitem(last=False)
        key = secrets.token_urlsafe(32)
        self._sessions[key] = session = Session(signed_in=True)
        return key, session

    @staticmethod
    def csrf_ok(session: Session, sent: str | None) -> bool:
        return bool(sent) and hmac.compare_digest(session.csrf.encode(), str(sent).encode())

    def login_csrf(self, nonce: str) -> str:
        """The login form's CSRF token for the nonce in its cookie."""
        return hmac.new(self._secret, b"login " + nonce.encode(), hashlib.sha256).hexdigest()

    def login_csrf_ok(self, nonce: str | None, sent: str | None) -> bool:
        return bool(nonce) and bool(sent) and hmac.compare_digest(self.login_csrf(nonce).encode(), str(sent).encode())

    def sign_in(self, password: str) -> tuple[str, Session] | None:
        """A new signed-in session for the right password, else None."""
        if self.password is not None and not hmac.compare_digest(self.password.encode(), password.encode()):
            return None
        return self._new()
