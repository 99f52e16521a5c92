"""The memory tools reach every LLM xiaozhi-esp32-server can use, through the server's own code path.

xiaozhi-esp32-server 0.9.6 lists the device's tools over the xiaozhi link (tools/list, then each page
by cursor), keeps of each inputSchema only type, properties and required
(core/providers/tools/device_mcp/mcp_handler.py), turns each tool into an OpenAI-style function
(mcp_client.get_available_tools, names through sanitize_tool_name) and hands those to its LLM. Its
Gemini provider (core/providers/llm/gemini/gemini.py, google-generativeai==0.8.5) builds
`types.Tool(function_declarations=[types.FunctionDeclaration(name, description, parameters)])`
and generate_content turns that into the request's protos. The same list must also pass the newer
google-genai and the OpenAI tools format.
"""

import asyncio
import json
import re
import warnings

import jsonschema
import pytest
from openai.types.chat import ChatCompletionToolParam
from pydantic import TypeAdapter
from simdevice import SimDevice
from xiaozhi_server import XiaozhiServer

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the old library announces its own end of support on import
    from google.generativeai import types as old_gemini
    from google.generativeai.types import content_types

from google.genai import types as new_gemini

pytestmark = pytest.mark.timeout(120)
XZ_TOKEN = "xiaozhi-token-1"


def sanitize_tool_name(name):
    # As core/utils/util.py: OpenAI-safe tool names.
    return re.sub(r"[^a-zA-Z0-9_\-\u4e00-\u9fff]", "_", name)


async def listed_as_the_server_does(tmp_path):
    """The server's `functions` for the device's tools, from a live tools/list over the xiaozhi link."""
    async with XiaozhiServer(XZ_TOKEN) as server:
        device = SimDevice(tmp_path / "dev", "--xiaozhi", server.url, "--xiaozhi-token", XZ_TOKEN,
                           "--device-id", "24:0a:c4:00:00:09")
        await asyncio.to_thread(device.start)
        try:
            session = await server.next_session(timeout=30)
            tools, reply = [], await session.request("tools/list", rid=2)
            while True:
                tools += reply["result"]["tools"]
                cursor = reply["result"].get("nextCursor")
                if not cursor:
                    break
                reply = await session.request("tools/list", {"cursor": cursor}, rid=2)
        finally:
            await asyncio.to_thread(device.stop)
    functions = []
    for tool in tools:
        schema = tool.get("inputSchema") if isinstance(tool.get("inputSchema"), dict) else {}
        kept = {"type": schema.get("type", "object"), "properties": schema.get("properties", {}),
                "required": [s for s in schema.get("required", []) if isinstance(s, str)]}
        functions.append({"type": "function", "function": {
            "name": sanitize_tool_name(tool["name"]), "description": tool["description"], "parameters": kept}})
    return tools, functions


@pytest.fixture(scope="module")
def listed(tmp_path_factory):
    return asyncio.run(listed_as_the_server_does(tmp_path_factory.mktemp("gemini")))


def test_the_device_lists_the_memory_tool_to_the_server(listed):
    tools, functions = listed
    assert [f["function"]["name"] for f in functions] == ["memory"]
    memory = functions[0]["function"]["parameters"]
    assert memory["required"] == ["action"] and "priority" in memory["properties"]
    # The range the schema no longer carries is in the words the model reads.
    assert memory["properties"]["priority"]["description"].endswith("(1-5)")


def test_google_generativeai_0_8_5_takes_the_tools_as_the_servers_gemini_provider_builds_them(listed):
    _, functions = listed
    tools = [old_gemini.Tool(function_declarations=[
        old_gemini.FunctionDeclaration(name=f["function"]["name"], description=f["function"]["description"],
                                       parameters=f["function"]["parameters"])
        for f in functions])]
    # What generate_content(tools=...) does before sending: the function library as protos.
    request_tools = content_types.to_function_library(tools).to_proto()
    declared = request_tools[0].function_declarations[0]
    assert declared.name == "memory"
    assert "action" in declared.parameters.properties
    assert list(declared.parameters.properties["action"].enum)[:2] == ["read", "write"]


def test_google_genai_and_openai_take_the_same_functions(listed):
    _, functions = listed
    for function in functions:
        spec = function["function"]
        declaration = new_gemini.FunctionDeclaration(name=spec["name"], description=spec["description"],
                                                     parameters=new_gemini.Schema.model_validate(spec["parameters"]))
        new_gemini.Tool(function_declarations=[declaration])
        TypeAdapter(ChatCompletionToolParam).validate_python(function)
        jsonschema.Draft202012Validator.check_schema(spec["parameters"])


def test_the_direct_listing_passes_the_old_library_too(listed):
    # MCP endpoint and direct clients get the same entries, whole (not cut to type/properties/required).
    tools, _ = listed
    for tool in tools:
        old_gemini.FunctionDeclaration(name=tool["name"], description=tool["description"],
                                       parameters=tool["inputSchema"])
        assert json.dumps(tool["inputSchema"]).count("minimum") == 0
