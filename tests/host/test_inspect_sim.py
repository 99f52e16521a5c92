"""`xzmem inspect` against a real `xzmem sim`: learned times in the device's local time, and no
empty sections for what the device has not learned yet."""

import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta

from simdevice import SimDevice


def xzmem(tmp_path, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("XZMEM_")}
    env.update(XZMEM_CONFIG=str(tmp_path / "none.toml"), XZMEM_DATA_DIR=str(tmp_path / "host"), COLUMNS="160")
    return subprocess.run([sys.executable, "-m", "xzmem", *args], capture_output=True, text=True, env=env, timeout=60)


def test_inspect_shows_local_times_and_leaves_empty_sections_out(tmp_path):
    with SimDevice(tmp_path / "dev", "--utc-offset", str(-5 * 3600)) as device:
        empty = xzmem(tmp_path, "inspect", "--device", device.url)
        written = subprocess.run([sys.executable, "-m", "xzmem", "chat", "--device", device.url],
                                 input="我叫小红\n我喜欢猫\n", capture_output=True, text=True, timeout=60,
                                 env=dict(os.environ, XZMEM_CONFIG=str(tmp_path / "none.toml"),
                                          XZMEM_DATA_DIR=str(tmp_path / "host")))
        assert written.returncode == 0, written.stderr
        full = xzmem(tmp_path, "inspect", "--device", device.url)
        likes = xzmem(tmp_path, "inspect", "like", "--device", device.url)
    assert empty.returncode == 0, empty.stderr
    for section in ("likes", "family", "facts", "schedules", "moments"):
        assert section not in empty.stdout, empty.stdout
    assert "relationship" in empty.stdout
    assert "小红" in full.stdout and "猫" in full.stdout and "family" not in full.stdout
    local_now = datetime.now(UTC) + timedelta(hours=-5)
    shown = re.findall(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}", likes.stdout)
    assert shown, likes.stdout
    learned = datetime.strptime(shown[0], "%Y-%m-%d %H:%M").replace(tzinfo=UTC)
    assert abs((learned - local_now.replace(second=0, microsecond=0)).total_seconds()) < 180, (shown, local_now)
    assert not re.search(r"\b1[7-9]\d{8}\b", likes.stdout), likes.stdout  # no Unix seconds


def test_inspect_shows_the_hosts_keyed_memories(tmp_path):
    import asyncio
    import json

    from xzmem.device.client import DeviceClient
    from xzmem.device.ops import put_mem

    async def put(url):
        op = put_mem("mem_tea", "preference", "李雷最喜欢喝茉莉花茶", 7, "reflection", ["饮品"], 2,
                     1767225600, 1767225600, 1767225600)
        async with DeviceClient(url) as client:
            await client.sync(action="apply", batch_id="b-keyed-1", ops=[op.op])

    with SimDevice(tmp_path / "dev") as device:
        asyncio.run(put(device.url))
        full = xzmem(tmp_path, "inspect", "--device", device.url)
        keyed = xzmem(tmp_path, "inspect", "keyed", "--device", device.url)
        as_json = xzmem(tmp_path, "inspect", "--json", "--device", device.url)
    assert full.returncode == 0, full.stderr
    assert "keyed memories" in full.stdout and "茉莉花茶" in full.stdout and "mem_tea" in full.stdout
    assert keyed.returncode == 0 and "茉莉花茶" in keyed.stdout and "relationship" not in keyed.stdout
    assert not re.search(r"\b1[7-9]\d{8}\b", keyed.stdout), keyed.stdout  # times as dates
    data = json.loads(as_json.stdout)
    assert len(data["keyed_memories"]) == 1 and data["keyed_memories"][0]["payload"] == "李雷最喜欢喝茉莉花茶"
