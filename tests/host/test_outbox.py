"""The outbox keeps every batch until the device acknowledges it, in order, applied once."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import anyio
import pytest
from xzmem.device.client import DeviceClient
from xzmem.device.outbox import Outbox

ROOT = Path(__file__).resolve().parents[2]


def fact(text):
    return [{"op": "write", "type": "fact", "content": text}]


def drain(outbox, device, device_id=None, reconnect_attempts=0):
    async def run():
        async with DeviceClient(device.url, "secret", reconnect_attempts=reconnect_attempts, backoff=(0.05, 0.2)) as c:
            return await outbox.drain(c, device_id)

    return anyio.run(run)


def test_batches_survive_reopening_the_file_in_order(tmp_path):
    with Outbox(tmp_path / "outbox.sqlite3") as outbox:
        ids = [outbox.enqueue("dev-a", fact(f"fact {i}")) for i in range(3)]
    with Outbox(tmp_path / "outbox.sqlite3") as outbox:
        pending = outbox.pending("dev-a")
    assert [b.batch_id for b in pending] == ids
    assert [b.ops[0]["content"] for b in pending] == ["fact 0", "fact 1", "fact 2"]
    assert [b.seq for b in pending] == [1, 2, 3]


def test_drain_sends_in_order_and_acks(tmp_path, device):
    with Outbox(tmp_path / "outbox.sqlite3") as outbox:
        ids = [outbox.enqueue("fake-esp32-01", fact(f"fact {i}")) for i in range(4)]
        report = drain(outbox, device)
        assert report.error is None
        assert report.acked == ids
        assert outbox.pending("fake-esp32-01") == []
        assert outbox.get(ids[0]).result["results"][0]["result"] == "ADDED"
        assert drain(outbox, device).acked == []
    assert device.state.applied == ids
    assert [i["content"] for i in device.state.items["fact"]] == [f"fact {i}" for i in range(4)]


@pytest.mark.parametrize("fault", ["drop_after_apply", "drop_before_apply"])
def test_dropped_connection_mid_batch_resends_after_restart_and_applies_once(tmp_path, device, fault):
    path = tmp_path / "outbox.sqlite3"
    with Outbox(path) as outbox:
        ids = [outbox.enqueue("fake-esp32-01", fact(f"fact {i}")) for i in range(3)]
        device.state.faults[2] = fault
        report = drain(outbox, device)
        assert report.acked == ids[:1]
        assert report.pending == 2
        assert "dropped" in report.error
        stuck = outbox.get(ids[1])
        assert stuck.acked_at is None and stuck.attempts == 1 and "dropped" in stuck.last_error

    device.restart()
    with Outbox(path) as outbox:
        assert [b.batch_id for b in outbox.pending("fake-esp32-01")] == ids[1:]
        report = drain(outbox, device)
        assert report.error is None
        assert outbox.pending("fake-esp32-01") == []
        assert outbox.get(ids[1]).attempts == 2
    assert device.state.applied == ids
    assert [i["content"] for i in device.state.items["fact"]] == ["fact 0", "fact 1", "fact 2"]
    if fault == "drop_after_apply":
        assert report.replayed == ids[1:2] and report.acked == ids[2:]
    else:
        assert report.acked == ids[1:]


def test_client_reconnects_and_resends_within_one_drain(tmp_path, device):
    with Outbox(tmp_path / "outbox.sqlite3") as outbox:
        ids = [outbox.enqueue("fake-esp32-01", fact(f"fact {i}")) for i in range(3)]
        device.state.faults[2] = "drop_after_apply"
        report = drain(outbox, device, reconnect_attempts=3)
        assert report.error is None
        assert outbox.pending() == []
    assert device.state.applied == ids
    assert device.state.apply_calls == 4


def test_host_killed_while_the_device_applies_resends_on_next_run(tmp_path, device):
    path = tmp_path / "outbox.sqlite3"
    device.state.faults[1] = "hang_after_apply"
    script = textwrap.dedent(
        f"""
        import anyio
        from xzmem.device.client import DeviceClient
        from xzmem.device.outbox import Outbox

        outbox = Outbox({str(path)!r})
        outbox.enqueue("fake-esp32-01", [{{"op": "coins", "amount": 5}}])

        async def main():
            async with DeviceClient({device.url!r}, "secret") as client:
                await outbox.drain(client)

        anyio.run(main)
        """
    )
    host = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT)
    try:
        deadline = time.monotonic() + 20
        while device.state.apply_calls < 1:
            assert host.poll() is None and time.monotonic() < deadline, "host never sent the batch"
            time.sleep(0.02)
    finally:
        os.kill(host.pid, signal.SIGKILL)
        host.wait()
    assert device.state.coins == 5

    with Outbox(path) as outbox:
        (batch,) = outbox.pending("fake-esp32-01")
        assert batch.attempts == 1
        report = drain(outbox, device)
    assert report.replayed == [batch.batch_id]
    assert device.state.coins == 5
    assert device.state.applied == [batch.batch_id]


def test_devices_are_kept_apart(tmp_path, device):
    with Outbox(tmp_path / "outbox.sqlite3") as outbox:
        mine = outbox.enqueue("fake-esp32-01", fact("for this device"))
        theirs = outbox.enqueue("kitchen-esp32", fact("for another device"))
        report = drain(outbox, device)
        assert report.device_id == "fake-esp32-01"
        assert report.acked == [mine]
        assert [b.batch_id for b in outbox.pending()] == [theirs]
        assert outbox.pending("kitchen-esp32")[0].seq == 1
    assert device.state.applied == [mine]


def test_a_refused_batch_blocks_the_queue_until_dropped(tmp_path, device):
    with Outbox(tmp_path / "outbox.sqlite3") as outbox:
        first, second = outbox.enqueue("fake-esp32-01", fact("a")), outbox.enqueue("fake-esp32-01", fact("b"))
        device.state.faults[1] = "tool_error"
        report = drain(outbox, device)
        assert report.acked == [] and "nvs full" in report.error
        assert outbox.get(first).last_error == report.error
        assert outbox.drop(first)
        assert not outbox.drop(first)
        assert drain(outbox, device).acked == [second]
    assert device.state.applied == [second]


@pytest.mark.parametrize(
    "ops, message",
    [
        ([], "1-64 ops, got 0"),
        (fact("x") * 65, "1-64 ops, got 65"),
        ([{"op": "explode"}], "ops[0].op must be one of"),
        (["write"], "ops[0].op must be one of"),
    ],
)
def test_malformed_batches_are_refused_before_storing(tmp_path, ops, message):
    with Outbox(tmp_path / "outbox.sqlite3") as outbox:
        with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
            outbox.enqueue("dev", ops)
        assert outbox.pending() == []
