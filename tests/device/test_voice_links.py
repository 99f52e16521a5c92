# What a voice server's link gets back from a refused call (memory.mcp Link.voice).
#
# xiaozhi-esp32-server speaks an isError result as a fixed error line ("工具调用错误: ...") and never
# gives it to its model; on its links (xiaozhi, an untrusted MCP endpoint) a refusal is a plain
# result, so the model reads the sentence and can call again. Clients of the device's own server
# and the host's gateway keep the MCP isError flag.

import json
import unittest

from memory import endpoint, mcp, xiaozhi
from test_tool_errors import memory_dispatcher

BAD = {"action": "write", "type": "pet", "content": "x"}
SAID = "没有这个类型：pet。"


def result_on(link, args):
    msg = json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "memory", "arguments": args}})
    reply = memory_dispatcher().handle(msg, link)
    return json.loads(reply if isinstance(reply, str) else "".join(reply))["result"]


class VoiceLinks(unittest.TestCase):
    def test_a_voice_link_gets_the_refusal_as_a_plain_result_with_the_sentence(self):
        link = mcp.Link("xiaozhi")
        link.voice = True
        result = result_on(link, BAD)
        self.assertIs(result["isError"], False)
        self.assertTrue(result["content"][0]["text"].startswith(SAID), result)

    def test_other_links_keep_is_error(self):
        for link in (mcp.Link("ws peer", trusted=True), mcp.Link("self-test")):
            result = result_on(link, BAD)
            self.assertIs(result["isError"], True)
            self.assertTrue(result["content"][0]["text"].startswith(SAID), result)

    def test_outbound_links_are_voice_links_unless_trusted(self):
        d = memory_dispatcher()
        cases = (
            (xiaozhi.XiaozhiLink("ws://127.0.0.1:1/xiaozhi/v1/", "t", "aa:bb:cc:dd:ee:ff",
                                "12345678-1234-1234-1234-123456789abc", d), True),
            (endpoint.EndpointLink("ws://127.0.0.1:1/mcp/?token=t", d), True),
            (endpoint.EndpointLink("ws://127.0.0.1:1/mcp/?token=t", d, trusted=True), False),
        )
        for link, voice in cases:
            self.assertIs(link.link.voice, voice, link.link.name)

    def test_the_list_of_types_names_each_one_once(self):
        said = result_on(mcp.Link("ws", trusted=True), BAD)["content"][0]["text"]
        words = said.split("可以用：")[1].rstrip("。").split("、")
        self.assertEqual(len(words), len(set(words)), said)
        self.assertTrue("日程" in words and "事件" in words, said)

    def test_a_good_call_is_the_same_on_every_link(self):
        voice = mcp.Link("xiaozhi")
        voice.voice = True
        good = {"action": "write", "type": "name", "content": "李雷"}
        self.assertEqual(result_on(voice, good), result_on(mcp.Link("ws", trusted=True), good))


if __name__ == "__main__":
    unittest.main()
