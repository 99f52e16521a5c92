"""Who may use the dashboard: loopback by default, a password elsewhere, a CSRF token on every change.

Sessions live in the dashboard's memory (a restart signs everyone out). Each session has its own
CSRF token, put into every form; a POST without the session's token changes nothing. The Host
header must name the address the dashboard listens on, so a page elsewhere cannot reach it through
a name that resolves to 127.0.0.1 (DNS rebinding).
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import time
from dataclasses import dataclass, field

COOKIE = "xzmem_dashboard"
SESSION_IDLE_SECONDS = 12 * 3600
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


class Sessions:
    def __init__(self, password: str | None):
        self.password = password
        self._sessions: dict[str, Session] = {}

    def get(self, cookie: str | None) -> tuple[str, Session]:
        """The session the cookie names, or a new one (with its new cookie value)."""
        now = time.monotonic()
        for key in [k for k, s in self._sessions.items() if now - s.seen > SESSION_IDLE_SECONDS]:
            del self._sessions[key]
        if cookie and cookie in self._sessions:
            session = self._sessions[cookie]
            session.seen = now
            return cookie, session
        key = secrets.token_urlsafe(32)
        self._sessions[key] = session = Session(signed_in=self.password is None)
        return key, session

    @staticmethod
    def csrf_ok(session: Session, sent: str | None) -> bool:
        return bool(sent) and hmac.compare_digest(session.csrf.encode(), str(sent).encode())

    def sign_in(self, session: Session, password: str) -> bool:
        if self.password is None:
            return True
        ok = hmac.compare_digest(self.password.encode(), password.encode())
        if ok:
            session.signed_in = True
            session.csrf = secrets.token_urlsafe(24)  # a new token once signed in
        return ok
