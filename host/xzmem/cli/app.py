"""The `xzmem` command line, assembled: one typer app holding every command group's commands.

Each group module (board, chat, dashboard, device, gateway, pipelines, sim) declares its commands on its own
`commands` registry and imports nothing from here, so there is no import cycle.
"""

import typer

from xzmem import __version__
from xzmem.cli import board, chat, dashboard, device, gateway, integrate, pipelines, sim

app = typer.Typer(help="xzmem: long-term memory for ESP32 AI companions (xiaozhi).", no_args_is_help=True)


@app.callback()
def main() -> None:
    """xzmem host companion."""


@app.command()
def version() -> None:
    """Print the xzmem version."""
    typer.echo(f"xzmem {__version__}")


for group in (board, device, chat, gateway, pipelines, sim, dashboard):
    app.registered_commands.extend(group.commands.registered_commands)
app.add_typer(integrate.commands, name="integrate")
