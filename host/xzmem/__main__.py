"""`python -m xzmem` runs the CLI."""

from xzmem.cli.app import run

run()
