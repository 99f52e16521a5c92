"""`xzmem sim`: run the device firmware on this computer."""

from pathlib import Path
from typing import Annotated

import typer

from xzmem.sim import runner as sim

commands = typer.Typer()


@commands.command("sim")
def sim_command(
    data: Annotated[Path, typer.Option("--data", help="Folder for the device's NVS file, LittleFS image and config.")],
    token: Annotated[str, typer.Option("--token", help="Token MCP clients must present (at least 8 characters).")],
    listen: Annotated[str, typer.Option("--listen", help="HOST:PORT the device's MCP server binds.")] = "127.0.0.1:8765",
    start_time: Annotated[str | None, typer.Option("--start-time", help="Device clock start, ISO 8601 (local time).")] = None,
    speed: Annotated[float, typer.Option("--speed", help="Run the device clock this many times faster.")] = 1.0,
    utc_offset: Annotated[int, typer.Option("--utc-offset", help="Device local time offset in seconds.")] = 8 * 3600,
    endpoint: Annotated[str | None, typer.Option("--endpoint", help="MCP endpoint URL the device connects out to.")] = None,
    xiaozhi: Annotated[str | None, typer.Option("--xiaozhi", help="xiaozhi WebSocket server URL to connect to.")] = None,
    xiaozhi_token: Annotated[str | None, typer.Option(
        "--xiaozhi-token", help="Token sent as 'Authorization: Bearer' on the xiaozhi link.")] = None,
    reminder_prefix: Annotated[str | None, typer.Option(
        "--reminder-prefix", help="Text put before each reminder on the xiaozhi link, e.g. '[device_call]'.")] = None,
    language: Annotated[str, typer.Option("--language", help="Language of the memory tool's refusals and style hint: zh or en.")] = "zh",
    device_id: Annotated[str | None, typer.Option("--device-id", help="Device id (MAC form) to present; default: one derived from --data.")] = None,
    trusted_links: Annotated[str | None, typer.Option(
        "--trusted-links", help="Outbound links that go to your own xzmem gateway: endpoint, xiaozhi or both.")] = None,
    loop_probe: Annotated[Path | None, typer.Option(
        "--loop-probe", help="Measure how long single steps hold the event loop; JSON report to this file on stop.")] = None,
) -> None:
    """Run the device's boot.py and main.py on CPython; prints 'xzmem device ready ws://HOST:PORT/mcp'."""
    try:
        cfg = sim.device_config(listen, token, utc_offset, endpoint, xiaozhi, device_id or sim.stable_device_id(data),
                                trusted_links, xiaozhi_token, reminder_prefix, language)
        sim.run(data, cfg, sim.parse_start(start_time, utc_offset), speed, loop_probe)
    except sim.SimError as e:
        typer.echo(f"xzmem: {e}", err=True)
        raise typer.Exit(e.exit_code) from e
