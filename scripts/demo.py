"""`make demo`: a simulated device (`xzmem sim`) and `xzmem chat` against it; no LLM, board or network needed.

On a terminal the chat is yours. Otherwise a short Chinese conversation is fed in (a name, two likes,
a family member, a schedule, a question), then `xzmem inspect` shows what the device now remembers.
The device and host data live in a temporary folder that is removed afterwards. `XZMEM_DEMO_T0`
(set by the Makefile when make starts) lets the demo say how long it took to show the first memory.
"""

import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

SCRIPT = [
    "你好！我叫王浩宇。",
    "我喜欢打篮球，还喜欢画画。",
    "我妈妈叫李娟，她是小学老师。",
    "明天下午3点提醒我去开家长会。",
    "我叫什么？",
]
READY = "xzmem device ready "
FIRST_MEMORY = "记住了："
XZMEM = [sys.executable, "-m", "xzmem"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_sim(data: Path, token: str, port: int) -> subprocess.Popen:
    """Start the simulated device (on this computer's UTC offset, so "明天下午3点" means the same to
    both sides) and wait for its ready line."""
    offset = time.localtime().tm_gmtoff
    sim = subprocess.Popen(
        [*XZMEM, "sim", "--data", str(data), "--token", token, "--listen", f"127.0.0.1:{port}", "--utc-offset", str(offset)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    seen = []
    for line in sim.stdout:
        seen.append(line)
        if line.startswith(READY):
            print("demo: simulated device at " + line[len(READY):].strip(), flush=True)
            # Keep reading so the device never blocks on a full pipe.
            threading.Thread(target=lambda: [None for _ in sim.stdout], daemon=True).start()
            return sim
    sim.wait()
    sys.exit("demo: the simulated device did not start:\n" + "".join(seen))


def scripted_chat(chat: list[str], env: dict[str, str], started: float) -> int:
    """Feed SCRIPT to the chat, echo its output, and note when the first memory is shown."""
    proc = subprocess.Popen(chat, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env)
    proc.stdin.write("\n".join(SCRIPT) + "\n")
    proc.stdin.close()
    first = None
    for line in proc.stdout:
        print(line, end="", flush=True)
        if first is None and line.startswith(FIRST_MEMORY):
            first = time.time() - started
            print(f"demo: first memory shown {first:.1f} s after make demo started", flush=True)
    return proc.wait()


def main() -> int:
    started = float(os.environ.get("XZMEM_DEMO_T0") or time.time())
    with tempfile.TemporaryDirectory(prefix="xzmem-demo-") as work:
        work = Path(work)
        token = secrets.token_hex(12)
        port = free_port()
        url = f"ws://127.0.0.1:{port}/mcp"
        env = dict(os.environ, XZMEM_CONFIG=str(work / "config.toml"), XZMEM_DATA_DIR=str(work / "host"),
                   PYTHONUNBUFFERED="1")
        sim = start_sim(work / "device", token, port)
        try:
            chat = [*XZMEM, "chat", "--device", url, "--token", token]
            if sys.stdin.isatty():
                print("demo: chat with the device's memory; /exit or Ctrl-D ends it", flush=True)
                code = subprocess.run(chat, env=env).returncode
            else:
                code = scripted_chat(chat, env, started)
            print("\ndemo: what the device remembers now (xzmem inspect):", flush=True)
            code = code or subprocess.run([*XZMEM, "inspect", "--device", url, "--token", token], env=env).returncode
        finally:
            sim.send_signal(signal.SIGTERM)
            try:
                sim.wait(timeout=20)
            except subprocess.TimeoutExpired:
                sim.kill()
                sim.wait()
    return code


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C reaches the chat and the device too; each stops on its own
        sys.stderr.write("\ndemo: interrupted; the simulated device was stopped and its folder removed\n")
        sys.exit(130)
