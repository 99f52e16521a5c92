"""memory.ws and memory.server against the `websockets` library, in both roles, over loopback."""

import asyncio
import json
import socket
from urllib.parse import quote

import pytest
from link_helpers import TOKEN, serving
from memory import mcp, ws, wsclient
from websockets.asyncio.client import connect
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed, InvalidStatus

pytestmark = pytest.mark.timeout(60)


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 30))


def client(s, token=TOKEN, query=False, **kwargs):
    """A websockets client for a running Server, token by header (default) or query."""
    url = s.url + ("?token=" + quote(token, safe="") if query else "")
    headers = {} if query or token is None else {"Authorization": "Bearer " + token}
    return connect(url, subprotocols=["mcp"], additional_headers=headers, **kwargs)


async def rpc(sock, method, params=None, rid=1):
    msg = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    await sock.send(json.dumps(msg))
    return json.loads(await sock.recv())


# ---- our server, the websockets client ----


def test_header_and_query_tokens_open_an_mcp_session():
    async def main():
        async with serving() as s:
            for query in (False, True):
                async with client(s, query=query) as c:
                    assert c.subprotocol == "mcp"
                    r = await rpc(c, "initialize", {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
                    assert r["result"]["protocolVersion"] == "2024-11-05"
                    r = await rpc(c, "tools/call", {"name": "echo", "arguments": {"text": "你好"}}, rid="x_n_3")
                    assert r["id"] == "x_n_3"
                    assert json.loads(r["result"]["content"][0]["text"]) == {"echo": {"text": "你好"}, "trusted": True}
                    names = [t["name"] for t in (await rpc(c, "tools/list", {"withUserTools": True}))["result"]["tools"]]
                    assert names == ["echo", "note", "sync"]

    run(main())


@pytest.mark.parametrize(
    "token, query",
    [(None, False), ("wrong", False), ("wrong", True), (TOKEN[:-1], False), (TOKEN + "x", True), ("", True)],
)
def test_missing_or_wrong_token_is_401_before_upgrade(token, query):
    async def main():
        async with serving() as s:
            with pytest.raises(InvalidStatus) as e:
                async with client(s, token=token, query=query):
                    pass
            assert e.value.response.status_code == 401
            assert e.value.response.headers["WWW-Authenticate"] == "Bearer"
            assert s.connections == []
            assert s.refused == 1

    run(main())


def test_wrong_path_is_404_and_a_plain_get_is_refused():
    async def main():
        async with serving() as s:
            with pytest.raises(InvalidStatus) as e:
                async with connect(s.url.replace("/mcp", "/other") + "?token=" + "x", subprotocols=["mcp"]):
                    pass
            assert e.value.response.status_code == 404
            reader, writer = await asyncio.open_connection("127.0.0.1", s.port)
            writer.write(b"GET /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN.encode() + b"\r\n\r\n")
            status = await reader.readline()
            assert status.startswith(b"HTTP/1.1 426 "), status
            writer.close()

    run(main())


def test_without_subprotocol_the_session_still_works():
    async def main():
        async with serving() as s:
            async with connect(s.url, additional_headers={"Authorization": "Bearer " + TOKEN}) as c:
                assert c.subprotocol is None
                assert (await rpc(c, "ping"))["result"] == {}

    run(main())


def test_many_clients_at_once_each_get_their_own_answers():
    async def one(s, n):
        async with client(s) as c:
            for i in range(25):
                r = await rpc(c, "tools/call", {"name": "echo", "arguments": {"text": f"c{n}-{i}"}}, rid=f"{n}-{i}")
                assert r["id"] == f"{n}-{i}"
                assert json.loads(r["result"]["content"][0]["text"])["echo"]["text"] == f"c{n}-{i}"
                await asyncio.sleep(0)

    async def main():
        async with serving() as s:
            await asyncio.gather(*(one(s, n) for n in range(6)))

    run(main())


def test_client_limit_answers_503_and_frees_slots():
    async def main():
        async with serving(max_clients=4) as s:
            clients = [await client(s) for _ in range(4)]
            assert len(s.connections) == 4
            with pytest.raises(InvalidStatus) as e:
                async with client(s):
                    pass
            assert e.value.response.status_code == 503
            await clients.pop().close()
            for _ in range(50):
                if len(s.connections) == 3:
                    break
                await asyncio.sleep(0.02)
            async with client(s) as c:
                assert (await rpc(c, "ping"))["result"] == {}
            for c in clients:
                await c.close()

    run(main())


def test_ping_pong_and_close_codes():
    async def main():
        async with serving() as s:
            async with client(s) as c:
                latency = await (await c.ping(b"hello"))
                assert latency >= 0
                await c.close(4000, "bye")
                assert c.protocol.close_rcvd.code == 4000
            async with client(s) as c:
                await s.stop()
                with pytest.raises(ConnectionClosed):
                    await c.recv()
                assert c.protocol.close_rcvd.code == 1001

    run(main())


def test_a_message_over_the_limit_gets_an_error_naming_it_and_the_session_goes_on():
    async def main():
        async with serving() as s:
            async with client(s) as c:
                shell = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": ""}}}, separators=(",", ":"))
                exact = shell.replace('"text":""', '"text":"%s"' % ("a" * (ws.MAX_MESSAGE - len(shell))))
                assert len(exact.encode()) == ws.MAX_MESSAGE == 4096
                await c.send(exact)
                assert json.loads(await c.recv())["result"]["isError"] is False
                # 700 Chinese characters: 2,100 bytes as UTF-8, but 4,200 escaped as \uXXXX by the client: over the limit.
                big = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "记" * 700}}})
                await c.send(big)
                answer = json.loads(await c.recv())
                assert answer["id"] == 2 and answer["error"]["code"] == -32600
                assert "4096" in answer["error"]["message"] and str(len(big)) in answer["error"]["message"]
                assert (await rpc(c, "ping", rid=3))["result"] == {}  # same connection
                await c.send("x" * (ws.SKIP_MAX + 1))  # too big even to read past: closed
                with pytest.raises(ConnectionClosed):
                    await c.recv()
                assert c.protocol.close_rcvd.code == 1009
            async with client(s) as c:  # the server is still there
                assert (await rpc(c, "ping"))["result"] == {}

    run(main())


def test_binary_messages_are_read_as_utf8_json():
    async def main():
        async with serving() as s:
            async with client(s) as c:
                await c.send(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}).encode())
                assert json.loads(await c.recv()) == {"jsonrpc": "2.0", "id": 2, "result": {}}
                await c.send(b"\xff\xfe")
                assert json.loads(await c.recv())["error"]["code"] == -32700

    run(main())


def test_broadcast_reaches_every_client():
    async def main():
        async with serving() as s:
            clients = [await client(s) for _ in range(3)]
            note = mcp.notification("notifications/message", {"level": "info", "logger": "memory.reminder", "data": {"title": "吃药"}})
            assert await s.broadcast(note) == 3
            for c in clients:
                assert json.loads(await c.recv())["params"]["data"] == {"title": "吃药"}
                await c.close()

    run(main())


class Flaky(mcp.Dispatcher):
    async def handle_async(self, text, link):
        if "boom" in text:
            raise RuntimeError("bug in a link")
        return await super().handle_async(text, link)


def test_a_crashing_connection_leaves_the_others_running():
    async def main():
        async with serving(Flaky()) as s:
            async with client(s) as healthy, client(s) as doomed:
                await doomed.send("boom")
                with pytest.raises(ConnectionClosed):
                    await doomed.recv()
                assert (await rpc(healthy, "ping", rid=7))["id"] == 7
            async with client(s) as c:
                assert (await rpc(c, "ping"))["result"] == {}

    run(main())


def test_silent_clients_are_dropped_by_the_keepalive():
    async def main():
        async with serving(ping_interval=0.2) as s:
            raw = socket.create_connection(("127.0.0.1", s.port))
            raw.sendall(
                b"GET /mcp HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                b"Authorization: Bearer " + TOKEN.encode() + b"\r\n\r\n"
            )
            async with client(s, ping_interval=None) as answering:
                await asyncio.sleep(0.1)
                assert len(s.connections) == 2
                for _ in range(40):
                    await asyncio.sleep(0.05)
                    if len(s.connections) == 1:
                        break
                assert len(s.connections) == 1  # the raw socket never answered the ping
                assert (await rpc(answering, "ping"))["result"] == {}  # the websockets client ponged
            raw.close()

    run(main())


# ---- our client, the websockets server ----


@pytest.fixture
def ws_server():
    """Runs a websockets server in the test's loop: echo, fragments, pings, big messages, closes."""

    async def handler(conn):
        seen["auth"] = conn.request.headers.get("Authorization")
        seen["subprotocol"] = conn.subprotocol
        try:
            async for msg in conn:
                if msg == "ping me":
                    seen["pong"] = await (await conn.ping(b"are you there"))
                    await conn.send("ponged")
                elif msg == "big":
                    await conn.send("b" * 20000)
                elif msg == "huge":
                    await conn.send("h" * (ws.SKIP_MAX + 1))
                elif msg == "close 4001":
                    await conn.close(4001, "done")
                elif msg == "fragments":
                    await conn.send(["frag", "ment", "ed"])
                else:
                    await conn.send(msg)
        finally:
            seen["close"] = conn.protocol.close_rcvd.code if conn.protocol.close_rcvd else None

    def check(conn, request):
        if request.headers.get("Authorization") != "Bearer T":
            return conn.respond(401, "token refused\n")
        return None

    seen = {}
    return handler, check, seen


def test_our_client_talks_to_a_websockets_server(ws_server):
    handler, check, seen = ws_server

    async def main():
        async with serve(handler, "127.0.0.1", 0, subprotocols=["mcp"], process_request=check) as srv:
            port = srv.sockets[0].getsockname()[1]
            url = f"ws://127.0.0.1:{port}/mcp/?token=x"
            c = await wsclient.connect(url, headers=[("Authorization", "Bearer T")], subprotocols=("mcp",))
            assert c.subprotocol == "mcp"
            await c.send("记忆 hello")
            assert await c.recv() == "记忆 hello"
            await c.send(b"\x00\x01")
            assert await c.recv() == b"\x00\x01"
            await c.send("x" * 4000, frame_size=1000)  # the server reassembles our fragments
            assert bytes(await c.recv()) == b"x" * 4000  # a long text: a view of the receive buffer
            await c.send("fragments")
            assert await c.recv() == "fragmented"
            await c.send("ping me")
            assert await c.recv() == "ponged"
            assert seen["pong"] >= 0
            await c.close()
            assert c.close_code == 1000
            await asyncio.sleep(0.05)
            assert seen == {"auth": "Bearer T", "subprotocol": "mcp", "pong": seen["pong"], "close": 1000}

    run(main())


def test_our_client_reads_past_a_big_message_refuses_a_huge_one_and_sees_close_codes(ws_server):
    handler, check, seen = ws_server

    async def main():
        async with serve(handler, "127.0.0.1", 0, subprotocols=["mcp"], process_request=check) as srv:
            url = f"ws://127.0.0.1:{srv.sockets[0].getsockname()[1]}/"
            c = await wsclient.connect(url, headers=[("Authorization", "Bearer T")], subprotocols=("mcp",))
            await c.send("big")
            with pytest.raises(ws.MessageTooBig) as too_big:
                await c.recv()
            assert (too_big.value.size, too_big.value.head) == (20000, b"b" * 96)
            await c.send("still here")
            assert await c.recv() == "still here"
            await c.send("huge")
            with pytest.raises(ws.ConnectionClosed) as e:
                await c.recv()
            assert e.value.code == 1009
            await asyncio.sleep(0.05)
            assert seen["close"] == 1009
            c = await wsclient.connect(url, headers=[("Authorization", "Bearer T")], subprotocols=("chat", "mcp"))
            assert c.subprotocol == "mcp"
            await c.send("close 4001")
            with pytest.raises(ws.ConnectionClosed) as e:
                await c.recv()
            assert (e.value.code, e.value.reason) == (4001, "done")
            with pytest.raises(ws.HandshakeError) as e:
                await wsclient.connect(url, headers=[("Authorization", "Bearer wrong")])
            assert e.value.status == 401
            assert str(e.value).endswith("server refused the upgrade: token refused")  # the server's own words

    run(main())


def test_our_client_and_our_server_together():
    async def main():
        async with serving() as s:
            c = await wsclient.connect(s.url + "?token=" + quote(TOKEN, safe=""), subprotocols=("mcp",))
            assert c.subprotocol == "mcp"
            await c.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "note", "arguments": {"action": "put", "slot": 1, "text": "生日"}}}))
            assert json.loads(json.loads(await c.recv())["result"]["content"][0]["text"]) == {"slot": 1, "result": "UPDATED"}
            await c.close()
            with pytest.raises(ws.HandshakeError) as e:
                await wsclient.connect(s.url)
            assert e.value.status == 401

    run(main())


def test_a_client_that_never_finishes_its_request_is_cut_off():
    async def main():
        async with serving() as s:
            s.handshake_timeout = 0.3
            reader, writer = await asyncio.open_connection("127.0.0.1", s.port)
            writer.write(b"GET /mcp HTTP/1.1\r\nHost: x\r\n")  # and then nothing
            await writer.drain()
            assert await asyncio.wait_for(reader.read(), 3) == b""
            writer.close()
            async with client(s) as c:
                assert (await rpc(c, "ping"))["result"] == {}

    run(main())
