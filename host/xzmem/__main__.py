"""`python -m xzmem` runs the CLI."""

from xzmem.cli import app

app(prog_name="xzmem")
