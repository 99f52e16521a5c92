"""Serve the dashboard with uvicorn on one socket bound before it starts (so port 0 works)."""

from __future__ import annotations

import socket
from collections.abc import Callable

import uvicorn

from xzmem.dashboard.app import Dashboard, Settings
from xzmem.dashboard.security import check_listen

READY = "xzmem dashboard at "


def parse_listen(listen: str) -> tuple[str, int]:
    host, sep, port = listen.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"--listen must be HOST:PORT, got {listen!r}")
    return host, int(port)


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)  # connections made between the ready line and uvicorn's start wait in the backlog
    except OSError as exc:
        sock.close()
        raise ValueError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def serve(settings: Settings, announce: Callable[[str], None]) -> None:
    """Bind, say where, and serve until Ctrl-C or SIGTERM."""
    check_listen(settings.host, settings.password)
    sock = bind(settings.host, settings.port)
    settings.port = sock.getsockname()[1]
    app = Dashboard(settings).app()
    shown = f"[{settings.host}]" if ":" in settings.host else settings.host
    announce(f"{READY}http://{shown}:{settings.port}/")
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    server.run(sockets=[sock])
