"""`python -m xzmem` runs the CLI."""

from xzmem.cli.app import app

app(prog_name="xzmem")
