"""`xzmem gateway`: run the host gateway, show devices coming and going, print (and speak) reminders."""

import asyncio
import secrets
import shutil
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from xzmem.gateway.server import (
    DEFAULT_PORT,
    DEVICE_ID,
    ENDPOINT_PATH,
    XIAOZHI_PATH,
    Event,
    Gateway,
    device_token,
)

commands = typer.Typer()

console = Console(soft_wrap=True)


def parse_listen(text: str) -> tuple[str, int]:
    """'HOST:PORT' (or ':PORT', or 'HOST') -> (host, port); BadParameter names what is wrong."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = text, str(DEFAULT_PORT)
    try:
        number = int(port)
    except ValueError:
        number = 0
    if not 0 <= number <= 65535:
        raise typer.BadParameter(f"port must be 0-65535, got {port!r}")
    return host.strip("[]") or "0.0.0.0", number


def reminder_line(event: Event) -> str:
    data = event.data
    say = data.get("text") or data.get("content") or ""
    when = data.get("datetime")
    extra = f" [dim]({escape(str(when))}, priority {data.get('priority')})[/]" if when else ""
    return f"[bold magenta]reminder[/] [cyan]{escape(event.device_id)}[/]: {escape(str(say))}{extra}"


class Speaker:
    """Says reminder sentences with espeak-ng, one at a time, if it is installed."""

    def __init__(self, enabled: bool):
        self.program = shutil.which("espeak-ng") if enabled else None
        if enabled and not self.program:
            console.print("[yellow]warning:[/] --speak needs espeak-ng on PATH; reminders are only printed")
        self._lock = asyncio.Lock()

    def say(self, text: str) -> None:
        if self.program and text:
            asyncio.get_running_loop().create_task(self._run(text))

    async def _run(self, text: str) -> None:
        async with self._lock:
            proc = await asyncio.create_subprocess_exec(self.program, "-v", "cmn", text,
                                                        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
            await proc.wait()


def show(event: Event, speaker: Speaker) -> None:
    if event.kind == "reminder":
        console.print(reminder_line(event))
        speaker.say(str(event.data.get("text") or event.data.get("content") or ""))
    elif event.kind == "refused":
        console.print(f"[red]refused[/] {escape(event.device_id)} ({event.link}): wrong token for this device id; "
                      f"its lines: xzmem gateway --token T --device-config {escape(event.device_id)}")
    elif event.kind == "connected":
        console.print(f"[green]connected[/] {escape(event.device_id)} ({event.link})")
    else:
        console.print(f"[yellow]disconnected[/] {escape(event.device_id)} ({event.link})")


async def _run(host: str, port: int, token: str, speak: bool) -> None:
    speaker = Speaker(speak)
    gw = Gateway(token, host, port, on_event=lambda e: show(e, speaker))
    await gw.start()
    shown = "HOST" if host in ("0.0.0.0", "::") else host
    base = f"ws://{shown}:{gw.port}"
    console.print(f"xzmem gateway ready {escape(base)}", highlight=False)
    console.print("each device connects with its own token: xzmem gateway --token T --device-config DEVICE_ID "
                  "prints its /config.json lines", style="dim")
    console.print(f"host tools: --device '{base}/devices/<device_id>/mcp?token={token}'", highlight=False, markup=False)
    try:
        await gw.serve_forever()
    finally:
        await gw.stop()


def device_config_lines(base: str, token: str, device_id: str) -> list[str]:
    """The /config.json lines of one device, either link (trusted_links lets memory_sync through it)."""
    own = device_token(token, device_id)
    return [f'"device_id": "{device_id}", "endpoint_url": "{base}{ENDPOINT_PATH}?token={own}", "trusted_links": "endpoint"',
            f'"device_id": "{device_id}", "xiaozhi_url": "{base}{XIAOZHI_PATH}", "xiaozhi_token": "{own}", '
            f'"trusted_links": "xiaozhi"']


@commands.command()
def gateway(
    listen: Annotated[str, typer.Option("--listen", help="HOST:PORT to accept devices and host tools on.")] = f"0.0.0.0:{DEFAULT_PORT}",
    token: Annotated[str | None, typer.Option("--token", help="Token devices and host tools must present (generated when unset).")] = None,
    speak: Annotated[bool, typer.Option("--speak", help="Also say reminders aloud with espeak-ng.")] = False,
    device_config: Annotated[list[str] | None, typer.Option(
        "--device-config", metavar="DEVICE_ID",
        help="Print the /config.json lines (with its own token) of this device and exit; repeatable.")] = None,
) -> None:
    """Host gateway for devices behind NAT: they connect here (MCP endpoint or xiaozhi protocol)."""
    host, port = parse_listen(listen)
    if device_config:
        if not token:
            raise typer.BadParameter("--device-config needs the gateway's --token: a device's token is made from it")
        shown = "HOST" if host in ("0.0.0.0", "::") else host
        for device_id in device_config:
            if not DEVICE_ID.fullmatch(device_id):
                raise typer.BadParameter(f"a device id is 1-64 of A-Z a-z 0-9 : . _ -, got {device_id!r}")
            for line in device_config_lines(f"ws://{shown}:{port}", token, device_id):
                console.print(line, highlight=False, markup=False)
        return
    if not token:
        token = secrets.token_urlsafe(18)
        console.print(f"generated token: {token}", highlight=False, markup=False)
    try:
        asyncio.run(_run(host, port, token, speak))
    except KeyboardInterrupt:
        pass
    except OSError as e:
        Console(stderr=True, soft_wrap=True).print(
            f"[bold red]xzmem:[/] cannot listen on {escape(listen)}: {escape(e.strerror or str(e))}")
        raise typer.Exit(1) from None
