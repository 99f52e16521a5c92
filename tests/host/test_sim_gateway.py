"""A simulated device behind NAT: it dials `xzmem gateway`, and the host reaches its memory through it."""

import asyncio
import warnings

from simdevice import SimDevice
from xzmem.device.client import DeviceClient
from xzmem.gateway.server import Gateway

warnings.filterwarnings("ignore", category=DeprecationWarning)
GATEWAY_TOKEN = "gateway-token-42"


def test_host_tools_reach_the_device_through_the_gateway(tmp_path):
    async def scenario():
        async with Gateway(GATEWAY_TOKEN, port=0) as gw:
            endpoint = gw.device_endpoint_url("24:0a:c4:00:00:01")  # with the device's own token
            device = SimDevice(tmp_path / "dev", "--endpoint", endpoint, "--trusted-links", "endpoint",
                               "--device-id", "24:0a:c4:00:00:01")
            await asyncio.to_thread(device.start)
            try:
                for _ in range(100):
                    if gw.devices:
                        break
                    await asyncio.sleep(0.1)
                assert [d["device_id"] for d in gw.listing()] == ["24:0a:c4:00:00:01"]
                url = gw.device_url("24:0a:c4:00:00:01")
                async with DeviceClient(url.split("?")[0], token=GATEWAY_TOKEN) as c:
                    out = await c.memory(action="write", type="name", content="小智的主人")
                    assert out["result"] == "ADDED"
                    names = [t["name"] for t in await c.list_tools(with_user_tools=True)]
                    assert names == ["memory", "memory_sync"]  # the gateway link is trusted
                    stats = await c.sync(action="stats")
                    assert stats["device_id"] == "24:0a:c4:00:00:01"
                    overview = await c.memory(action="read")
                    assert overview["profile"]["name"] == "小智的主人"
            finally:
                await asyncio.to_thread(device.stop)

    asyncio.run(scenario())
