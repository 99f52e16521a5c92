"""The device's outbound links against test peers written from the xiaozhi and endpoint protocols."""

import asyncio
import json
import shutil
import ssl
import subprocess
from contextlib import asynccontextmanager
from urllib.parse import quote

import pytest
import websockets
from link_helpers import TOKEN, Note, dispatcher, running, serving
from memory import config, endpoint, links, mcp, reminder, wshttp, xiaozhi
from xiaozhi_server import EndpointRelay, XiaozhiServer

pytestmark = pytest.mark.timeout(60)

DEVICE_ID = "24:0a:c4:12:34:56"
CLIENT_ID = "5f0c8d7e-2a41-4b6c-9d3e-0a1b2c3d4e5f"
ITEM = {
    "content": "看牙医",
    "datetime": "2026-03-01 15:00",
    "priority": 4,
    "urgency": "urgent",
    "missed": False,
    "minutes": 30,
    "text": "重要！15:00 有「看牙医」，别忘了。",
    "repeat": "none",
}


class Padded(mcp.Tool):
    def __init__(self, i):
        self.name = f"pad_{i:02d}"
        self.description = f"Filler tool {i}. " + "lorem ipsum " * 150


class Recorder:
    """An injected backoff sleep: records each delay and waits only a moment."""

    def __init__(self):
        self.delays = []

    async def __call__(self, seconds):
        self.delays.append(seconds)
        await asyncio.sleep(0.01)


def xz_link(server, d, announcer=None, **kw):
    kw.setdefault("sleep", Recorder())
    kw.setdefault("log", lambda msg: None)
    return xiaozhi.XiaozhiLink(server.url, TOKEN, DEVICE_ID, CLIENT_ID, d, announcer, **kw)


def text_of(reply):
    return json.loads(reply["result"]["content"][0]["text"])


def test_xiaozhi_link_speaks_the_protocol():
    async def main():
        d = dispatcher()
        for i in range(12):
            d.add(Padded(i))
        announcer = reminder.Announcer()
        announcer.announce(ITEM)  # before any link: held, then said once the server is ready
        async with XiaozhiServer(TOKEN) as server, running(xz_link(server, d, announcer, prefix="[device_call]")):
            s = await server.next_session()
            # xinnan sends initialize before its own hello; the device answered it anyway
            init = server.early_init[1]
            assert init["id"] == 1 and init["result"]["protocolVersion"] == "2024-11-05"
            assert s.hello["audio_params"]["format"] == "opus"
            held = await asyncio.wait_for(s.listens.get(), 5)
            assert held == {"session_id": "sess-1", "type": "listen", "state": "detect", "text": "[device_call]" + ITEM["text"]}
            # tools/list without params (as xinnan asks), then each page by cursor, ids numeric and string
            page = await s.request("tools/list", rid=2)
            names = [t["name"] for t in page["result"]["tools"]]
            pages = 1
            while page["result"].get("nextCursor"):
                page = await s.request("tools/list", {"cursor": page["result"]["nextCursor"]}, rid=f"list-{pages}")
                assert page["id"] == f"list-{pages}"
                names += [t["name"] for t in page["result"]["tools"]]
                pages += 1
            assert pages > 1
            assert names == ["echo", "note"] + [f"pad_{i:02d}" for i in range(12)]
            first = await s.request("tools/list", {"cursor": ""}, rid=0)  # the firmware docs' empty cursor
            assert first["result"]["tools"][0]["name"] == "echo"
            hidden = await s.request("tools/list", {"withUserTools": True}, rid=3)
            assert "sync" not in [t["name"] for t in hidden["result"]["tools"]]
            reply = await s.request("tools/call", {"name": "echo", "arguments": {"text": "hi"}}, rid="c-7")
            assert reply["id"] == "c-7"
            assert text_of(reply) == {"echo": {"text": "hi"}, "trusted": False}
            refused = await s.request("tools/call", {"name": "sync", "arguments": {}}, rid=8)
            assert refused["error"]["code"] == -32602  # host-only tool: invisible on an untrusted link
            assert (await s.request("ping", rid=9.5))["result"] == {}
            announcer.announce(dict(ITEM, text="提醒一下"))
            live = await asyncio.wait_for(s.listens.get(), 5)
            assert live["text"] == "[device_call]提醒一下" and live["session_id"] == "sess-1"
            assert server.errors == []
            assert server.count == 1

    asyncio.run(main())


def test_xiaozhi_link_trusted_when_configured_reaches_host_tools():
    async def main():
        async with XiaozhiServer(TOKEN, mcp_before_hello=False) as server, running(xz_link(server, dispatcher(), trusted=True)):
            s = await server.next_session()
            reply = await s.request("tools/call", {"name": "sync", "arguments": {}}, rid=1)
            assert text_of(reply) == {"ok": True}
            listed = await s.request("tools/list", {"withUserTools": True}, rid=2)
            assert "sync" in [t["name"] for t in listed["result"]["tools"]]

    asyncio.run(main())


def test_server_that_never_says_hello_is_left_and_retried_with_backoff():
    async def main():
        async with XiaozhiServer(TOKEN, say_hello=False) as server:
            link = xz_link(server, dispatcher())
            link.hello_timeout = 0.3
            async with running(link):
                s = await server.next_session()
                # MCP still answered while waiting for the hello
                assert (await s.request("ping", rid=5))["result"] == {}
                await server.next_session()
                await server.next_session()
                assert link.sleep.delays[:2] == [1, 2]
                assert link.ready is False
            assert server.errors == []

    asyncio.run(main())


def test_xiaozhi_garbage_is_ignored_or_answered_and_the_link_stays():
    async def main():
        d = dispatcher()
        async with XiaozhiServer(TOKEN) as server, running(xz_link(server, d)) as link:
            s = await server.next_session()
            for junk in ("not json", "[1,2]", '{"type":"mcp"}', '{"type":"mcp","payload":"x"}', '{"type":"tts","state":"start"}', "null"):
                await s.ws.send(junk)
            await s.ws.send(b"\x00\x01opus")
            await s.send_mcp({"jsonrpc": "2.0", "id": 7})  # no method: an error with the same id
            bad = await s.request("tools/call", {"name": "note", "arguments": {"action": "put", "slot": 99}}, rid=11)
            # A voice server speaks isError results as a fixed line: the refusal goes to its model instead.
            assert bad["result"] == {"content": [{"type": "text", "text": "slot must be 0-7, got 99"}], "isError": False}
            err = await s.request("nonsense/method", rid=12)
            assert err["error"]["code"] == -32601
            good = await s.request("tools/call", {"name": "note", "arguments": {"action": "put", "slot": 1, "text": "ok"}}, rid=13)
            assert text_of(good)["result"] == "UPDATED"
            assert link.connects == 1 and server.count == 1
            assert any(m.get("payload", {}).get("id") == 7 and "error" in m["payload"] for m in s.raw)

    asyncio.run(main())


def test_bad_server_hello_ends_the_connection():
    async def main():
        async with XiaozhiServer(TOKEN, say_hello=False, mcp_before_hello=False) as server:
            async with running(xz_link(server, dispatcher())) as link:
                s = await server.next_session()
                await s.ws.send(json.dumps({"type": "hello", "transport": "udp"}))
                await server.next_session()
                assert link.ready is False and link.sleep.delays == [1]

    asyncio.run(main())


def endpoint_link(relay, d, announcer=None, **kw):
    kw.setdefault("sleep", Recorder())
    kw.setdefault("log", lambda msg: None)
    return endpoint.EndpointLink(relay.url, d, announcer, **kw)


def test_endpoint_link_echoes_relay_ids_exactly_and_sends_reminders():
    async def main():
        d = dispatcher()
        for i in range(12):
            d.add(Padded(i))
        announcer = reminder.Announcer()
        async with EndpointRelay(TOKEN) as relay, running(endpoint_link(relay, d, announcer)):
            s = await relay.next_session()
            rid = relay.rewrite(3)
            init = await s.request("initialize", {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "relay", "version": "1"}}, rid=rid)
            assert init["id"] == rid and init["result"]["protocolVersion"] == "2025-03-26"
            await s.send_mcp({"jsonrpc": "2.0", "method": "notifications/initialized"})
            names, cursor, n = [], None, 4
            while True:
                rid = relay.rewrite(n)
                page = await s.request("tools/list", {"cursor": cursor} if cursor else None, rid=rid)
                assert page["id"] == rid
                names += [t["name"] for t in page["result"]["tools"]]
                cursor = page["result"].get("nextCursor")
                n += 1
                if not cursor:
                    break
            assert len(names) == 14 and n > 5
            rid = relay.rewrite("abc-1")
            reply = await s.request("tools/call", {"name": "echo", "arguments": {"text": "x"}}, rid=rid)
            assert reply["id"] == rid and text_of(reply)["trusted"] is False
            assert (await s.request("ping", rid=relay.rewrite(99)))["result"] == {}
            announcer.announce(ITEM)
            note = await asyncio.wait_for(s.notifications.get(), 5)
            assert note["method"] == "notifications/message"
            params = note["params"]
            assert params["level"] == "info" and params["logger"] == "memory.reminder"
            assert params["data"] == {k: ITEM[k] for k in ("content", "datetime", "priority", "urgency", "missed", "minutes", "text")}
            assert relay.errors == []

    asyncio.run(main())


def test_link_dies_mid_call_device_reconnects_keeps_data_and_other_links_serve():
    async def main():
        note = Note()
        d = mcp.Dispatcher()
        d.add(note)
        async with EndpointRelay(TOKEN) as relay, serving(d) as srv, running(endpoint_link(relay, d)) as link:
            s = await relay.next_session()
            # the call arrives, the relay drops the TCP connection before the answer can go back
            await s.send_mcp({"jsonrpc": "2.0", "id": relay.rewrite(1), "method": "tools/call", "params": {"name": "note", "arguments": {"action": "put", "slot": 2, "text": "kept"}}})
            await asyncio.sleep(0.05)
            s.ws.transport.abort()
            s2 = await relay.next_session()
            assert link.sleep.delays == [1]  # it had done real work, so the backoff starts again at 1
            got = await s2.request("tools/call", {"name": "note", "arguments": {"action": "get", "slot": 2}}, rid=relay.rewrite(2))
            assert text_of(got)["text"] == "kept"
            assert note.slots == {2: "kept"}
            # now the endpoint goes away for good: the device keeps retrying, the server link keeps serving
            await relay.__aexit__(None, None, None)
            async with websockets.connect(srv.url + "?token=" + quote(TOKEN, safe=""), subprotocols=["mcp"]) as c:
                await asyncio.sleep(0.2)
                await c.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "note", "arguments": {"action": "get", "slot": 2}}}))
                reply = json.loads(await c.recv())
                assert text_of(reply)["text"] == "kept"
            assert link.sleep.delays[:4] == [1, 1, 2, 4]

    asyncio.run(main())


def test_backoff_doubles_to_600_and_resets_after_a_healthy_connection():
    async def main():
        async with EndpointRelay(TOKEN) as relay:
            url = relay.url
        # nothing listens there any more: every attempt is refused
        link = endpoint.EndpointLink(url, dispatcher(), sleep=Recorder(), log=lambda msg: None)
        async with running(link):
            while len(link.sleep.delays) < 13:
                await asyncio.sleep(0.01)
        assert link.sleep.delays[:13] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 600, 600, 600]
        assert link.connects == 0

    asyncio.run(main())


@asynccontextmanager
async def silent_server():
    """Completes the WebSocket upgrade, then never reads or answers anything (a dead peer behind NAT)."""
    socks = []

    async def handle(reader, writer):
        request = await wshttp.read_request(reader)
        socks.append(await wshttp.accept(reader, writer, request))
        await asyncio.sleep(30)

    srv = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        yield f"ws://127.0.0.1:{srv.sockets[0].getsockname()[1]}/mcp/?token=t", socks
    finally:
        for s in socks:
            s.abort()
        srv.close()


def test_idle_link_is_declared_dead_and_redialled():
    async def main():
        logs = []
        async with silent_server() as (url, socks):
            link = endpoint.EndpointLink(url, dispatcher(), sleep=Recorder(), idle_timeout=0.4, log=logs.append)
            async with running(link):
                while link.connects < 2:
                    await asyncio.sleep(0.05)
        assert any("no frame" in m for m in logs)
        assert link.sleep.delays[0] == 1

    asyncio.run(main())


def test_wrong_token_is_a_failed_connection_not_a_crash():
    async def main():
        async with EndpointRelay(TOKEN) as relay:
            link = endpoint.EndpointLink(relay.url.split("?")[0] + "?token=wrong", dispatcher(), sleep=Recorder(), log=lambda m: None)
            async with running(link):
                while len(link.sleep.delays) < 3:
                    await asyncio.sleep(0.01)
            assert link.sleep.delays[:3] == [1, 2, 4]

    asyncio.run(main())


@pytest.fixture
def self_signed(tmp_path):
    """A certificate for 127.0.0.1 made by openssl: (server context, CA file the device trusts)."""
    if not shutil.which("openssl"):
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    return ctx, cert


def test_wss_endpoint_checked_against_the_configured_ca(self_signed):
    server_ctx, ca = self_signed

    async def main():
        async with EndpointRelay(TOKEN, ssl=server_ctx) as relay:
            assert relay.url.startswith("wss://")
            cfg = config.validate({"endpoint_url": relay.url, "tls_ca": str(ca), "device_id": "24:0a:c4:00:00:09"})
            [link] = links.build_links(cfg, dispatcher(), None, log=lambda m: None, sleep=Recorder())
            async with running(link):
                s = await relay.next_session()
                assert s.headers["Device-Id"] == "24:0a:c4:00:00:09"
                assert (await s.request("ping", rid=relay.rewrite(1)))["result"] == {}
            # without the CA the certificate is refused: no session, only growing delays
            stranger = endpoint.EndpointLink(relay.url, dispatcher(), sleep=Recorder(), log=lambda m: None)
            async with running(stranger):
                while len(stranger.sleep.delays) < 2:
                    await asyncio.sleep(0.01)
            assert stranger.connects == 0 and stranger.sleep.delays[:2] == [1, 2]
            assert relay.count == 1

    asyncio.run(main())
