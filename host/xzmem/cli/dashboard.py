"""`xzmem dashboard`: the web dashboard for one device."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from xzmem.cli.common import (
    CliProblem,
    DeviceOpt,
    TokenOpt,
    one_line_errors,
    require_device,
    resolve_settings,
    say,
)

commands = typer.Typer()


@commands.command("dashboard")
def dashboard_command(
    device: DeviceOpt = None,
    token: TokenOpt = None,
    listen: Annotated[str, typer.Option("--listen", help="HOST:PORT to serve on; port 0 picks a free one.")] = "127.0.0.1:8780",
    password: Annotated[str | None, typer.Option(
        "--password", show_default=False,
        help="Dashboard password; required for any address but loopback. Default $XZMEM_DASHBOARD_PASSWORD.")] = None,
) -> None:
    """Serve a web dashboard to see and correct what the device remembers; prints its URL."""
    with one_line_errors():
        settings = resolve_settings(device, token)
        require_device(settings)
        # the web stack and the pipelines load only for this command
        from xzmem.dashboard.app import Settings
        from xzmem.dashboard.security import SecurityProblem
        from xzmem.dashboard.server import parse_listen, serve

        try:
            host, port = parse_listen(listen)
            serve(Settings(settings.target, settings.token, settings.config, host, port,
                           password or os.environ.get("XZMEM_DASHBOARD_PASSWORD") or None), say)
        except (ValueError, SecurityProblem) as exc:
            raise CliProblem(str(exc)) from None
