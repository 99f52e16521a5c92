"""A stand-in for a xiaozhi-esp32-server tree, driven the way the server drives a memory provider.

Only what the provider meets is here: `core/providers/memory/base.py` with the server's
`MemoryProviderBase` signatures and its `logger`, the server's `Message` objects, `query_memory`
submitted to the server's running event loop from a worker thread, and `save_memory` run in a
thread of its own with a new event loop, as `core/connection.py` does when a conversation ends.
"""

from __future__ import annotations

import asyncio
import importlib
import subprocess
import sys
import threading
from pathlib import Path

BASE_SOURCE = '''
from abc import ABC, abstractmethod


class _Logger:
    def __init__(self):
        self.lines = []

    def bind(self, **extra):
        return self

    def info(self, message):
        self.lines.append(("info", message))

    def warning(self, message):
        self.lines.append(("warning", message))

    def error(self, message):
        self.lines.append(("error", message))


logger = _Logger()


class MemoryProviderBase(ABC):
    def __init__(self, config):
        self.config = config
        self.role_id = None

    def set_llm(self, llm):
        self.llm = llm

    @abstractmethod
    async def save_memory(self, msgs, session_id=None):
        """Save the conversation's memories."""

    @abstractmethod
    async def query_memory(self, query: str) -> str:
        """Memory text for the system prompt."""

    def init_memory(self, role_id, llm, **kwargs):
        self.role_id = role_id
        self.llm = llm
'''


class Message:
    """The server's dialogue entry (core/utils/dialogue.py): role, content and more."""

    def __init__(self, role, content=None, tool_calls=None, tool_call_id=None):
        self.role = role
        self.content = content
        self.tool_calls = tool_calls
        self.tool_call_id = tool_call_id


def make_server_tree(root: Path) -> Path:
    """An empty server: the memory base class only, as the repository lays it out."""
    server = root / "main" / "xiaozhi-server"
    (server / "core" / "providers" / "memory").mkdir(parents=True)
    (server / "core" / "providers" / "memory" / "base.py").write_text(BASE_SOURCE, encoding="utf-8")
    return server


def integrate(root: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "xzmem", "integrate", "xiaozhi-server", "--server-dir", str(root),
                           *args], capture_output=True, text=True, env=env, timeout=60)


class Server:
    """Loads the provider as the server's memory.create_instance does and calls it as connection.py does."""

    def __init__(self, server_dir: Path):
        self.server_dir = server_dir
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def create_provider(self, block: dict, summary_memory=None):
        sys.path.insert(0, str(self.server_dir))
        try:
            module = importlib.import_module("core.providers.memory.xzmem.xzmem")
        finally:
            sys.path.remove(str(self.server_dir))
        return module.MemoryProvider(block, summary_memory)

    def connect(self, provider, device_id: str, llm=None) -> None:
        provider.init_memory(role_id=device_id, llm=llm, summary_memory=None, save_to_file=True)

    def query(self, provider, text: str, timeout: float = 30) -> str:
        future = asyncio.run_coroutine_threadsafe(provider.query_memory(text), self.loop)
        return future.result(timeout)

    def save(self, provider, msgs, session_id: str = "session-1", timeout: float = 120) -> None:
        failures = []

        def save_memory_task():
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(provider.save_memory(msgs, session_id))
            except Exception as exc:  # the server logs and swallows it; the test must see it
                failures.append(exc)
            finally:
                loop.close()

        worker = threading.Thread(target=save_memory_task, daemon=True)
        worker.start()
        worker.join(timeout)
        assert not worker.is_alive(), "save_memory did not finish"
        assert not failures, failures

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()
        for name in [n for n in sys.modules if n == "core" or n.startswith("core.")]:
            del sys.modules[name]
