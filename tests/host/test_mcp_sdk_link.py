"""The official `mcp` Python SDK's WebSocket client against our server and dispatcher."""

import asyncio
import json
from urllib.parse import quote

import pytest
from link_helpers import TOKEN, dispatcher, serving
from mcp import ClientSession
from mcp.client.websocket import websocket_client
from mcp.shared.exceptions import McpError
from mcp.shared.version import SUPPORTED_PROTOCOL_VERSIONS
from memory import mcp as device_mcp

pytestmark = [pytest.mark.timeout(60), pytest.mark.filterwarnings("ignore::DeprecationWarning")]


class Padded(device_mcp.Tool):
    def __init__(self, i):
        self.name = f"pad_{i:02d}"
        self.description = f"Filler tool {i}. " + "lorem ipsum " * 150


def url(s):
    return s.url + "?token=" + quote(TOKEN, safe="")


def test_sdk_initializes_lists_and_calls():
    async def main():
        async with serving() as s:
            async with websocket_client(url(s)) as (read, write), ClientSession(read, write) as session:
                init = await session.initialize()
                assert init.protocolVersion in SUPPORTED_PROTOCOL_VERSIONS
                assert init.serverInfo.name == "xzmem"
                assert init.capabilities.tools is not None
                listed = await session.list_tools()
                assert [t.name for t in listed.tools] == ["echo", "note"]
                assert listed.tools[1].inputSchema["required"] == ["action", "slot"]
                result = await session.call_tool("note", {"action": "put", "slot": 3, "text": "妈妈的生日"})
                assert result.isError is False
                assert json.loads(result.content[0].text) == {"slot": 3, "result": "UPDATED"}
                result = await session.call_tool("note", {"action": "get", "slot": 3})
                assert json.loads(result.content[0].text)["text"] == "妈妈的生日"
                result = await session.call_tool("note", {"action": "put", "slot": 99})
                assert result.isError is True
                assert result.content[0].text == "slot must be 0-7, got 99"
                await session.send_ping()
                with pytest.raises(McpError) as e:
                    await session.call_tool("no_such_tool", {})
                assert e.value.error.code == -32602
                assert (await session.call_tool("sync", {})).isError is False  # server links are trusted

    asyncio.run(main())


def test_sdk_follows_the_cursor_across_pages():
    async def main():
        d = dispatcher()
        for i in range(30):
            d.add(Padded(i))
        async with serving(d) as s:
            async with websocket_client(url(s)) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                names, cursor, pages = [], None, 0
                while True:
                    page = await session.list_tools(cursor=cursor) if cursor else await session.list_tools()
                    names += [t.name for t in page.tools]
                    pages += 1
                    cursor = page.nextCursor
                    if not cursor:
                        break
                assert names == ["echo", "note"] + [f"pad_{i:02d}" for i in range(30)]
                assert pages >= 5

    asyncio.run(main())


def test_sdk_with_a_wrong_token_cannot_connect():
    async def main():
        async with serving() as s:
            with pytest.raises(Exception) as e:
                async with websocket_client(s.url + "?token=nope") as (read, write), ClientSession(read, write) as session:
                    await session.initialize()
            assert "401" in repr(e.value) + "".join(repr(x) for x in getattr(e.value, "exceptions", ()))

    asyncio.run(main())


def test_sdk_call_too_big_to_read_ends_with_an_error_not_a_wait():
    # The SDK writes "id" last; the device reads past the message and answers that id.
    async def main():
        async with serving() as s:
            async with websocket_client(url(s)) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                with pytest.raises(McpError) as e:
                    await asyncio.wait_for(session.call_tool("note", {"action": "put", "slot": 1, "text": "长" * 8000}), 10)
                assert e.value.error.code == -32600 and "4096" in e.value.error.message
                result = await session.call_tool("note", {"action": "put", "slot": 1, "text": "短"})
                assert result.isError is False

    asyncio.run(main())
