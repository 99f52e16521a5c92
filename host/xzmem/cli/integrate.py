"""`xzmem integrate`: hook xzmem into another program's conversations (xiaozhi-esp32-server)."""

from pathlib import Path
from typing import Annotated

import typer

from xzmem.cli.common import CliProblem, DeviceOpt, TokenOpt, one_line_errors, resolve_settings, say
from xzmem.integrations.install import ServerTreeError, install_module, yaml_block
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
) -> None:
    """Write the xzmem memory provider into a xiaozhi-esp32-server tree and print the YAML to add."""
    with one_line_errors():
        settings = resolve_settings(device, token)
        if settings.target and not settings.target.startswith(("ws://", "wss://")):
            raise CliProblem(f"the provider reaches the memory device over WebSocket; {settings.target} is not a ws:// URL")
        try:
            installed = install_module(server_dir)
        except (ServerTreeError, OSError) as exc:
            raise CliProblem(str(exc)) from None
    verb = "wrote" if installed.changed else "up to date:"
    say(f"{verb} {installed.module}")
    say("")
    say(f"Add this to {installed.server_dir / 'data' / '.config.yaml'} (or config.yaml), keeping your other modules:")
    say("")
    say(yaml_block(settings.target, settings.token, data, budget_tokens))
    say("")
    say("Then install xzmem into the server's Python environment (pip install /path/to/xzmem) and restart the server.")
