"""The `xzmem` command line: parses, calls one function, renders with rich."""

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


from xzmem import cli_device  # noqa: E402,F401  (registers the device, outbox and config commands)
