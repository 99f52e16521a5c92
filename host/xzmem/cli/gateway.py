"""`xzmem gateway`: run the host gateway, show devices coming and going, print (and speak) reminders."""

import asyncio
import secrets
import shutil
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from xzmem.gateway.server import DEFAULT_PORT, ENDPOINT_PATH, XIAOZHI_PATH, Event, Gateway

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
    console.print("device /config.json, either link (trusted_links lets memory_sync through it):", style="dim")
    console.print(f'  "endpoint_url": "{base}{ENDPOINT_PATH}?token={token}", "trusted_links": "endpoint"', highlight=False, markup=False)
    console.print(f'  "xiaozhi_url": "{base}{XIAOZHI_PATH}", "xiaozhi_token": "{token}", "trusted_links": "xiaozhi"', highlight=False, markup=False)
    console.print(f"host tools: --device '{base}/devices/<device_id>/mcp?token={token}'", highlight=False, markup=False)
    try:
        await gw.serve_forever()
    finally:
        await gw.stop()


@commands.command()
def gateway(
    listen: Annotated[str, typer.Option("--listen", help="HOST:PORT to accept devices and host tools on.")] = f"0.0.0.0:{DEFAULT_PORT}",
    token: Annotated[str | None, typer.Option("--token", help="Token devices and host tools must present (generated when unset).")] = None,
    speak: Annotated[bool, typer.Option("--speak", help="Also say reminders aloud with espeak-ng.")] = False,
) -> None:
    """Host gateway for devices behind NAT: they connect here (MCP endpoint or xiaozhi protocol)."""
    host, port = parse_listen(listen)
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
