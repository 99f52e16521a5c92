"""The outbox against a simulated device that loses power (SIGKILL) mid-batch: after the restart every
batch is applied, and none twice."""

import asyncio
import threading
import warnings

from simdevice import SimDevice
from xzmem.device.client import DeviceClient
from xzmem.device.outbox import Outbox

warnings.filterwarnings("ignore", category=DeprecationWarning)

FIRST = [{"op": "coins", "amount": 7}, {"op": "write", "type": "like", "content": "打篮球"}]
SECOND = [{"op": "coins", "amount": 5}, {"op": "write", "type": "name", "content": "王浩宇"}]


def quick_client(url: str) -> DeviceClient:
    return DeviceClient(url, reconnect_attempts=1, backoff=(0.1, 0.1), connect_timeout=2)


async def coins_and_overview(url: str) -> tuple[int, dict]:
    async with DeviceClient(url) as client:
        affection = await client.memory(action="read", type="coins")
        return affection["items"][0]["total_coins_spent"], await client.memory(action="read")


def test_a_killed_device_gets_every_batch_exactly_once(tmp_path):
    data = tmp_path / "dev"
    device = SimDevice(data).start()
    back = SimDevice(data, port=device.port)

    async def before_the_cut() -> tuple[str, str, str]:
        with Outbox(tmp_path / "outbox.sqlite3") as box:
            async with quick_client(device.url) as client:
                device_id = await client.device_id()
                first = box.enqueue(device_id, FIRST)
                # The device applies the first batch but its answer never reaches the outbox: the power goes.
                answer = await client.sync(action="apply", batch_id=first, ops=FIRST)
                assert answer["batch_id"] == first and not answer.get("replayed")
                device.kill()
                # A second batch is queued right after, and its drain finds no device.
                second = box.enqueue(device_id, SECOND)
                report = await box.drain(client, device_id)
                assert report.error and report.pending == 2 and report.acked == []
            return device_id, first, second

    async def after_the_restart(device_id: str) -> list:
        with Outbox(tmp_path / "outbox.sqlite3") as box:
            async with quick_client(back.url) as client:
                report = await box.drain(client, device_id)
                again = await box.drain(client, device_id)
            return [report.replayed, report.acked, report.error, box.pending(device_id), again.acked + again.replayed]

    try:
        device_id, first, second = asyncio.run(before_the_cut())
        back.start()
        replayed, acked, error, pending, resent = asyncio.run(after_the_restart(device_id))
        coins, overview = asyncio.run(coins_and_overview(back.url))
    finally:
        device.stop()
        back.stop()
    assert (replayed, acked, error, pending, resent) == ([first], [second], None, [], [])
    assert coins == 12  # 7 + 5: the replayed batch did not add its coins again
    assert overview["preferences"]["likes"] == ["打篮球"]
    assert overview["profile"]["name"] == "王浩宇"


def test_killed_while_draining_a_queue_every_coin_counts_once(tmp_path):
    data = tmp_path / "dev"
    device = SimDevice(data).start()
    back = SimDevice(data, port=device.port)
    batches = 40

    async def drain_until_the_cut() -> tuple[str, int]:
        with Outbox(tmp_path / "outbox.sqlite3") as box:
            async with quick_client(device.url) as client:
                device_id = await client.device_id()
                for i in range(batches):
                    box.enqueue(device_id, [{"op": "coins", "amount": 1}, {"op": "write", "type": "fact", "content": f"第{i}件事"}])
                acked = []

                def cut_after_a_few(batch) -> None:
                    acked.append(batch.batch_id)
                    if len(acked) == 5:
                        # The power goes while the outbox is already sending the next batch.
                        threading.Timer(0.005, device.kill).start()

                report = await box.drain(client, device_id, on_batch=cut_after_a_few)
                assert report.error and 0 < report.pending < batches - 4, report
            return device_id, report.pending

    async def drain_after_the_restart(device_id: str) -> list:
        with Outbox(tmp_path / "outbox.sqlite3") as box:
            async with quick_client(back.url) as client:
                report = await box.drain(client, device_id)
            return [report.error, len(report.acked) + len(report.replayed), box.pending(device_id)]

    try:
        device_id, left = asyncio.run(drain_until_the_cut())
        back.start()
        error, sent, pending = asyncio.run(drain_after_the_restart(device_id))
        coins, _ = asyncio.run(coins_and_overview(back.url))
    finally:
        device.stop()
        back.stop()
    assert (error, sent, pending) == (None, left, [])
    assert coins == batches
