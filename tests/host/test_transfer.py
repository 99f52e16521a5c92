"""Export paging and chunked import against the fake device, with more records than one page."""

import anyio
from fake_device import DeviceState, FakeDevice
from xzmem.device.client import DeviceClient
from xzmem.device.transfer import (
    IMPORT_CHUNK,
    export_records,
    import_chunks,
    import_records,
    read_export,
    write_export,
)


def test_many_records_page_out_and_chunk_back_in(device, tmp_path):
    for i in range(130):
        device.state.write({"type": "fact", "content": f"fact {i}"})
    pages = []

    async def export():
        async with DeviceClient(device.url, "secret") as client:
            return await export_records(client, pages.append)

    records = anyio.run(export)
    assert pages == [100, 30]
    write_export(tmp_path / "e.json", "fake-esp32-01", records)
    assert read_export(tmp_path / "e.json") == records
    assert not (tmp_path / "e.json.partial").exists()

    fresh = FakeDevice(DeviceState(device_id="other")).start()
    chunks = []

    async def load():
        async with DeviceClient(fresh.url, "secret") as client:
            return await import_records(client, records, chunks.append)

    try:
        answers = anyio.run(load)
    finally:
        fresh.stop()
    assert chunks == [IMPORT_CHUNK] * 5 + [130 - 5 * IMPORT_CHUNK]
    assert all(not a["replayed"] for a in answers)
    assert fresh.state.records() == device.state.records()


def test_chunk_ids_depend_only_on_the_records():
    records = [{"type": "fact", "content": str(i)} for i in range(60)]
    ids = [batch_id for batch_id, _ in import_chunks(records)]
    assert ids == [batch_id for batch_id, _ in import_chunks([dict(r) for r in records])]
    assert len(set(ids)) == 3 and all(len(i) <= 64 for i in ids)
    assert ids != [batch_id for batch_id, _ in import_chunks(records[:-1] + [{"type": "fact", "content": "x"}])]
