"""The device reads one message of at most 4,096 bytes; the host's syncs, imports and outbox keep to it.

Against `xzmem sim` (the firmware's own WebSocket code): a 64-op sync sent whole is refused with an
error naming the limit, and the same ops split by make_batches are all applied; a batch an older
outbox stored whole goes out in parts and is acknowledged once.
"""

import asyncio
import json
import sqlite3
import time

import pytest
from simdevice import TOKEN, SimDevice
from xzmem.device.client import DeviceClient, DeviceError
from xzmem.device.ops import BATCH_MAX_BYTES, MESSAGE_MAX_BYTES, json_bytes, make_batches, split_runs
from xzmem.device.outbox import Outbox
from xzmem.device.transfer import import_chunks

SAID = "今天放学以后和好朋友一起去公园放风筝了"


def facts(n):
    return [{"op": "write", "type": "fact", "content": f"{SAID}{i}"} for i in range(n)]


def client(device):
    return DeviceClient(device.url, TOKEN, reconnect_attempts=0)


def test_batches_keep_to_the_message_limit_and_their_order():
    ops = facts(64)
    assert json_bytes(ops) > MESSAGE_MAX_BYTES
    batches = make_batches("test", ops)
    assert len(batches) >= 2
    assert all(json_bytes(b.ops) <= BATCH_MAX_BYTES for b in batches)
    assert [op for b in batches for op in b.ops] == ops
    assert len({b.batch_id for b in batches}) == len(batches)
    short = [{"op": "coins", "amount": 1}] * 100
    assert [len(b.ops) for b in make_batches("test", short)] == [64, 36]  # the count limit still holds


def test_import_chunks_keep_to_the_limit():
    records = [{"type": "fact", "content": f"{SAID}{i}", "created_at": 1767225600} for i in range(60)]
    chunks = import_chunks(records)
    assert all(json_bytes(c) <= BATCH_MAX_BYTES and len(c) <= 25 for _, c in chunks)
    assert [r for _, c in chunks for r in c] == records


def test_a_long_sync_is_refused_whole_and_applied_in_batches(tmp_path):
    ops = facts(64)
    with SimDevice(tmp_path / "dev") as device:
        async def run():
            async with client(device) as c:
                with pytest.raises(DeviceError) as refused:
                    await c.sync(action="apply", batch_id="whole", ops=ops)
                answers = [await c.sync(action="apply", batch_id=b.batch_id, ops=b.ops)
                           for b in make_batches("test", ops)]
                stored = await c.memory(action="recall", type="fact", keyword=SAID, limit=50)
            return refused.value, answers, stored

        refused, answers, stored = asyncio.run(run())
    assert "4096" in str(refused)
    results = [r["result"] for a in answers for r in a["results"]]
    assert len(results) == 64 and "REFUSED" not in results, results
    assert SAID + "63" in json.dumps(stored, ensure_ascii=False)


def test_an_outbox_batch_stored_whole_goes_in_parts(tmp_path):
    path = tmp_path / "outbox.sqlite3"
    ops = facts(40)
    with Outbox(path):
        pass
    with sqlite3.connect(path) as db:  # as an outbox from before the limit kept it
        db.execute("INSERT INTO batches (device_id, seq, batch_id, ops, created_at) VALUES (?, 1, 'bold', ?, ?)",
                   ("sim", json.dumps(ops, ensure_ascii=False), time.time()))
    with SimDevice(tmp_path / "dev") as device, Outbox(path) as outbox:
        async def drain():
            async with client(device) as c:
                return await outbox.drain(c, "sim")

        report = asyncio.run(drain())
        assert report.error is None and report.acked == ["bold"], report
        answer = outbox.get("bold").result
        assert len(answer["parts"]) >= 2
        assert [p["batch_id"] for p in answer["parts"]] == [f"bold.{k}" for k in range(len(split_runs(ops, 64)))]
        assert sum(len(p["results"]) for p in answer["parts"]) == 40
        assert asyncio.run(drain()).acked == []


def test_the_outbox_refuses_a_batch_too_long_for_one_message(tmp_path):
    with Outbox(tmp_path / "outbox.sqlite3") as outbox:
        with pytest.raises(ValueError, match="bytes of JSON, over the device's 3584"):
            outbox.enqueue("dev", facts(64))
        assert outbox.pending() == []
