# A call that runs out of heap is refused in a sentence in the device's language, and the session
# answers the next call: the client is never left waiting and never cut off.
#
# The tool raises MemoryError, as the allocator does when the heap cannot hold a request. (The
# WebAssembly port's heap grows into WebAssembly memory, so it cannot be run out of quickly here.)

import asyncio
import json
import unittest

from memory import mcp, server, wsclient
from mpstream import Network
from ws_fakes import ensure_sha1

ensure_sha1()

TOKEN = "oom-test-token"
ZH = "我现在有点忙不过来，这次没做成，请过一会儿再说一次。"
EN = "I am short of working memory right now, so that did not get done. Please ask again in a moment."


def exhaust_heap():
    raise MemoryError("memory allocation failed, allocating 4096 bytes")


class Greedy(mcp.Tool):
    name = "greedy"
    description = "Takes the whole heap when asked."
    spoken = True

    def call(self, arguments, link):
        if arguments.get("greedy"):
            exhaust_heap()
        return "ok"


class Plain(Greedy):
    name = "plain"
    spoken = False


class ParseFails(mcp.Dispatcher):
    # The heap runs out outside any tool: while the message is being taken apart.
    async def handle_parsed_async(self, msg, link):
        if msg.get("params", {}).get("arguments", {}).get("greedy"):
            exhaust_heap()
        return await super().handle_parsed_async(msg, link)


async def started(dispatcher):
    net = Network()
    try:
        real = asyncio.start_server
    except (AttributeError, ImportError):  # the WebAssembly port has no stream server
        real = None
    net.install()
    try:
        s = await server.Server(dispatcher, TOKEN, host="127.0.0.1", log=lambda line: None).start()
    finally:
        if real is not None:
            asyncio.start_server = real
    stream = net.connect()
    sock = await wsclient.handshake(stream, stream, "device", 8765, "/mcp", [("Authorization", "Bearer " + TOKEN)], ("mcp",))
    return s, sock


async def call(sock, rid, name, greedy):
    await sock.send(json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": name, "arguments": {"greedy": greedy}}}))
    return json.loads(await sock.recv())


def dispatcher(cls=mcp.Dispatcher, language="zh"):
    d = cls(language=language)
    d.add(Greedy())
    d.add(Plain())
    return d


class OutOfMemory(unittest.TestCase):
    async def test_a_call_that_runs_out_of_heap_is_refused_in_words_and_the_session_goes_on(self):
        s, sock = await started(dispatcher())
        try:
            for rid in range(3):
                refused = await call(sock, "r%d" % rid, "greedy", True)
                self.assertEqual(refused["id"], "r%d" % rid)
                self.assertTrue(refused["result"]["isError"])
                self.assertEqual(refused["result"]["content"][0]["text"], ZH)
                self.assertEqual((await call(sock, rid, "greedy", False))["result"]["content"][0]["text"], "ok")
            self.assertEqual(len(s.connections), 1)
        finally:
            await s.stop()

    async def test_host_tools_are_refused_in_the_devices_language_too(self):
        s, sock = await started(dispatcher(language="en"))
        try:
            refused = await call(sock, 7, "plain", True)
            self.assertEqual(refused["result"]["content"][0]["text"], EN)
            self.assertEqual((await call(sock, 8, "plain", False))["result"]["content"][0]["text"], "ok")
        finally:
            await s.stop()

    async def test_running_out_outside_the_tool_answers_the_requests_id_and_the_session_goes_on(self):
        s, sock = await started(dispatcher(ParseFails))
        try:
            refused = await call(sock, 41, "greedy", True)
            self.assertEqual(refused["id"], 41)
            self.assertEqual(refused["error"]["code"], mcp.INTERNAL_ERROR)
            self.assertEqual(refused["error"]["message"], ZH)
            self.assertEqual((await call(sock, 42, "greedy", False))["result"]["content"][0]["text"], "ok")
        finally:
            await s.stop()

    async def test_a_long_request_running_out_after_parsing_gets_its_own_id(self):
        # Over 1 KB the request is a view of the shared receive buffer, which may hold another
        # connection's message by the time the heap runs out: the answer takes the parsed id, even
        # where the SDK writes it last, past the first bytes an unparsed message is searched in.
        s, sock = await started(dispatcher(ParseFails))
        try:
            pad = "记" * 600
            await sock.send('{"method":"tools/call","params":{"name":"greedy","arguments":{"greedy":true,"pad":"%s"}},'
                            '"jsonrpc":"2.0","id":43}' % pad)
            refused = json.loads(await sock.recv())
            self.assertEqual((refused["id"], refused["error"]["message"]), (43, ZH))
            self.assertEqual((await call(sock, 44, "greedy", False))["result"]["content"][0]["text"], "ok")
        finally:
            await s.stop()

    async def test_running_out_while_answering_is_refused_in_words_not_as_a_fault(self):
        # The heap runs out inside the dispatcher (here in initialize's answer), not in a tool: the
        # answer is the spoken refusal, where it was "internal error: … an internal fault".
        class ShortAtInitialize(mcp.Dispatcher):
            def _initialize(self, params, link):
                exhaust_heap()

        s, sock = await started(dispatcher(ShortAtInitialize))
        try:
            await sock.send(json.dumps({"jsonrpc": "2.0", "id": 51, "method": "initialize", "params": {}}))
            refused = json.loads(await sock.recv())
            self.assertEqual((refused["id"], refused["error"]["message"]), (51, ZH))
            self.assertEqual((await call(sock, 52, "greedy", False))["result"]["content"][0]["text"], "ok")
        finally:
            await s.stop()


class Explained(unittest.TestCase):
    def test_a_memory_error_is_explained_as_short_memory_not_as_a_fault(self):
        from memory import space

        self.assertEqual(space.explain(MemoryError("memory allocation failed")), "the device was short of working memory")
