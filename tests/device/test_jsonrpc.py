# memory.mcp: the JSON-RPC 2.0 / MCP dispatcher every link shares.

import json
import unittest

from memory import mcp


class Echo(mcp.Tool):
    name = "echo"
    description = "Returns its arguments."

    def __init__(self):
        self.calls = 0

    def call(self, arguments, link):
        self.calls += 1
        return {"args": arguments, "link": link.name, "trusted": link.trusted}


class Refuse(mcp.Tool):
    name = "refuse"
    description = "Always refuses."

    def call(self, arguments, link):
        raise mcp.ToolError("content must not be empty, got ''")


class Crash(mcp.Tool):
    name = "crash"
    description = "Has a bug."

    def call(self, arguments, link):
        return {}["missing"]


class Plain(mcp.Tool):
    name = "plain"
    description = "Returns text as is."

    def call(self, arguments, link):
        return "已记住"


class Checked(mcp.Tool):
    name = "checked"
    description = "Validates its arguments against the schema."
    input_schema = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["read", "write"]},
            "priority": {"type": "integer", "minimum": 1, "maximum": 5},
            "content": {"type": "string", "maxLength": 8},
            "flag": {"type": "boolean"},
        },
        "required": ["action"],
        "additionalProperties": False,
    }

    def call(self, arguments, link):
        return {"ok": arguments["action"]}


class Sync(mcp.Tool):
    name = "sync"
    description = "Host only."
    user_only = True
    annotations = {"title": "Sync"}

    def call(self, arguments, link):
        return {"synced": True}


class Big(mcp.Tool):
    def __init__(self, i, size):
        self.name = "tool_%02d" % i
        self.description = ("工具%d " % i) + "x" * size


def make():
    d = mcp.Dispatcher(name="xzmem-test", version="9.9")
    for tool in (Echo(), Refuse(), Crash(), Plain(), Checked(), Sync()):
        d.add(tool)
    return d


TRUSTED = mcp.Link("test trusted", trusted=True)
UNTRUSTED = mcp.Link("test endpoint", trusted=False)


def req(method, params=None, rid=1):
    msg = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    return json.dumps(msg)


def joined(answer):
    """A response as one text: tools/list answers in pieces."""
    return answer if isinstance(answer, str) else "".join(answer)


def ask(d, method, params=None, rid=1, link=TRUSTED):
    return json.loads(joined(d.handle(req(method, params, rid), link)))


def call(d, name, arguments=None, link=TRUSTED):
    params = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return ask(d, "tools/call", params, link=link)


def error_code(resp):
    return resp["error"]["code"]


class Methods(unittest.TestCase):
    def test_initialize_answers_a_supported_version_or_ours(self):
        d = make()
        link = mcp.Link("t", True)
        r = ask(d, "initialize", {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "sdk", "version": "1"}}, link=link)["result"]
        self.assertEqual(r["protocolVersion"], "2025-03-26")
        self.assertEqual(r["capabilities"], {"tools": {}})
        self.assertEqual(r["serverInfo"], {"name": "xzmem-test", "version": "9.9"})
        self.assertEqual(link.client_info["name"], "sdk")
        r = ask(d, "initialize", {"protocolVersion": "2099-01-01"})["result"]
        self.assertEqual(r["protocolVersion"], "2024-11-05")
        self.assertEqual(ask(d, "initialize")["result"]["protocolVersion"], "2024-11-05")

    def test_ping_is_empty_result(self):
        self.assertEqual(ask(make(), "ping", rid="p-1"), {"jsonrpc": "2.0", "id": "p-1", "result": {}})

    def test_ids_are_echoed_exactly(self):
        d = make()
        for rid in (0, 7, -3, 2**53 + 1, 1.5, "a1b2c3d4-e5f6_n_3", "", "记忆"):
            text = d.handle(req("ping", rid=rid), TRUSTED)
            self.assertEqual(json.loads(text)["id"], rid)
            self.assertTrue(type(json.loads(text)["id"]) is type(rid))
        self.assertIsNone(json.loads(d.handle('{"jsonrpc":"2.0","id":null,"method":"ping"}', TRUSTED))["id"])

    def test_unknown_method(self):
        r = ask(make(), "resources/list", rid=42)
        self.assertEqual((r["id"], error_code(r)), (42, -32601))
        self.assertIn("resources/list", r["error"]["message"])

    def test_notification_method_with_an_id_still_gets_an_answer(self):
        self.assertEqual(error_code(ask(make(), "notifications/initialized", rid=5)), -32601)


class Errors(unittest.TestCase):
    def test_parse_errors(self):
        d = make()
        for text in ("{bad", "", '{"jsonrpc":"2.0",', "\x00", "[" * 5000):
            r = json.loads(d.handle(text, TRUSTED))
            self.assertEqual((r["id"], error_code(r)), (None, -32700), text[:20])


    def test_cut_off_and_mismatched_messages_are_parse_errors_on_every_version(self):
        # MicroPython 1.23-1.25 read each of these as a partial request; none may run a tool.
        d = make()
        echo = d.find("echo")
        whole = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":[1,"x}]"]}}}'
        for cut in (len(whole) - 1, len(whole) - 2, len(whole) - 10, 40):
            r = json.loads(d.handle(whole[:cut], TRUSTED))
            self.assertEqual((r["id"], error_code(r)), (None, -32700), whole[:cut])
        for text in ('{"jsonrpc":"2.0","id":1,"method":"ping"]', '[{"jsonrpc":"2.0","id":1,"method":"ping"}}',
                     '{"jsonrpc":"2.0","id":1,"method":"ping"}{}', '{"a":"\\"}'):
            r = json.loads(d.handle(text, TRUSTED))
            self.assertEqual(error_code(r), -32700, text)
        self.assertEqual(echo.calls, 0)
        r = json.loads(d.handle(" \n" + whole + "\r\n", TRUSTED))
        self.assertEqual(json.loads(r["result"]["content"][0]["text"])["args"], {"a": [1, "x}]"]})

    def test_whole_json_judges_brackets_outside_strings(self):
        self.assertTrue(mcp.whole_json('{"k":"记忆 {[ \\" ]}","n":[{}]}'))
        self.assertFalse(mcp.whole_json('{"k":"记忆"'))
        self.assertFalse(mcp.whole_json('{"k":"]"}]'))
        self.assertFalse(mcp.whole_json("[" * 40 + "]" * 40))
        self.assertTrue(mcp.whole_json("7"))  # scalars are json.loads's to judge
    def test_invalid_requests(self):
        d = make()
        cases = (
            ("5", None),
            ('"ping"', None),
            ("[]", None),
            ("[1]", None),
            ('{"jsonrpc":"1.0","id":3,"method":"ping"}', 3),
            ('{"id":4,"method":"ping"}', 4),
            ('{"jsonrpc":"2.0","id":5,"method":5}', 5),
            ('{"jsonrpc":"2.0","id":6}', 6),
            ('{"jsonrpc":"2.0","id":true,"method":"ping"}', None),
            ('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', None),
            ('{"jsonrpc":"2.0","id":[1],"method":"ping"}', None),
            ('{"jsonrpc":"2.0","id":1e400,"method":"ping"}', None),
        )
        for text, rid in cases:
            r = json.loads(d.handle(text, TRUSTED))
            if text == "[1]":
                r = r[0]
            self.assertEqual((r["id"], error_code(r)), (rid, -32600), text)
            self.assertEqual(r["jsonrpc"], "2.0")

    def test_params_must_be_an_object(self):
        d = make()
        for params in ([1, 2], "x", 3, True):
            r = json.loads(d.handle(json.dumps({"jsonrpc": "2.0", "id": 9, "method": "ping", "params": params}), TRUSTED))
            self.assertEqual((r["id"], error_code(r)), (9, -32602))
        self.assertEqual(json.loads(d.handle('{"jsonrpc":"2.0","id":9,"method":"ping","params":null}', TRUSTED))["result"], {})

    def test_tools_call_params(self):
        d = make()
        self.assertEqual(error_code(ask(d, "tools/call", {})), -32602)
        self.assertEqual(error_code(ask(d, "tools/call", {"name": 5})), -32602)
        self.assertEqual(error_code(call(d, "nope")), -32602)
        self.assertEqual(error_code(call(d, "echo", [1])), -32602)
        self.assertEqual(error_code(call(d, "echo", "x")), -32602)


class Notifications(unittest.TestCase):
    def test_notifications_get_no_answer_and_run_nothing(self):
        d = make()
        echo = d.find("echo")
        for text in (
            '{"jsonrpc":"2.0","method":"notifications/initialized"}',
            '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}',
            '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"}}',
            '{"jsonrpc":"2.0","method":"unknown/thing","params":[1]}',
            '{"jsonrpc":"2.0","id":1,"result":{}}',
            '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}',
        ):
            self.assertIsNone(d.handle(text, TRUSTED), text)
        self.assertEqual(echo.calls, 0)

    def test_device_notification(self):
        text = mcp.notification("notifications/message", {"level": "info", "logger": "memory.reminder", "data": {"title": "喝水"}})
        self.assertEqual(
            json.loads(text),
            {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "logger": "memory.reminder", "data": {"title": "喝水"}}},
        )
        self.assertEqual(json.loads(mcp.notification("notifications/tools/list_changed")), {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})


class Batches(unittest.TestCase):
    def test_batch_answers_requests_in_order(self):
        d = make()
        text = json.dumps(
            [
                {"jsonrpc": "2.0", "id": "a", "method": "ping"},
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": "b", "method": "nope"},
                5,
            ]
        )
        r = json.loads(d.handle(text, TRUSTED))
        self.assertEqual([(x["id"], "error" in x) for x in r], [("a", False), ("b", True), (None, True)])

    def test_batch_of_notifications_gets_nothing(self):
        self.assertIsNone(make().handle('[{"jsonrpc":"2.0","method":"notifications/initialized"}]', TRUSTED))

    def test_batch_too_long(self):
        text = json.dumps([{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(17)])
        self.assertEqual(error_code(json.loads(make().handle(text, TRUSTED))), -32600)


class Listing(unittest.TestCase):
    def test_list_with_and_without_params(self):
        d = make()
        for params in (None, {}, {"cursor": ""}):
            r = ask(d, "tools/list", params)["result"]
            self.assertEqual([t["name"] for t in r["tools"]], ["echo", "refuse", "crash", "plain", "checked"])
            self.assertTrue("nextCursor" not in r)
        t = ask(d, "tools/list")["result"]["tools"][4]
        self.assertEqual(t["inputSchema"]["required"], ["action"])
        self.assertEqual(t["description"], "Validates its arguments against the schema.")

    def test_user_only_tools_need_the_flag_and_a_trusted_link(self):
        d = make()
        names = [t["name"] for t in ask(d, "tools/list", {"withUserTools": True})["result"]["tools"]]
        self.assertEqual(names[-1], "sync")
        sync = ask(d, "tools/list", {"withUserTools": True})["result"]["tools"][-1]
        self.assertEqual(sync["annotations"], {"title": "Sync", "audience": ["user"]})
        self.assertEqual(Sync.annotations, {"title": "Sync"})
        for params, link in (({"withUserTools": False}, TRUSTED), ({"withUserTools": "yes"}, TRUSTED), ({"withUserTools": True}, UNTRUSTED)):
            names = [t["name"] for t in ask(d, "tools/list", params, link=link)["result"]["tools"]]
            self.assertTrue("sync" not in names, (params, link.name))

    def test_user_only_tool_is_not_callable_on_an_untrusted_link(self):
        d = make()
        r = call(d, "sync", {}, link=UNTRUSTED)
        self.assertEqual(error_code(r), -32602)
        self.assertIn("unknown tool", r["error"]["message"])
        r = call(d, "sync", {}, link=TRUSTED)
        self.assertFalse(r["result"]["isError"])

    def test_pages_stay_under_8000_bytes_and_cover_every_tool_once(self):
        d = mcp.Dispatcher()
        for i in range(40):
            d.add(Big(i, 300 + (i * 97) % 1500))
        for rid in (1, "a-very-long-request-id-" + "z" * 300):
            seen = []
            cursor = None
            pages = 0
            while True:
                params = {} if cursor is None else {"cursor": cursor}
                pieces = d.handle(req("tools/list", params, rid), TRUSTED)
                self.assertFalse(isinstance(pieces, str))
                pieces = list(pieces)
                self.assertTrue(len(pieces) > 3)  # sent as they come, never joined on the device
                text = "".join(pieces)
                self.assertTrue(len(text.encode()) < 8000, len(text.encode()))
                r = json.loads(text)["result"]
                self.assertTrue(len(r["tools"]) >= 1)
                seen.extend(t["name"] for t in r["tools"])
                pages += 1
                cursor = r.get("nextCursor")
                if cursor is None:
                    break
                self.assertEqual(cursor, "tool_%02d" % len(seen))
            self.assertEqual(seen, ["tool_%02d" % i for i in range(40)])
            self.assertTrue(pages >= 4, pages)

    def test_bad_cursors(self):
        d = make()
        self.assertEqual(error_code(ask(d, "tools/list", {"cursor": "no_such_tool"})), -32602)
        self.assertEqual(error_code(ask(d, "tools/list", {"cursor": 3})), -32602)
        self.assertEqual(error_code(ask(d, "tools/list", {"cursor": "sync"}, link=UNTRUSTED)), -32602)

    def test_registration_rules(self):
        d = make()
        self.assertRaises(ValueError, d.add, Echo())
        bad = Echo()
        for name in ("", "has space", "x" * 65, 5):
            bad.name = name
            self.assertRaises(ValueError, d.add, bad)
        self.assertRaises(ValueError, d.add, Big(99, 9000))


class Calls(unittest.TestCase):
    def test_result_is_json_text_content(self):
        r = call(make(), "echo", {"q": "生日", "n": 3})["result"]
        self.assertEqual(r["isError"], False)
        self.assertEqual(r["content"][0]["type"], "text")
        self.assertEqual(json.loads(r["content"][0]["text"]), {"args": {"q": "生日", "n": 3}, "link": "test trusted", "trusted": True})

    def test_arguments_may_be_absent(self):
        r = call(make(), "echo")["result"]
        self.assertEqual(json.loads(r["content"][0]["text"])["args"], {})
        r = ask(make(), "tools/call", {"name": "echo", "arguments": None})["result"]
        self.assertEqual(json.loads(r["content"][0]["text"])["args"], {})

    def test_string_results_are_sent_as_is(self):
        self.assertEqual(call(make(), "plain", {})["result"]["content"][0]["text"], "已记住")

    def test_a_refusal_is_exactly_one_text_and_is_error(self):
        r = call(make(), "refuse", {})
        self.assertTrue("error" not in r)
        self.assertEqual(r["result"], {"content": [{"type": "text", "text": "content must not be empty, got ''"}], "isError": True})

    def test_a_crashing_tool_is_an_error_result_not_a_dead_link(self):
        d = make()
        res = call(d, "crash", {})["result"]
        self.assertEqual(res["isError"], True)
        self.assertIn("internal fault", res["content"][0]["text"])  # the exception goes to the log, not to a voice
        self.assertFalse("KeyError" in res["content"][0]["text"], res)
        self.assertEqual(ask(d, "ping")["result"], {})

    def test_schema_checks_name_the_field_and_value(self):
        d = make()
        cases = (
            ({}, "action is required"),
            ({"action": "erase"}, "action must be one of read, write, got 'erase'"),
            ({"action": 3}, "action must be string, got 3"),
            ({"action": "read", "priority": 9}, "priority must be 1-5, got 9"),
            ({"action": "read", "priority": "2.5"}, "priority must be integer, got '2.5'"),
            ({"action": "read", "priority": "9"}, "priority must be 1-5, got 9"),
            ({"action": "read", "priority": True}, "priority must be integer, got True"),
            ({"action": "read", "priority": 2.5}, "priority must be integer, got 2.5"),
            ({"action": "read", "content": "123456789"}, "content must have at most 8 characters, got 9"),
            ({"action": "read", "flag": 1}, "flag must be boolean, got 1"),
            ({"action": "read", "extra": 1}, "unknown argument 'extra'; known arguments: action, content, flag, priority"),
        )
        for args, message in cases:
            res = call(d, "checked", args)["result"]
            self.assertEqual((res["isError"], res["content"][0]["text"]), (True, message), args)
        res = call(d, "checked", {"action": "write", "priority": 5, "content": "记忆记忆记忆记忆", "flag": False})["result"]
        self.assertEqual(json.loads(res["content"][0]["text"]), {"ok": "write"})
