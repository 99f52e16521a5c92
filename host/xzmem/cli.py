"""The `xzmem` command line: parses, calls one function, renders with rich.

Commands live in cli_* modules by job; each registers itself on `app`.
"""

import typer

from xzmem import __version__

app = typer.Typer(help="xzmem: long-term memory for ESP32 AI companions (xiaozhi).", no_args_is_help=True)


@app.callback()
def main() -> None:
    """xzmem host companion."""


@app.command()
def version() -> None:
    """Print the xzmem version."""
    typer.echo(f"xzmem {__version__}")


# Imported last because they import `app`.
from xzmem import cli_board, cli_chat, cli_device, cli_gateway, cli_pipelines, cli_sim  # noqa: E402,F401,I001
