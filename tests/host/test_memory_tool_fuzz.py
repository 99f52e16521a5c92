"""Hypothesis drives the real `memory` tool: every call is answered, and a refused call changes nothing."""

import json
import re
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT / "lib", ROOT / "firmware" / "sim"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import esp32  # noqa: E402
from memory import app, clock, config, mcp, tool_schema  # noqa: E402

KINDS = list(tool_schema.MEMORY_TYPES) + ["pet", "", "profile", "event"]
ACTIONS = list(tool_schema.ACTIONS) + ["fly", ""]
text = st.one_of(st.text(max_size=80), st.sampled_from(["王浩宇", "打篮球", "妈妈", "李娟", "团队会议", "北京"]))
scalar = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12), st.floats(allow_nan=True), text,
                   st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))
datetimes = st.one_of(scalar, st.builds(lambda y, m, d, h, mi: f"{y:04d}-{m:02d}-{d:02d} {h:02d}:{mi:02d}",
                                        st.integers(2020, 2031), st.integers(0, 13), st.integers(0, 32),
                                        st.integers(0, 25), st.integers(0, 61)))
plausible = st.fixed_dictionaries(
    {"action": st.sampled_from(tool_schema.ACTIONS), "type": st.sampled_from(tool_schema.MEMORY_TYPES),
     "content": st.one_of(text, st.integers(0, 200))},
    optional={
        "datetime": st.builds(lambda d, h: f"2026-02-{d:02d} {h:02d}:00", st.integers(1, 28), st.integers(0, 23)),
        "repeat": st.sampled_from(["none", "daily", "weekly", "monthly"]),
        "priority": st.integers(1, 5), "relation": text, "name": text, "closeness": st.integers(1, 5),
        "keyword": text, "limit": st.integers(1, 50), "amount": st.integers(-50, 50), "force": st.booleans(),
    },
)
garbage = st.fixed_dictionaries(
    {"action": st.one_of(st.sampled_from(ACTIONS), scalar)},
    optional={
        "type": st.one_of(st.sampled_from(KINDS), scalar),
        "content": st.one_of(text, scalar),
        "datetime": datetimes,
        "repeat": st.one_of(st.sampled_from(["none", "daily", "weekly", "monthly", "yearly"]), scalar),
        "priority": st.one_of(st.integers(-2, 8), scalar),
        "relation": text, "name": text,
        "closeness": st.one_of(st.integers(-1, 7), scalar),
        "emotion": st.one_of(st.sampled_from(["happy", "sad", "angry"]), scalar),
        "intensity": st.one_of(st.integers(0, 6), scalar), "importance": st.one_of(st.integers(0, 11), scalar),
        "keyword": st.one_of(text, scalar), "start_date": st.one_of(st.just("2026-02-01"), scalar),
        "end_date": st.one_of(st.just("2026-13-01"), scalar), "limit": st.one_of(st.integers(-1, 60), scalar),
        "force": scalar, "amount": st.one_of(st.integers(-50, 50), scalar), "topic": text,
    },
)
arguments = st.one_of(plausible, garbage)


def snapshot(device):
    m = device.memory
    kinds = ("name", "age", "gender", "location", "birthday", "like", "dislike", "family", "fact", "trait", "habit",
             "moment", "goal", "chat")
    data = {k: m.store.read(k) for k in kinds}
    data["events"] = [ev.to_dict() for ev in m.store.events()]
    data["affection"] = m.store.affection()
    data["keyed"] = m.keyed.list()
    return json.dumps(data, sort_keys=True, default=str)


def make_device(tmp):
    esp32.configure_nvs(None, reserve=200)
    data = Path(tmp) / "data"
    data.mkdir(exist_ok=True)
    clock.simulate(clock.parse_local_datetime("2026-02-05 08:00"), 1)
    return app.Device(config.validate({"token": "fuzz-token-1"}), data=str(data))


def test_memory_tool_answers_everything_and_refusals_change_nothing(tmp_path):
    device = make_device(tmp_path)
    link = mcp.Link("fuzz", trusted=False)
    calls = {"ok": 0, "refused": 0}

    @settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
    @given(args=arguments, rid=st.one_of(st.integers(), st.text(max_size=20)))
    def one_call(args, rid):
        before = snapshot(device)
        request = json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                              "params": {"name": "memory", "arguments": args}})
        reply = device.dispatcher.handle(request, link)
        if not isinstance(reply, str):  # a streamed answer (the read overview) comes in pieces
            reply = "".join(reply)
        reply = json.loads(reply)
        assert reply["id"] == rid
        if "error" in reply:  # a protocol error: only for params the dispatcher rejects outright
            assert reply["error"]["code"] == -32602
            assert snapshot(device) == before
            return
        result = reply["result"]
        assert result["content"][0]["type"] == "text"
        if result["isError"]:
            calls["refused"] += 1
            assert sorted(result) == ["content", "isError"]
            # A refusal names the problem; an internal exception's type would mean unchecked input.
            assert not re.match(r"(没能完成：)?[A-Za-z]*(Error|Exception): ", result["content"][0]["text"]), (args, result)
            assert snapshot(device) == before, args
        else:
            calls["ok"] += 1
            json.loads(result["content"][0]["text"])

    try:
        one_call()
    finally:
        clock.simulate(None)
        clock.set_utc_offset(0)
    assert calls["ok"] > 50 and calls["refused"] > 200, calls
    device.store.flush()
