"""A refused `memory` call reaches xiaozhi-esp32-server's LLM as the device's sentence, on both paths.

What the server (0.9.6) reads from a tools/call result, the same in
core/providers/tools/device_mcp/mcp_handler.py (the xiaozhi link) and
core/providers/tools/mcp_endpoint/mcp_endpoint_handler.py (an MCP endpoint): with `isError` true it
raises `工具调用错误: <result.error or 工具调用返回错误，但未提供具体错误信息>`, which its executor turns into
Action.ERROR: that line is spoken as it is and the LLM never sees it. Otherwise it takes
`content[0].text`, and Action.REQLLM gives that text to the LLM as the tool's answer, so the LLM
can tell the child and call again. `server_reads` below is that logic.
"""

import asyncio
import json

import pytest
from simdevice import SimDevice
from xiaozhi_server import EndpointRelay, XiaozhiServer

pytestmark = pytest.mark.timeout(120)
XZ_TOKEN = "xiaozhi-token-1"
SAID = "没有这个类型：pet。"


def server_reads(raw_result):
    """(action, text) as the server's call_mcp_tool and executor make of a tools/call result."""
    if isinstance(raw_result, dict):
        if raw_result.get("isError") is True:
            return "ERROR", "工具调用错误: " + raw_result.get("error", "工具调用返回错误，但未提供具体错误信息")
        content = raw_result.get("content")
        if isinstance(content, list) and content and isinstance(content[0], dict) and "text" in content[0]:
            text = content[0]["text"]
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
            if isinstance(parsed, dict) and "action" in parsed:
                return parsed["action"], parsed.get("response", "")
            return "REQLLM", text
    return "REQLLM", str(raw_result)


async def refused_then_retried(tmp_path, peer, flags, rid):
    async with peer as server:
        device = SimDevice(tmp_path, *flags(server))
        await asyncio.to_thread(device.start)
        try:
            session = await server.next_session(timeout=30)
            bad = await session.request("tools/call", {"name": "memory", "arguments": {
                "action": "write", "type": "pet", "content": "小猫咪咪"}}, rid=rid)
            retry = await session.request("tools/call", {"name": "memory", "arguments": {
                "action": "write", "type": "fact", "content": "家里有只小猫叫咪咪"}}, rid=rid + 1)
        finally:
            await asyncio.to_thread(device.stop)
    return server_reads(bad["result"]), server_reads(retry["result"])


def test_on_the_xiaozhi_link_the_llm_gets_the_sentence_and_its_retry_is_stored(tmp_path):
    def flags(server):
        return ("--xiaozhi", server.url, "--xiaozhi-token", XZ_TOKEN, "--device-id", "24:0a:c4:00:00:07")

    refused, retried = asyncio.run(refused_then_retried(tmp_path / "dev", XiaozhiServer(XZ_TOKEN), flags, 5))
    assert refused[0] == "REQLLM" and refused[1].startswith(SAID), refused
    assert "工具调用错误" not in refused[1]
    assert retried[0] == "REQLLM" and json.loads(retried[1])["result"] == "ADDED"


def test_through_an_mcp_endpoint_the_llm_gets_the_sentence_too(tmp_path):
    def flags(server):
        return ("--endpoint", server.url)

    relay = EndpointRelay("endpoint-token-1")
    refused, retried = asyncio.run(refused_then_retried(tmp_path / "dev", relay, flags, 9))
    assert refused[0] == "REQLLM" and refused[1].startswith(SAID), refused
    assert retried[0] == "REQLLM" and json.loads(retried[1])["result"] == "ADDED"
