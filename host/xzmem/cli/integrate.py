"""`xzmem integrate`: hook xzmem into another program's conversations (xiaozhi-esp32-server)."""

from pathlib import Path
from typing import Annotated

import typer

from xzmem.cli.common import CliProblem, DeviceOpt, TokenOpt, one_line_errors, resolve_settings, say
from xzmem.integrations.install import ServerTreeError, install_module
from xzmem.integrations.server_config import ConfigEditError, add_memory_selection, write_edit
from xzmem.integrations.settings import PROVIDER_TYPE
from xzmem.pipelines.briefing import DEFAULT_BUDGET_TOKENS

commands = typer.Typer(help="Hook xzmem into another program's conversations.", no_args_is_help=True)


@commands.command("xiaozhi-server")
def xiaozhi_server(
    server_dir: Annotated[Path, typer.Option(
        "--server-dir", help="The xiaozhi-esp32-server folder (main/xiaozhi-server, or the repository root).")],
    device: DeviceOpt = None,
    token: TokenOpt = None,
    data: Annotated[Path | None, typer.Option(
        "--data", help="Host data directory for the provider; default as for the CLI.")] = None,
    budget_tokens: Annotated[int, typer.Option(
        "--budget-tokens", min=50, help="Tokens of memory text each prompt may get.")] = DEFAULT_BUDGET_TOKENS,
    config_file: Annotated[Path | None, typer.Option(
        "--config-file", help="The server config to add the memory selection to; default "
        "SERVER/data/.config.yaml.")] = None,
) -> None:
    """Write the xzmem memory provider into a xiaozhi-esp32-server tree and select it in the server's config.

    Only `selected_module.Memory` and the `Memory.xzmem` entry are added; every other setting of
    the config stays as it was (the old file is kept as .config.yaml.before-xzmem).
    """
    with one_line_errors():
        settings = resolve_settings(device, token)
        if settings.target and not settings.target.startswith(("ws://", "wss://")):
            raise CliProblem(f"the provider reaches the memory device over WebSocket; {settings.target} is not a ws:// URL")
        try:
            installed = install_module(server_dir)
        except (ServerTreeError, OSError) as exc:
            raise CliProblem(str(exc)) from None
        say(f"{'wrote' if installed.changed else 'up to date:'} {installed.module}")
        config = config_file or installed.server_dir / "data" / ".config.yaml"
        if not settings.target or not settings.token:
            say(f"{config} is left as it is: give --device and --token (the memory device's MCP URL and token) "
                "to select the xzmem memory there")
        else:
            entry: dict = {"type": PROVIDER_TYPE, "device": settings.target, "token": settings.token}
            if data is not None:
                entry["data"] = str(data.expanduser().resolve())
            entry["budget_tokens"] = budget_tokens
            try:
                edit = add_memory_selection(config, entry)
                backup = write_edit(edit)
            except (ConfigEditError, OSError) as exc:
                raise CliProblem(str(exc)) from None
            was = f" (was {edit.old_memory})" if edit.old_memory else ""
            say(f"{'created' if edit.created else 'updated'} {config}: selected_module.Memory is xzmem{was}, "
                "Memory.xzmem holds the device; your other settings are unchanged")
            if backup is not None:
                say(f"the file as it was: {backup}")
    say("Then install xzmem into the server's Python environment (pip install /path/to/xzmem) and restart the server.")
