# memory.steps and the dispatcher's stepped calls: long work gives the event loop turns, pings are
# answered meanwhile, and no other call sees the work half done.

import asyncio
import json
import sys
import unittest

from memory import mcp, steps


def _needs_round_robin():
    # The WebAssembly port's asyncio runs a task that awaits sleep(0) on before the others; on a board,
    # as on CPython, every ready task gets its turn.
    if sys.platform == "webassembly":
        raise unittest.SkipTest("the WebAssembly port's asyncio does not switch tasks at sleep(0)")


def _busy(ms):
    # Work that holds the interpreter, without awaiting, for `ms` milliseconds.
    start = steps.ticks_ms()
    while steps.ticks_diff(steps.ticks_ms(), start) < ms:
        pass


def _slow_count(n, ms):
    total = 0
    for _ in range(n):
        _busy(ms)
        total += 1
        yield
    return total


class Pair(mcp.Tool):
    """`move` raises both numbers by 5 in five slow steps, `a` first, `b` at the end; `read`
    answers them. A reader that got in between would see them differ."""

    name = "pair"
    description = "Two numbers one call moves together."

    def __init__(self):
        self.a = self.b = 0

    def call(self, arguments, link):
        return steps.finish(self.call_steps(arguments, link))

    def call_steps(self, arguments, link):
        yield
        if arguments.get("action") == "read":
            return {"a": self.a, "b": self.b}
        for _ in range(5):
            self.a += 1
            _busy(15)
            yield
        self.b += 5
        return {"a": self.a, "b": self.b}


def _request(rid, method, params=None):
    msg = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    return json.dumps(msg)


def _call(rid, action):
    return _request(rid, "tools/call", {"name": "pair", "arguments": {"action": action}})


def _value(reply):
    return json.loads(json.loads(reply)["result"]["content"][0]["text"])


class Steps(unittest.TestCase):
    def test_finish_runs_every_step_and_returns_the_value(self):
        self.assertEqual(steps.finish(_slow_count(4, 0)), 4)

    async def test_run_gives_other_tasks_turns_during_long_work(self):
        _needs_round_robin()
        turns = [0]

        async def other():
            while True:
                turns[0] += 1
                await asyncio.sleep(0)

        task = asyncio.create_task(other())
        await asyncio.sleep(0)
        before = turns[0]
        self.assertEqual(await steps.run(_slow_count(6, 15)), 6)  # 90 ms of work in 15 ms steps
        during = turns[0] - before
        task.cancel()
        self.assertTrue(during >= 3, "the other task ran %d times in 90 ms of work" % during)


class SteppedCalls(unittest.TestCase):
    def setUp(self):
        self.pair = Pair()
        self.d = mcp.Dispatcher()
        self.d.add(self.pair)
        self.link = mcp.Link("t", trusted=True)

    async def test_a_ping_is_answered_while_a_long_call_works(self):
        _needs_round_robin()
        moving = asyncio.create_task(self.d.handle_async(_call(1, "move"), self.link))
        while self.pair.a == 0:
            await asyncio.sleep(0)
        pong = json.loads(await self.d.handle_async(_request(2, "ping"), self.link))
        self.assertEqual(pong["result"], {})
        self.assertFalse(moving.done())
        self.assertEqual(_value(await moving), {"a": 5, "b": 5})

    async def test_another_call_waits_for_the_one_under_way(self):
        moving = asyncio.create_task(self.d.handle_async(_call(1, "move"), self.link))
        while self.pair.a == 0:
            await asyncio.sleep(0)
        seen = _value(await self.d.handle_async(_call(2, "read"), self.link))
        self.assertEqual(seen, {"a": 5, "b": 5})  # not {"a": 1, "b": 0}: the move was not seen half done
        self.assertTrue(moving.done())

    async def test_a_batch_of_calls_takes_the_lock_too(self):
        moving = asyncio.create_task(self.d.handle_async(_call(1, "move"), self.link))
        while self.pair.a == 0:
            await asyncio.sleep(0)
        batch = "[%s,%s]" % (_request(2, "ping"), _call(3, "read"))
        out = json.loads(await self.d.handle_async(batch, self.link))
        self.assertEqual(json.loads(out[1]["result"]["content"][0]["text"]), {"a": 5, "b": 5})
        await moving

    def test_the_plain_handle_runs_the_same_steps_at_once(self):
        self.assertEqual(_value(self.d.handle(_call(1, "move"), self.link)), {"a": 5, "b": 5})


if __name__ == "__main__":
    unittest.main()
