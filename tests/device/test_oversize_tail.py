# A message too big to read is answered with its request's id when the id comes last, as the
# official MCP SDK writes a request ({"method":...,"params":{...},"jsonrpc":"2.0","id":5}): the
# client's call ends with an error instead of waiting forever (memory.oversize, ws read-past).

import json
import unittest

from memory import mcp, ws
from test_mcp_server import KEY, close_frame, make_server, session, split_reply, text_frame


def sdk_request(rid, text):
    # The SDK's member order; json.dumps of a dict would not keep it on MicroPython.
    return '{"method":"tools/call","params":{"name":"echo","arguments":{"text":%s}},"jsonrpc":"2.0","id":%s}' % (
        json.dumps(text), json.dumps(rid))


def answers(stream):
    _, frames = split_reply(stream.out)
    return [json.loads(f[3].decode()) for f in frames if f[1] == ws.OP_TEXT]


class TailId(unittest.TestCase):
    async def test_an_sdk_shaped_message_gets_its_id_back_and_the_session_goes_on(self):
        for rid in (5, "req-7"):
            big = sdk_request(rid, "记" * 6000).encode()
            ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
            stream = await session(make_server(), ws.encode_frame(ws.OP_TEXT, big, True, KEY), text_frame(ping), close_frame())
            got = answers(stream)
            self.assertEqual((got[0]["id"], got[0]["error"]["code"]), (rid, -32600))
            self.assertEqual(got[1], {"jsonrpc": "2.0", "id": 2, "result": {}})

    async def test_the_id_is_found_across_fragments(self):
        big = sdk_request(31, "x" * 20000).encode()
        # The last fragment is a few bytes only: the id spans two read-past frames.
        frames = (ws.encode_frame(ws.OP_TEXT, big[:17000], False, KEY),
                  ws.encode_frame(ws.OP_CONT, big[17000:-3], False, KEY),
                  ws.encode_frame(ws.OP_CONT, big[-3:], True, KEY))
        stream = await session(make_server(), *frames, close_frame())
        self.assertEqual(answers(stream)[0]["id"], 31)

    def test_only_a_last_member_id_is_taken(self):
        def rid_of(tail):
            return json.loads(mcp.Dispatcher().too_big(ws.MessageTooBig(20000, 16384, b'{"method":"x","par', tail)))["id"]

        self.assertEqual(rid_of(b'xx"},"jsonrpc":"2.0","id":12}'), 12)
        self.assertEqual(rid_of(b'xx"},"jsonrpc":"2.0","id": "a b" }'), "a b")
        self.assertEqual(rid_of(b'x"}}, "id" : 3 } '), 3)
        # an "id" that is not the last member, or is cut, or inside a string: no id
        self.assertEqual(rid_of(b'"id":12,"jsonrpc":"2.0"}'), None)
        self.assertEqual(rid_of(b'"a":"the \\"id\\":4"}}'), None)
        self.assertEqual(rid_of(b'"id":true}'), None)
        self.assertEqual(rid_of(b'"id":[1]}'), None)
        self.assertEqual(rid_of(b"2.0\",\"id\":12"), None)


if __name__ == "__main__":
    unittest.main()
