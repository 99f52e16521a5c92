"""Generated state files of every shape at boot: the device always boots, reads and writes."""

import json
import shutil
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT / "lib", ROOT / "firmware" / "sim"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import esp32  # noqa: E402
from memory import app, clock, config, statefile  # noqa: E402

_STATE = ("archive/journal.json", "archive/stats.json", "keyed/mem_fuzz.json", "sync.0.jsonl", "sync.1.jsonl",
          "nvs.json")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20,
)
# Near misses of each real shape are the interesting ones: right keys, wrong values.
near = st.fixed_dictionaries({"dropped_segments": json_values, "dropped_records": json_values, "dropping": json_values}) \
    | st.lists(st.lists(json_values, min_size=4, max_size=4), max_size=3) \
    | st.fixed_dictionaries({"items": st.lists(st.lists(json_values, min_size=4, max_size=4), max_size=4)}) \
    | st.fixed_dictionaries({"key": st.just("mem_fuzz"), "category": json_values, "payload": json_values,
                             "importance": json_values, "tags": json_values})
contents = st.one_of(
    json_values.map(json.dumps),
    near.map(json.dumps),
    st.lists(json_values.map(json.dumps), max_size=3).map("\n".join),
    st.binary(max_size=60),
)


def _call(device, tool, args):
    out = json.loads(device.call_tool(tool, json.dumps(args)))
    return out["isError"], out["content"][0]["text"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=st.dictionaries(st.sampled_from(_STATE), contents, min_size=1, max_size=3))
def test_any_state_files_leave_a_device_that_boots_and_serves(files):
    data = Path(tempfile.mkdtemp(prefix="xzfuzz"))
    try:
        for sub in ("archive", "keyed"):
            (data / sub).mkdir()
        for name, content in files.items():
            (data / name).write_bytes(content.encode() if isinstance(content, str) else content)
        esp32.configure_nvs(str(data / "nvs.json"), reserve=200)
        del statefile.moved[:]
        device = app.Device(config.validate({}), data=str(data))
        err, text = _call(device, "memory", {"action": "read"})
        assert not err, text
        err, text = _call(device, "memory", {"action": "write", "type": "fact", "content": "还在"})
        assert not err, text
        err, text = _call(device, "memory_sync", {"action": "apply", "batch_id": "fuzz", "ops": [
            {"op": "coins", "amount": 1},
            {"op": "put_mem", "key": "mem_ok", "category": "c", "payload": "p", "importance": 1, "source": "user"}]})
        assert not err, text
        results = [r["result"] for r in json.loads(text)["results"]]
        assert results[0] in ("ADDED", "UPDATED") and results[1] in ("ADDED", "UPDATED"), text
        err, text = _call(device, "memory_sync", {"action": "stats"})
        assert not err, text
    finally:
        clock.set_utc_offset(0)
        shutil.rmtree(data)
