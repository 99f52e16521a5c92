"""A stand-in for a xiaozhi-esp32-server tree, driven the way the server drives a memory provider.

Only what the provider meets is here, shaped as xiaozhi-esp32-server 0.9.6 (main/xiaozhi-server)
has it: `core/providers/memory/base.py` with the server's `MemoryProviderBase` signatures and its
`logger`; the server's `Message` objects (with `is_temporary`); ONE provider object shared by every
connection (core/websocket_server.py builds it once); and per connection a `Connection` shaped as
core/connection.py's ConnectionHandler: `init_memory(role_id=device_id, ...)` from its
component set-up, `query_memory` called in `chat()` on the connection's executor thread and
submitted to the server's loop with run_coroutine_threadsafe, the temporary few-shot lines of
`_inject_tool_call_fewshot`, and `save_memory(dialogue, session_id)` built and run in a thread of
its own with a new event loop by the nested task of `_save_and_close`.
"""

from __future__ import annotations

import asyncio
import importlib
import subprocess
import sys
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
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

    def __init__(self, role, content=None, tool_calls=None, tool_call_id=None, is_temporary=False):
        self.uniq_id = str(uuid.uuid4())
        self.role = role
        self.content = content
        self.tool_calls = tool_calls
        self.tool_call_id = tool_call_id
        self.is_temporary = is_temporary


def fewshot() -> list[Message]:
    """The temporary examples ConnectionHandler._inject_tool_call_fewshot puts into every dialogue."""
    story = '{"response": "好呀，你想听什么类型的呀？童话、冒险还是搞笑的？选一个我给你开讲~"}'
    return [
        Message("user", "给我讲个故事吧", is_temporary=True),
        Message("assistant", tool_calls=[{"id": "fewshot_da_001", "type": "function", "index": 0,
                                          "function": {"arguments": story, "name": "direct_answer"}}],
                is_temporary=True),
        Message("tool", "已直接回复", tool_call_id="fewshot_da_001", is_temporary=True),
        Message("user", "拜拜", is_temporary=True),
        Message("assistant", tool_calls=[{"id": "fewshot_exit_001", "type": "function", "index": 0,
                                          "function": {"arguments": '{"say_goodbye": "再见，下次再聊~"}',
                                                       "name": "handle_exit_intent"}}],
                is_temporary=True),
        Message("tool", "退出意图已处理", tool_call_id="fewshot_exit_001", is_temporary=True),
        Message("assistant", "再见，下次再聊~", is_temporary=True),
    ]


class Connection:
    """One device's connection, calling the shared provider the way ConnectionHandler does."""

    def __init__(self, server, memory, device_id, llm=None):
        self.loop = server.loop  # the server's event loop, where query_memory's coroutine runs
        self.memory = memory
        self.llm = llm
        self.device_id = device_id
        self.session_id = str(uuid.uuid4())
        self.executor = ThreadPoolExecutor(max_workers=5)
        self.dialogue = []
        self.save_failures = []
        self.saver = None

    def initialize_memory(self):
        self.memory.init_memory(role_id=self.device_id, llm=self.llm, summary_memory=None, save_to_file=True)

    def chat(self, query):
        """The part of ConnectionHandler.chat that meets the provider; runs on `executor`."""
        memory_str = None
        if self.memory is not None and query:
            future = asyncio.run_coroutine_threadsafe(self.memory.query_memory(query), self.loop)
            memory_str = future.result()
        return memory_str

    def save_and_close(self):
        """ConnectionHandler._save_and_close: the save runs in a daemon thread, not waited for."""
        if self.memory:
            def save_memory_task():
                loop = asyncio.new_event_loop()
                asyncio.set_event_loop(loop)
                try:
                    loop.run_until_complete(self.memory.save_memory(self.dialogue, self.session_id))
                except Exception as exc:  # the server logs and swallows it; the test must see it
                    self.save_failures.append(exc)
                finally:
                    loop.close()

            self.saver = threading.Thread(target=save_memory_task, daemon=True)
            self.saver.start()
        self.executor.shutdown(wait=False)

    def wait_saved(self, timeout=120):
        self.saver.join(timeout)
        assert not self.saver.is_alive(), "save_memory did not finish"
        assert not self.save_failures, self.save_failures


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
        self.current: Connection | None = None

    def create_provider(self, block: dict, summary_memory=None):
        sys.path.insert(0, str(self.server_dir))
        try:
            module = importlib.import_module("core.providers.memory.xzmem.xzmem")
        finally:
            sys.path.remove(str(self.server_dir))
        return module.MemoryProvider(block, summary_memory)

    def open(self, provider, device_id: str | None, llm=None) -> Connection:
        """A new connection of device `device_id`; its component set-up (with init_memory) runs on
        a worker thread, as ConnectionHandler._initialize_components does."""
        conn = Connection(self, provider, device_id, llm)
        conn.executor.submit(conn.initialize_memory).result(30)
        return conn

    def ask(self, conn: Connection, text: str, timeout: float = 30) -> str:
        """One user turn: chat() on the connection's executor, the query on the server's loop."""
        return conn.executor.submit(conn.chat, text).result(timeout)

    # The single-device tests' shorthand: the latest connection opened.

    def connect(self, provider, device_id: str, llm=None) -> Connection:
        self.current = self.open(provider, device_id, llm)
        return self.current

    def query(self, provider, text: str, timeout: float = 30) -> str:
        assert self.current.memory is provider
        return self.ask(self.current, text, timeout)

    def save(self, provider, msgs, session_id: str | None = None, timeout: float = 120) -> None:
        """The latest connection ends with `msgs` as its dialogue; waits for its save thread."""
        conn = self.current
        assert conn.memory is provider
        conn.dialogue = list(msgs)
        if session_id:
            conn.session_id = session_id
        conn.save_and_close()
        conn.wait_saved(timeout)
        self.current = self.open(provider, conn.device_id, conn.llm)  # the device connects again

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()
        for name in [n for n in sys.modules if n == "core" or n.startswith("core.")]:
            del sys.modules[name]
