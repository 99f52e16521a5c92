"""xzmem gateway: devices dial in over both link kinds; host tools reach them by device id."""

import asyncio
import json
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest
import websockets
from link_helpers import dispatcher, until
from mcp import ClientSession
from mcp.client.websocket import websocket_client
from memory import endpoint, reminder, xiaozhi
from rich.console import Console
from test_outbound_links import CLIENT_ID, ITEM, Recorder, running
from typer.testing import CliRunner
from xzmem.cli import gateway as cli_gateway
from xzmem.cli.app import app
from xzmem.gateway.server import Event, Gateway, device_token

pytestmark = [pytest.mark.timeout(60), pytest.mark.filterwarnings("ignore::DeprecationWarning")]

TOKEN = "gw-token/+x="
EP_ID = "24:0a:c4:00:00:01"
XZ_ID = "24:0a:c4:00:00:02"


def q(token=TOKEN):
    return quote(token, safe="")


def own(device_id):
    """The token a device connects with: its own, made from the gateway's."""
    return q(device_token(TOKEN, device_id))


def endpoint_device(gw, d, announcer, **kw):
    return endpoint.EndpointLink(f"{gw.url}/mcp/?token={own(EP_ID)}", d, announcer, EP_ID, trusted=True,
                                 sleep=Recorder(), log=lambda m: None, **kw)


def xiaozhi_device(gw, d, announcer, **kw):
    return xiaozhi.XiaozhiLink(f"{gw.url}/xiaozhi/v1/", device_token(TOKEN, XZ_ID), XZ_ID, CLIENT_ID, d, announcer, trusted=True,
                               sleep=Recorder(), log=lambda m: None, **kw)


def device_url(gw, device_id):
    return f"{gw.url}/devices/{device_id}/mcp?token={q()}"


def get_devices(gw, token=TOKEN):
    with urllib.request.urlopen(f"http://127.0.0.1:{gw.port}/devices?token={q(token)}", timeout=5) as r:
        return r.headers["Content-Type"], json.loads(r.read())


def test_sdk_client_calls_a_device_through_the_gateway_and_reminders_arrive():
    async def main():
        events = []
        announcer = reminder.Announcer()
        async with Gateway(TOKEN, port=0, on_event=events.append) as gw, running(endpoint_device(gw, dispatcher(), announcer)):
            await until(lambda: EP_ID in gw.devices)
            async with websocket_client(device_url(gw, EP_ID)) as (read, write), ClientSession(read, write) as session:
                init = await session.initialize()
                assert init.serverInfo.name == "xzmem"
                assert [t.name for t in (await session.list_tools()).tools] == ["echo", "note"]
                result = await session.call_tool("echo", {"text": "经由网关"})
                assert json.loads(result.content[0].text) == {"echo": {"text": "经由网关"}, "trusted": True}
                synced = await session.call_tool("sync", {})  # a trusted gateway link lets host-only tools through
                assert synced.isError is False
            announcer.announce(ITEM)
            await until(lambda: any(e.kind == "reminder" for e in events))
            got = [e for e in events if e.kind == "reminder"][0]
            assert got.device_id == EP_ID and got.link == "endpoint"
            assert got.data["text"] == ITEM["text"] and got.data["priority"] == 4
            kind, listing = await asyncio.to_thread(get_devices, gw)
            assert kind == "application/json"
            assert [(d["device_id"], d["link"]) for d in listing] == [(EP_ID, "endpoint")]
        assert [e.kind for e in events][:1] == ["connected"]

    asyncio.run(main())


def test_xiaozhi_device_through_the_gateway_concurrent_callers_with_the_same_ids():
    async def main():
        events = []
        announcer = reminder.Announcer()
        async with Gateway(TOKEN, port=0, on_event=events.append) as gw, running(xiaozhi_device(gw, dispatcher(), announcer, prefix="")) as link:
            await until(lambda: link.ready)
            assert link.session_id == gw.devices[XZ_ID].session_id
            async with websockets.connect(device_url(gw, XZ_ID)) as a, websockets.connect(device_url(gw, XZ_ID)) as b:
                for c, word in ((a, "from a"), (b, "from b")):
                    await c.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                             "params": {"name": "echo", "arguments": {"text": word}}}))
                ra, rb = json.loads(await a.recv()), json.loads(await b.recv())
                assert ra["id"] == 1 and rb["id"] == 1
                assert json.loads(ra["result"]["content"][0]["text"])["echo"] == {"text": "from a"}
                assert json.loads(rb["result"]["content"][0]["text"])["echo"] == {"text": "from b"}
                await a.send(json.dumps({"jsonrpc": "2.0", "id": "s", "method": "tools/list", "params": {"withUserTools": True}}))
                listed = json.loads(await a.recv())
                assert "sync" in [t["name"] for t in listed["result"]["tools"]]
                announcer.announce(ITEM)
                pushed = json.loads(await asyncio.wait_for(b.recv(), 5))  # attached tools hear reminders too
                assert pushed["method"] == "notifications/message" and pushed["params"]["data"]["text"] == ITEM["text"]
            assert [e.data for e in events if e.kind == "reminder"] == [{"text": ITEM["text"]}]

    asyncio.run(main())


def test_reconnect_replaces_the_session_and_waiting_callers_get_an_error():
    async def main():
        async with Gateway(TOKEN, port=0) as gw:
            old = await websockets.connect(f"{gw.url}/mcp/?token={own('dev-1')}&device=dev-1")
            await until(lambda: "dev-1" in gw.devices)
            async with websockets.connect(device_url(gw, "dev-1")) as caller:
                await caller.send(json.dumps({"jsonrpc": "2.0", "id": 42, "method": "ping"}))
                forwarded = json.loads(await old.recv())
                assert forwarded["method"] == "ping" and forwarded["id"] != 42
                new = await websockets.connect(f"{gw.url}/mcp/?token={own('dev-1')}&device=dev-1")
                answer = json.loads(await asyncio.wait_for(caller.recv(), 5))
                assert answer["id"] == 42 and answer["error"]["code"] == -32000
                await asyncio.wait_for(old.wait_closed(), 5)
                assert old.close_code == 1000
                await caller.send(json.dumps({"jsonrpc": "2.0", "id": 43, "method": "ping"}))
                forwarded = json.loads(await new.recv())
                await new.send(json.dumps({"jsonrpc": "2.0", "id": forwarded["id"], "result": {}}))
                assert json.loads(await caller.recv()) == {"jsonrpc": "2.0", "id": 43, "result": {}}
                await new.close()
                await until(lambda: "dev-1" not in gw.devices)
                await caller.send(json.dumps({"jsonrpc": "2.0", "id": 44, "method": "ping"}))
                gone = json.loads(await caller.recv())
                assert gone["id"] == 44 and "not connected" in gone["error"]["message"]

    asyncio.run(main())


def test_gateway_refuses_wrong_tokens_unknown_devices_and_unnamed_devices():
    async def main():
        async with Gateway(TOKEN, port=0) as gw:
            for url, status in ((f"{gw.url}/mcp/?token=nope&device=x", 401),
                                (device_url(gw, "missing"), 404),
                                (f"{gw.url}/mcp/?token={q()}", 400),
                                (f"{gw.url}/mcp/?token={q()}&device=x", 401),  # the host's token is no device's
                                (f"{gw.url}/elsewhere?token={q()}", 404)):
                with pytest.raises(websockets.InvalidStatus) as e:
                    await websockets.connect(url)
                assert e.value.response.status_code == status, url
            with pytest.raises(urllib.error.HTTPError) as e:
                await asyncio.to_thread(get_devices, gw, "nope")
            assert e.value.code == 401
            e.value.close()
            # a device that never says hello on the xiaozhi path is closed, not registered
            gw.hello_timeout = 0.2
            async with websockets.connect(f"{gw.url}/xiaozhi/v1/", additional_headers={"Authorization": f"Bearer {device_token(TOKEN, 'quiet')}", "Device-Id": "quiet"}) as quiet:
                await asyncio.wait_for(quiet.wait_closed(), 5)
            assert "quiet" not in gw.devices

    asyncio.run(main())


def test_reminder_line_and_listen_parsing():
    console = Console(record=True, width=200)
    console.print(cli_gateway.reminder_line(Event("reminder", "dev[1]", "endpoint", ITEM)))
    text = console.export_text()
    assert "dev[1]" in text and ITEM["text"] in text and "2026-03-01 15:00" in text
    assert cli_gateway.parse_listen("127.0.0.1:9000") == ("127.0.0.1", 9000)
    assert cli_gateway.parse_listen(":9000") == ("0.0.0.0", 9000)
    assert cli_gateway.parse_listen("[::1]:9000") == ("::1", 9000)
    result = CliRunner().invoke(app, ["gateway", "--listen", "127.0.0.1:99999"])
    assert result.exit_code != 0 and "port must be 0-65535" in result.output


def test_xzmem_gateway_command_prints_a_device_reminder():
    async def main():
        env = dict(os.environ, PYTHONUNBUFFERED="1", COLUMNS="200")
        proc = await asyncio.create_subprocess_exec(str(Path(sys.executable).parent / "xzmem"), "gateway", "--listen", "127.0.0.1:0",
                                                    "--token", TOKEN, stdout=asyncio.subprocess.PIPE, env=env)
        try:
            lines = []

            async def read_until(word):
                while True:
                    line = (await asyncio.wait_for(proc.stdout.readline(), 20)).decode()
                    assert line, "gateway exited: " + "".join(lines)
                    lines.append(line)
                    if word in line:
                        return line

            ready = await read_until("xzmem gateway ready")
            port = int(ready.rsplit(":", 1)[1])
            announcer = reminder.Announcer()
            link = endpoint.EndpointLink(f"ws://127.0.0.1:{port}/mcp/?token={own(EP_ID)}", dispatcher(), announcer, EP_ID,
                                         sleep=Recorder(), log=lambda m: None)
            async with running(link):
                assert EP_ID in await read_until("connected")
                announcer.announce(ITEM)
                line = await read_until("reminder")
            assert EP_ID in line and ITEM["text"] in line
            assert any("/devices/<device_id>/mcp" in x for x in lines)
        finally:
            proc.terminate()
            await proc.wait()

    asyncio.run(main())
