"""DeviceClient against a real MCP server over WebSocket, and its serial path against a fake REPL."""

import contextlib
import importlib.util
import io
import json
import subprocess
import sys
import types
from pathlib import Path

import anyio
import pytest
from mpremote.transport import TransportError
from xzmem.device.address import redact, serial_port, with_token
from xzmem.device.client import MEMORY_TYPES, RECALL_TYPES, DeviceClient, DeviceError
from xzmem.device.serial_link import call_snippet, parse_call_output, parse_marked_output, tools_snippet

ROOT = Path(__file__).resolve().parents[2]


def run(coro_fn, *args):
    return anyio.run(coro_fn, *args)


def test_host_types_match_the_device_schema():
    spec = importlib.util.spec_from_file_location("device_tool_schema", ROOT / "lib" / "memory" / "tool_schema.py")
    schema = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(schema)
    assert MEMORY_TYPES == schema.MEMORY_TYPES
    assert RECALL_TYPES == schema.RECALL_TYPES


def test_tools_calls_and_tool_errors(device):
    async def session():
        async with DeviceClient(device.url, "secret") as client:
            names = [t["name"] for t in await client.list_tools()]
            plain = [t["name"] for t in await client.list_tools(with_user_tools=False)]
            written = await client.memory(action="write", type="fact", content="喜欢喝乌龙茶")
            read = await client.memory(action="read")
            with pytest.raises(DeviceError, match="device refused memory: unknown type 'planet'") as refused:
                await client.memory(action="read", type="planet")
            return names, plain, written, read, refused.value, await client.device_id()

    names, plain, written, read, refused, device_id = run(session)
    assert names == ["memory", "memory_sync"]
    assert plain == ["memory"]
    assert written == {"result": "ADDED"}
    assert read["facts"] == ["喜欢喝乌龙茶"]
    assert not refused.retryable
    assert device_id == "fake-esp32-01"


def test_reminders_reach_the_message_callback(device):
    heard = []

    async def on_message(params):
        heard.append((params.logger, params.data))

    async def session():
        async with DeviceClient(device.url, "secret", on_message=on_message) as client:
            device.state.announce.append("牙医预约 10:00")
            await client.memory(action="read")

    run(session)
    assert heard == [("memory.reminder", "牙医预约 10:00")]


def test_device_id_falls_back_to_the_address(device):
    device.state.device_id = None

    async def session():
        async with DeviceClient(device.url, "secret") as client:
            return await client.device_id()

    assert run(session) == device.url


def connect_error(url, token, **kw):
    async def attempt():
        async with DeviceClient(url, token, **kw):
            pass

    with pytest.raises(DeviceError) as caught:
        run(attempt)
    return caught.value


def test_wrong_token_is_refused_without_retrying(device):
    error = connect_error(device.url, "guess", connect_timeout=2)
    assert str(error) == f"device at {device.url} refused the token (HTTP 401)"
    assert "guess" not in str(error)
    assert not error.retryable


def test_unreachable_device(device):
    port = device.port
    device.stop()
    error = connect_error(f"ws://127.0.0.1:{port}/mcp", "secret")
    assert str(error) == f"device unreachable at ws://127.0.0.1:{port}/mcp: connection refused"


def test_not_an_mcp_endpoint(device):
    error = connect_error(device.url.replace("/mcp", "/nope"), "secret")
    assert "answered HTTP 404, not a WebSocket MCP server" in str(error)


def test_reconnects_after_the_device_restarts(device):
    async def session():
        async with DeviceClient(device.url, "secret", backoff=(0.05, 0.5)) as client:
            await client.memory(action="write", type="fact", content="before")
            await anyio.to_thread.run_sync(device.restart)
            await client.memory(action="write", type="fact", content="after")
            return await client.memory(action="read", type="fact")

    assert [i["content"] for i in run(session)["items"]] == ["before", "after"]


def test_gives_up_when_the_device_stays_away(device):
    async def session():
        async with DeviceClient(device.url, "secret", reconnect_attempts=2, backoff=(0.05, 0.1)) as client:
            await anyio.to_thread.run_sync(device.stop)
            await client.memory(action="read")

    with pytest.raises(DeviceError, match="device unreachable at .*gave up after 2 reconnect attempts"):
        run(session)


def test_token_goes_in_the_query_and_out_of_messages():
    url = with_token("ws://10.0.0.5:8765/mcp?token=old&x=1", "new")
    assert url == "ws://10.0.0.5:8765/mcp?x=1&token=new"
    assert redact(url) == "ws://10.0.0.5:8765/mcp?x=1"
    assert with_token("ws://h/mcp", None) == "ws://h/mcp"


class FakeBoard:
    """mpremote's SerialTransport as far as DeviceClient uses it; runs the snippets on CPython.

    exec_raw answers (stdout, stderr) as the real one does: a traceback comes back on stderr.
    """

    def __init__(self, port, handler, fail_with=None):
        self.port, self.handler, self.fail_with = port, handler, fail_with
        self.codes, self.raw, self.closed = [], False, False

    def enter_raw_repl(self, soft_reset=True):
        assert soft_reset is False, "a soft reset would restart the firmware"
        self.raw = True

    def exit_raw_repl(self):
        self.raw = False

    def close(self):
        self.closed = True

    def exec_raw(self, code, timeout=10):
        assert self.raw
        self.codes.append(code)
        if isinstance(self.fail_with, OSError):
            raise self.fail_with
        if self.fail_with:
            return b"", self.fail_with.encode()
        memory = types.ModuleType("memory")
        memory.app = types.SimpleNamespace(call_tool=self.handler)
        out = io.StringIO()
        saved = sys.modules.get("memory")
        sys.modules["memory"] = memory
        try:
            with contextlib.redirect_stdout(out):
                print("boot noise")
                exec(code, {})
        finally:
            if saved is None:
                sys.modules.pop("memory")
            else:
                sys.modules["memory"] = saved
        return out.getvalue().encode(), b""


def serial_session(handler, fail_with=None, target="u0"):
    boards = []

    def factory(port):
        boards.append(FakeBoard(port, handler, fail_with))
        return boards[-1]

    async def session():
        async with DeviceClient(target, serial_transport=factory) as client:
            return await client.memory(action="recall", type="fact", keyword="茶")

    return run(session), boards[0]


def test_serial_runs_the_call_on_the_board_and_parses_the_result():
    seen = []

    def handler(name, args_json):
        seen.append((name, args_json))
        return '{"content": [{"type": "text", "text": "{\\"type\\": \\"fact\\", \\"count\\": 0}"}], "isError": false}'

    result, board = serial_session(handler)
    assert board.port == "/dev/ttyUSB0"
    assert result == {"type": "fact", "count": 0}
    assert seen == [("memory", '{"action":"recall","type":"fact","keyword":"\\u8336"}')]
    assert board.closed and not board.raw


def test_serial_tool_error_and_bare_results():
    assert parse_call_output(b'@xzmem-result@{"content":[{"type":"text","text":"bad type"}],"isError":true}\r\n') == (
        True,
        "bad type",
    )
    assert parse_call_output(b'noise\r\n@xzmem-result@{"count": 2}\r\n') == (False, '{"count": 2}')
    with pytest.raises(DeviceError, match="printed no result"):
        parse_call_output(b"MicroPython v1.23\r\n")

    def refuse(name, args_json):
        return '{"content": [{"type": "text", "text": "unknown type"}], "isError": true}'

    with pytest.raises(DeviceError, match="device refused memory: unknown type"):
        serial_session(refuse)


def test_serial_exception_on_the_board_is_one_line():
    trace = 'Traceback (most recent call last):\r\n  File "<stdin>", line 1\r\nImportError: no module named \'memory.app\'\r\n'
    with pytest.raises(DeviceError) as caught:
        serial_session(None, fail_with=trace)
    assert str(caught.value) == "the board at /dev/ttyUSB0 raised ImportError: no module named 'memory.app'"


def test_serial_board_unplugged_during_a_call():
    with pytest.raises(DeviceError, match="^lost the board at /dev/ttyUSB0: .*device disconnected"):
        serial_session(None, fail_with=OSError(5, "device disconnected"))


def test_serial_port_that_does_not_exist():
    async def session():
        async with DeviceClient("/dev/ttyXZMEM-missing"):
            pass

    with pytest.raises(DeviceError, match="^device unreachable at /dev/ttyXZMEM-missing: failed to access"):
        run(session)

    def refuse(port):
        raise TransportError("failed to access " + port)

    async def shortcut():
        async with DeviceClient("a3", serial_transport=refuse):
            pass

    with pytest.raises(DeviceError, match="^device unreachable at /dev/ttyACM3"):
        run(shortcut)


def test_serial_port_names():
    assert serial_port("u0") == "/dev/ttyUSB0"
    assert serial_port("c12") == "COM12"
    assert serial_port("/dev/cu.usbserial-10") == "/dev/cu.usbserial-10"


def test_snippets_run_against_the_real_device_modules():
    tools = subprocess.run(
        [sys.executable, "-c", tools_snippet(True)],
        env={"PYTHONPATH": f"{ROOT / 'firmware' / 'sim'}:{ROOT / 'lib'}"},
        capture_output=True,
        check=True,
    ).stdout


    listed = json.loads(parse_marked_output(tools))
    assert [t["name"] for t in listed] == ["memory", "memory_sync"]
    assert "recall" in listed[0]["inputSchema"]["properties"]["action"]["enum"]
    compile(call_snippet("memory_sync", {"action": "apply", "ops": [{"op": "write", "content": "引号\"'"}]}), "s", "exec")
