"""`xzmem integrate xiaozhi-server`: the thin provider module written into a server tree, and the YAML
the server's config needs.

The module only forwards the server's four calls to `xzmem.integrations.xiaozhi_server`, so the
server needs the xzmem package installed in its own Python environment.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from xzmem.integrations.settings import PROVIDER_TYPE

MODULE_PATH = Path("core/providers/memory") / PROVIDER_TYPE / f"{PROVIDER_TYPE}.py"
BASE_PATH = Path("core/providers/memory/base.py")
# The server repository keeps the Python server one level down.
NESTED_SERVER = Path("main/xiaozhi-server")

MODULE_SOURCE = '''"""xzmem long-term memory for xiaozhi-esp32-server (written by `xzmem integrate xiaozhi-server`).

The work is done by the xzmem package, which must be installed in this server's Python environment;
this file only hands the server's calls to it. Settings: the `Memory: xzmem:` block of the config.
"""

import sys

from ..base import MemoryProviderBase, logger

if sys.version_info < (3, 10):
    raise ImportError(
        "the xzmem memory provider needs Python 3.10 or newer (this server runs %d.%d)" % sys.version_info[:2]
    )

from xzmem.integrations.xiaozhi_server import XiaozhiMemory  # noqa: E402

TAG = __name__


class MemoryProvider(MemoryProviderBase):
    """One object serves every connection of the server, so each call finds its device from the
    connection making it (see xzmem.integrations.xiaozhi_server), never from init_memory."""

    def __init__(self, config, summary_memory=None):
        super().__init__(config)
        self.xzmem = XiaozhiMemory(config)
        logger.bind(tag=TAG).info("xzmem memory provider ready")

    # Plain methods returning the coroutine: they run in the calling connection's own thread.
    def save_memory(self, msgs, session_id=None):
        return self.xzmem.save_memory(self, msgs, session_id)

    def query_memory(self, query):
        return self.xzmem.query_memory(self, query)
'''


class ServerTreeError(Exception):
    """The directory is not a xiaozhi-esp32-server tree; the message says what is missing."""


@dataclass
class Installed:
    server_dir: Path
    module: Path
    changed: bool


def find_server_dir(path: Path) -> Path:
    """The server's Python root: `path` itself or its `main/xiaozhi-server` (the repository root)."""
    path = path.expanduser().resolve()
    for candidate in (path, path / NESTED_SERVER):
        if (candidate / BASE_PATH).is_file():
            return candidate
    if not path.is_dir():
        raise ServerTreeError(f"{path} is not a directory")
    raise ServerTreeError(
        f"{path} is not a xiaozhi-esp32-server tree: no {BASE_PATH} in it or in {NESTED_SERVER} "
        "(pass the folder that holds app.py and config.yaml)"
    )


def install_module(path: Path) -> Installed:
    """Write the thin provider module into the server tree (again, when it differs)."""
    server = find_server_dir(path)
    module = server / MODULE_PATH
    changed = not module.is_file() or module.read_text(encoding="utf-8") != MODULE_SOURCE
    if changed:
        module.parent.mkdir(parents=True, exist_ok=True)
        tmp = module.with_suffix(".tmp")
        tmp.write_text(MODULE_SOURCE, encoding="utf-8")
        tmp.replace(module)
    return Installed(server, module, changed)
