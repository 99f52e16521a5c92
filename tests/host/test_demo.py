"""`make demo`'s script without a terminal: the scripted conversation, then the device's memory shown."""

import os
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
