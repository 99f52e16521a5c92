"""The `xzmem` command line: one module per command group, assembled in `app`."""
