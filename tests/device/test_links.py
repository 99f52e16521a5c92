# Outbound link logic that needs no socket: backoff, hello, envelopes, reminders, ids, trust.

import json
import unittest

from memory import config, endpoint, links, mcp, outlink, xiaozhi


class Echo(mcp.Tool):
    name = "echo"
    description = "Returns its arguments."

    def call(self, arguments, link):
        return {"echo": arguments, "trusted": link.trusted}


class HostOnly(mcp.Tool):
    name = "memory_sync"
    description = "Host-only."
    user_only = True

    def call(self, arguments, link):
        return {"ok": True}


def make_link(trusted=False, prefix=""):
    d = mcp.Dispatcher()
    d.add(Echo())
    d.add(HostOnly())
    return xiaozhi.XiaozhiLink("ws://127.0.0.1:8000/xiaozhi/v1/", "tok", "24:0a:c4:12:34:56", "id", d, prefix=prefix, trusted=trusted, log=lambda m: None)


def mcp_in(payload, session_id=None):
    msg = {"type": "mcp", "payload": payload}
    if session_id:
        msg["session_id"] = session_id
    return json.dumps(msg)


ITEM = {"content": "吃药", "datetime": "2026-03-01 08:00", "priority": 5, "urgency": "urgent", "missed": False, "minutes": 20, "text": "重要！08:00 有「吃药」，别忘了。", "repeat": "daily"}


class BackoffTest(unittest.TestCase):
    def test_doubles_from_1_to_600_then_stays(self):
        b = outlink.Backoff()
        self.assertEqual([b.next() for _ in range(13)], [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 600, 600, 600])

    def test_reset_starts_again_at_first(self):
        b = outlink.Backoff(1, 600)
        for _ in range(5):
            b.next()
        b.reset()
        self.assertEqual(b.next(), 1)

    def test_bad_bounds_are_refused(self):
        self.assertRaises(ValueError, outlink.Backoff, 0, 600)
        self.assertRaises(ValueError, outlink.Backoff, 10, 5)

    def test_redact_hides_the_token(self):
        self.assertEqual(outlink.redact("wss://api.example/mcp/?token=abc"), "wss://api.example/mcp/")


class XiaozhiMessagesTest(unittest.TestCase):
    def test_hello_fields(self):
        h = json.loads(xiaozhi.hello_message())
        self.assertEqual(h["type"], "hello")
        self.assertEqual(h["version"], 1)
        self.assertEqual(h["features"], {"mcp": True})
        self.assertEqual(h["transport"], "websocket")
        self.assertEqual(h["audio_params"]["format"], "opus")

    def test_headers(self):
        h = dict(make_link().headers())
        self.assertEqual(h["Authorization"], "Bearer tok")
        self.assertEqual(h["Protocol-Version"], "1")
        self.assertEqual(h["Device-Id"], "24:0a:c4:12:34:56")
        self.assertEqual(h["Client-Id"], "id")

    async def test_mcp_before_hello_is_answered_without_session_id(self):
        link = make_link()
        out = json.loads(await link.on_text(mcp_in({"jsonrpc": "2.0", "id": 1, "method": "ping"})))
        self.assertEqual(out, {"type": "mcp", "payload": {"jsonrpc": "2.0", "id": 1, "result": {}}})
        self.assertFalse(link.ready)

    async def test_after_hello_answers_carry_the_session_id_and_ids_are_echoed(self):
        link = make_link()
        await link.on_text(json.dumps({"type": "hello", "transport": "websocket", "session_id": "s-9"}))
        self.assertTrue(link.ready)
        self.assertTrue(link.healthy)
        out = json.loads(await link.on_text(mcp_in({"jsonrpc": "2.0", "id": "u_n_3", "method": "tools/call", "params": {"name": "echo", "arguments": {"a": 1}}}, "s-9")))
        self.assertEqual(out["session_id"], "s-9")
        self.assertEqual(out["payload"]["id"], "u_n_3")
        self.assertEqual(json.loads(out["payload"]["result"]["content"][0]["text"]), {"echo": {"a": 1}, "trusted": False})

    async def test_garbage_is_ignored(self):
        link = make_link()
        cut = mcp_in({"jsonrpc": "2.0", "id": 1, "method": "ping"})[:-1]  # a partial object on MicroPython 1.23-1.25
        for junk in (cut, "not json", "[]", "3", '{"type":"mcp"}', '{"type":"mcp","payload":7}', '{"type":"tts","state":"start"}', '{"no":"type"}'):
            self.assertIsNone(await link.on_text(junk))

    async def test_broken_json_rpc_inside_an_envelope_gets_an_error(self):
        out = json.loads(await make_link().on_text(mcp_in({"jsonrpc": "2.0", "id": 4})))
        self.assertEqual(out["payload"]["id"], 4)
        self.assertEqual(out["payload"]["error"]["code"], -32600)

    async def test_wrong_hello_transport_is_an_error(self):
        link = make_link()
        try:
            await link.on_text('{"type":"hello","transport":"udp"}')
            self.fail("a udp hello was taken")
        except xiaozhi.HelloError:
            pass
        self.assertFalse(link.ready)

    async def test_host_only_tool_needs_a_trusted_link(self):
        call = mcp_in({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "memory_sync", "arguments": {}}})
        refused = json.loads(await make_link().on_text(call))
        self.assertEqual(refused["payload"]["error"]["code"], -32602)
        allowed = json.loads(await make_link(trusted=True).on_text(call))
        self.assertEqual(json.loads(allowed["payload"]["result"]["content"][0]["text"]), {"ok": True})

    async def test_reminder_as_listen_detect_with_prefix(self):
        link = make_link(prefix="[device_call]")
        await link.on_text('{"type":"hello","transport":"websocket","session_id":"s-1"}')
        msg = json.loads(link.reminder_message(ITEM))
        self.assertEqual(msg, {"session_id": "s-1", "type": "listen", "state": "detect", "text": "[device_call]" + ITEM["text"]})


class EndpointMessagesTest(unittest.TestCase):
    def test_reminder_notification(self):
        msg = json.loads(endpoint.reminder_notification(ITEM))
        self.assertEqual(msg["method"], "notifications/message")
        self.assertFalse("id" in msg)
        p = msg["params"]
        self.assertEqual(p["level"], "info")
        self.assertEqual(p["logger"], "memory.reminder")
        self.assertEqual(p["data"]["text"], ITEM["text"])
        self.assertEqual(p["data"]["priority"], 5)
        self.assertFalse("repeat" in p["data"])

    def test_device_id_header_only_when_known(self):
        d = mcp.Dispatcher()
        self.assertEqual(endpoint.EndpointLink("ws://h/mcp/", d, device_id="aa").headers(), (("Device-Id", "aa"),))
        self.assertEqual(endpoint.EndpointLink("ws://h/mcp/", d).headers(), ())

    def test_bad_url_is_refused_at_once(self):
        self.assertRaises(ValueError, endpoint.EndpointLink, "http://h/mcp/", mcp.Dispatcher())


class LinksConfigTest(unittest.TestCase):
    def test_ids(self):
        self.assertEqual(links.mac_text(b"\x24\x0a\xc4\x12\x34\x56"), "24:0a:c4:12:34:56")
        self.assertEqual(links.default_device_id(), "24:0a:c4:12:34:56")
        cid = links.default_client_id()
        self.assertEqual(cid, links.default_client_id())
        self.assertEqual([len(p) for p in cid.split("-")], [8, 4, 4, 4, 12])
        self.assertEqual(cid[14], "4")
        self.assertTrue(links.client_id_from(b"\x01") != links.client_id_from(b"\x02"))

    def test_build_links_from_config(self):
        d = mcp.Dispatcher()
        self.assertEqual(links.build_links(config.validate({}), d, None), [])
        cfg = config.validate({"endpoint_url": "wss://api.example/mcp/?token=t", "xiaozhi_url": "ws://10.0.0.2:8000/xiaozhi/v1/", "xiaozhi_token": "x", "reminder_prefix": "[device_call]", "trusted_links": "xiaozhi"})
        ep, xz = links.build_links(cfg, d, None)
        self.assertEqual(ep.kind, "endpoint")
        self.assertFalse(ep.link.trusted)
        self.assertEqual(ep.link.name, "endpoint wss://api.example/mcp/")
        self.assertTrue(xz.link.trusted)
        self.assertEqual(xz.prefix, "[device_call]")
        self.assertEqual(xz.device_id, "24:0a:c4:12:34:56")
        self.assertEqual(dict(xz.headers())["Authorization"], "Bearer x")

    def test_trusted_links_validated(self):
        self.assertEqual(config.validate({"trusted_links": "endpoint, xiaozhi"})["trusted_links"], "endpoint, xiaozhi")
        self.assertRaises(ValueError, config.validate, {"trusted_links": "server"})


class ReminderSinkTest(unittest.TestCase):
    def test_attach_twice_registers_once_and_a_down_link_keeps_reminders(self):
        from memory import reminder

        announcer = reminder.Announcer()
        link = endpoint.EndpointLink("ws://h/mcp/", mcp.Dispatcher(), announcer, log=lambda m: None)
        link.attach_reminders()
        link.attach_reminders()
        self.assertEqual(len(announcer._sinks), 1)
        # no socket: the sink refuses, the announcer drops it and holds the reminder
        self.assertFalse(announcer.announce(ITEM))
        self.assertEqual(announcer.undelivered(), 1)
        self.assertEqual(len(announcer._sinks), 0)
        link.attach_reminders()
        announcer.remove(link.sink)
        self.assertEqual(len(announcer._sinks), 0)
