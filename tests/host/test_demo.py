"""`make demo`'s script without a terminal: the scripted conversation, then the device's memory shown."""

import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_demo_script_runs_the_scripted_chat_and_shows_the_memory():
    env = {k: v for k, v in os.environ.items() if not k.startswith("XZMEM_")}
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "demo.py")], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    chat, _, inspect = done.stdout.partition("demo: what the device remembers now (xzmem inspect):")
    assert "记住了：名字 王浩宇" in chat and "你叫王浩宇。" in chat
    assert "demo: first memory shown" in chat
    for remembered in ("王浩宇", "打篮球", "画画", "李娟", "去开家长会"):
        assert remembered in inspect, inspect


def test_ctrl_c_in_the_demo_stops_everything_without_a_traceback():
    """Ctrl-C reaches the whole foreground group: the demo, the simulated device and the chat."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("XZMEM_")}
    demo = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "demo.py")], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT,
                            start_new_session=True)
    seen = []
    for line in demo.stdout:
        seen.append(line)
        if line.startswith("demo: simulated device at"):
            break
    os.killpg(demo.pid, signal.SIGINT)
    rest, _ = demo.communicate(timeout=60)
    output = "".join(seen) + rest
    assert demo.returncode == 130, output
    assert "demo: interrupted" in output
    assert "Traceback" not in output and "CancelledError" not in output, output
