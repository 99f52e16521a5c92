"""Start `xzmem sim` as a real process for tests: a free port, the ready line, a clean stop."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path

from mcp import ClientSession
from mcp.client.websocket import websocket_client

TOKEN = "test-token-1234"
READY = "xzmem device ready "


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SimDevice:
    def __init__(self, data: Path, *extra: str, port: int | None = None):
        self.data = data
        self.port = port or free_port()
        self.extra = list(extra)
        self.proc: subprocess.Popen | None = None
        self.output: list[str] = []

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/mcp?token={TOKEN}"

    def start(self, timeout: float = 30) -> SimDevice:
        cmd = [sys.executable, "-m", "xzmem", "sim", "--data", str(self.data), "--token", TOKEN,
               "--listen", f"127.0.0.1:{self.port}", *self.extra]
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.output.append(line)
            if line.startswith(READY):
                return self
        self.stop()
        raise RuntimeError("simulator did not become ready:\n" + "".join(self.output))

    def stop(self, sig: int = signal.SIGTERM) -> str:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                rest, _ = self.proc.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                rest, _ = self.proc.communicate()
            self.output.append(rest or "")
        return "".join(self.output)

    def kill(self) -> None:
        """Power cut: SIGKILL, no flush."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self) -> SimDevice:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


@asynccontextmanager
async def session(url: str, logging_callback=None):
    async with websocket_client(url) as (r, w), ClientSession(r, w, logging_callback=logging_callback) as s:
        await s.initialize()
        yield s


async def call(s: ClientSession, tool: str, args: dict):
    """(isError, parsed JSON or text) of one tools/call."""
    r = await s.call_tool(tool, args)
    text = r.content[0].text
    try:
        return r.isError, json.loads(text)
    except ValueError:
        return r.isError, text
