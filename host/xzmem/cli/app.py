"""The `xzmem` command line, assembled: one typer app holding every command group's commands, and
`run()`, the entry point that turns whatever goes wrong into one `xzmem: ...` line on stderr.

Each group module (board, chat, dashboard, device, gateway, pipelines, sim) declares its commands on its own
`commands` registry and imports nothing from here, so there is no import cycle.
"""

import os
import sys

import typer

from xzmem import __version__
from xzmem.cli import board, chat, dashboard, device, gateway, integrate, pipelines, sim

app = typer.Typer(help="xzmem: long-term memory for ESP32 AI companions (xiaozhi).", no_args_is_help=True,
                  pretty_exceptions_enable=False)
INTERRUPTED = 130  # the shell's code for a program stopped by Ctrl-C


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


def _fail(message: str, code: int) -> None:
    sys.stderr.write("xzmem: " + " ".join(message.split()) + "\n")
    sys.exit(code)


def run(argv: list[str] | None = None) -> None:
    """`xzmem`: a mistake on the command line, Ctrl-C or an unexpected error is one line on stderr and
    a non-zero exit, never a traceback (XZMEM_DEBUG=1 shows the traceback of an unexpected error)."""
    try:
        code = app(args=argv, prog_name="xzmem", standalone_mode=False)
    except (typer.Abort, KeyboardInterrupt):
        _fail("interrupted", INTERRUPTED)
    except Exception as exc:
        # typer carries its own copy of click, so its usage errors are known by their shape
        if hasattr(exc, "format_message") and isinstance(getattr(exc, "exit_code", None), int):
            if type(exc).__name__ == "NoArgsIsHelpError":
                exc.show()  # `xzmem` alone: the help
                sys.exit(0)
            ctx = getattr(exc, "ctx", None)
            _fail(f"{exc.format_message()} (see `{ctx.command_path if ctx else 'xzmem'} --help`)", exc.exit_code)
        if os.environ.get("XZMEM_DEBUG"):
            raise
        _fail(f"unexpected {type(exc).__name__}: {exc} (XZMEM_DEBUG=1 shows where)", 1)
    if code == INTERRUPTED:  # typer turns Ctrl-C inside a command into this code, silently
        _fail("interrupted", INTERRUPTED)
    sys.exit(code or 0)
