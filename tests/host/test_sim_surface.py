"""What LLM providers and voice servers see of `xzmem sim`: schemas Gemini and OpenAI accept, refusals a
voice can read, UTF-8 on the wire, and the sim options for the xiaozhi link and the language."""

import asyncio
import json

import jsonschema
import pytest
from google.genai import types
from openai.types.chat import ChatCompletionToolParam
from pydantic import TypeAdapter
from simdevice import TOKEN, SimDevice
from websockets.asyncio.client import connect
from xiaozhi_server import XiaozhiServer
from xzmem.device.client import DeviceClient

pytestmark = pytest.mark.timeout(120)
WANG = "王浩宇".encode()


def run(coro):
    return asyncio.run(coro)


async def raw_call(url, args, rid=1, name="memory"):
    """One tools/call over a plain websocket: (the frame's bytes, the parsed result)."""
    async with connect(url, subprotocols=["mcp"]) as c:
        await c.send(json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": name, "arguments": args}}))
        frame = await c.recv(decode=False)
    return frame, json.loads(frame)["result"]


async def all_tools(device):
    async with DeviceClient(device.url.split("?")[0], token=TOKEN) as c:
        return await c.list_tools(with_user_tools=True)


def types_of(node, found):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "type" and not isinstance(value, dict):
                found.append(value)
            types_of(value, found)
    elif isinstance(node, list):
        for item in node:
            types_of(item, found)
    return found


@pytest.fixture
def device(tmp_path):
    with SimDevice(tmp_path / "dev", "--start-time", "2026-02-05T08:00") as d:
        yield d


def test_tools_list_schemas_pass_gemini_and_openai(device):
    tools = run(all_tools(device))
    assert [t["name"] for t in tools] == ["memory", "memory_sync"]
    for tool in tools:
        schema = tool["inputSchema"]
        kinds = types_of(schema, [])
        assert kinds and all(isinstance(k, str) for k in kinds), (tool["name"], kinds)
        # Gemini: what xiaozhi-esp32-server's Gemini provider does with every function, and the SDK's
        # own JSON Schema conversion, which must need no anyOf.
        declaration = types.FunctionDeclaration(name=tool["name"], description=tool["description"],
                                                parameters=types.Schema.model_validate(schema))
        types.Tool(function_declarations=[declaration])
        converted = types.Schema.from_json_schema(json_schema=types.JSONSchema.model_validate(schema), api_option="GEMINI_API")
        assert "any_of" not in json.dumps(converted.model_dump(exclude_none=True))
        # OpenAI: a chat `tools` entry whose parameters are a valid JSON Schema.
        entry = {"type": "function", "function": {"name": tool["name"], "description": tool["description"], "parameters": schema}}
        TypeAdapter(ChatCompletionToolParam).validate_python(entry)
        jsonschema.Draft202012Validator.check_schema(schema)


def test_a_refusal_is_one_chinese_sentence_and_a_read_is_utf8_on_the_wire(device):
    async def scenario():
        frame, result = await raw_call(device.url, {"action": "write", "type": "nosuch"})
        assert sorted(result) == ["content", "isError"] and result["isError"] is True
        text = result["content"][0]["text"]
        assert text.startswith("没有这个类型：nosuch。可以用：名字、") and "{" not in text
        assert "没有这个类型".encode() in frame  # UTF-8, not \\u escapes
        await raw_call(device.url, {"action": "write", "type": "name", "content": "王浩宇"})
        frame, result = await raw_call(device.url, {"action": "read"})
        assert WANG in frame and b"\\u738b" not in frame
        assert json.loads(result["content"][0]["text"])["profile"]["name"] == "王浩宇"
        assert json.loads(result["content"][0]["text"])["style"].startswith("陌生期")

    run(scenario())


def test_language_en_words_refusals_and_the_style_in_english(tmp_path):
    with SimDevice(tmp_path / "dev", "--language", "en") as device:
        _, result = run(raw_call(device.url, {"action": "write", "type": "nosuch"}))
        assert result["content"][0]["text"].startswith("There is no type called nosuch. You can use: name, age")
        _, result = run(raw_call(device.url, {"action": "read"}))
        assert json.loads(result["content"][0]["text"])["style"].startswith("Stranger: polite")


def test_an_unknown_language_is_refused(tmp_path):
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "xzmem", "sim", "--data", str(tmp_path), "--token", TOKEN, "--language", "fr"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "xzmem: --language must be zh or en, got 'fr'" in out.stderr


def test_xiaozhi_token_and_reminder_prefix_reach_the_server_and_a_refusal_is_logged_in_its_words(tmp_path):
    async def scenario():
        async with XiaozhiServer("right-token-1", refuse_with="认证失败：令牌无效") as server:
            wrong = SimDevice(tmp_path / "a", "--xiaozhi", server.url, "--xiaozhi-token", "wrong-token")
            await asyncio.to_thread(wrong.start)
            await asyncio.sleep(1.5)
            log = await asyncio.to_thread(wrong.stop)
            assert "认证失败：令牌无效" in log, log

            # A schedule due within the hour: announced at boot on the xiaozhi link, with the prefix.
            data = tmp_path / "b"
            first = SimDevice(data, "--start-time", "2026-02-05T13:30")
            await asyncio.to_thread(first.start)
            _, result = await raw_call(first.url, {"action": "write", "type": "schedule", "content": "团队会议",
                                                   "datetime": "2026-02-05 14:00", "priority": 4})
            assert result["isError"] is False, result
            await asyncio.to_thread(first.stop)
            second = SimDevice(data, "--start-time", "2026-02-05T13:31", "--xiaozhi", server.url,
                               "--xiaozhi-token", "right-token-1", "--reminder-prefix", "[device_call]")
            await asyncio.to_thread(second.start)
            try:
                session = await server.next_session(timeout=15)
                assert session.headers["Authorization"] == "Bearer right-token-1"
                listen = await asyncio.wait_for(session.listens.get(), 15)
                assert listen["state"] == "detect" and listen["text"].startswith("[device_call]重要！14:00")
                # The server is no voice for this device: the next read still carries the reminder.
                _, result = await raw_call(second.url, {"action": "read"})
                reminders = json.loads(result["content"][0]["text"])["reminders"]
                assert [r["content"] for r in reminders] == ["团队会议"]
            finally:
                await asyncio.to_thread(second.stop)

    run(scenario())
