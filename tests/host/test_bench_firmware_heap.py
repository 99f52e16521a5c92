"""Smoke test of bench/firmware_heap.py: the whole firmware under the WebAssembly port, one JSON object."""

import json
import subprocess
import sys

from esp_images import ROOT

ACTIONS = ["start", "client_connected", "tools_list", "read", "recall_10", "recall_50", "sync_apply_20"]


def run_bench(*args):
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "firmware_heap.py"), *args],
                         capture_output=True, text=True, check=True, timeout=600).stdout
    return json.loads(out)


def test_every_form_is_measured_after_every_action():
    result = run_bench("--forms", "mpy,frozen")
    mpy, frozen = result["forms"]["mpy"], result["forms"]["frozen"]
    assert list(mpy["live_after"]) == ACTIONS
    assert 0 < frozen["live_total"] < mpy["live_total"]
    assert "flash" in result["frozen_method"]
    # Every module the run loaded is weighed, and the big ones have code a frozen build keeps in flash
    # (their own: a module loaded again must not free its first copy). A class of a few lines is at
    # the measurement's noise.
    code = result["code_bytes_per_module"]
    assert set(result["modules_loaded"]) <= set(code)
    assert all(code["memory." + m] > 1000 for m in ("ws", "mcp", "store", "archive", "service")), code
    # Each request was answered (the bench fails otherwise) and its steps were measured.
    assert all(result["actions"][a]["steps"] >= 1 for a in ACTIONS)
    assert 0 < result["largest_allocation"] and 0 < result["garbage_per_frame"]
    assert set(result["meets_targets"]) == {"frozen_live", "frozen_live_max", "mpy_live", "mpy_live_max",
                                            "largest_allocation", "largest_after_start", "garbage_per_frame"}
    # The fake NVS is weighed and left out: a board keeps it in flash.
    assert result["fake_nvs_bytes"] > 10000


def test_after_start_up_the_firmware_allocates_no_block_over_a_kilobyte():
    # A long-running device's heap fragments: past start-up, nothing may need more than 1 KB in one
    # piece. The archive's 4 KB sidecar block is built in quarters in a buffer made at start-up,
    # tools/list goes out a sentence at a time, and a request over 1 KB (the 20-op sync batch is
    # 2.9 KB) is read into the receive buffer made at start-up, 1,008 bytes a read.
    result = run_bench("--forms", "mpy")
    after = {a: result["actions"][a]["largest_allocation_bytes"] for a in ACTIONS[1:]}
    assert result["actions"]["sync_apply_20"]["request_bytes"] > 2048
    assert all(b <= 1024 for b in after.values()), after
    assert result["largest_after_start"] <= 1024


def test_code_a_deployment_does_not_use_is_not_loaded():
    # No links configured: neither their code nor the WebSocket client. Start-up, self-test, the HTTP
    # upgrade, the tool definitions and their checker are unloaded once used; what no action of the
    # bench needs (schedule changes, closing, dates, the keyed store, export) is never loaded.
    loaded = set(run_bench("--forms", "py")["modules_loaded"])
    assert "memory.server" in loaded and "memory.ws" in loaded
    for name in ("links", "endpoint", "xiaozhi", "outlink", "wsclient", "startup", "config", "selftest", "wshttp", "keyed",
                 "tool_schema", "tool_text", "schema", "gate", "assemble", "storeload", "relayout", "mcplist", "schededit",
                 "wsclose", "clocktext",
                 "fieldcodes", "backup", "affinity"):
        assert "memory." + name not in loaded, name
    with_links = set(run_bench("--forms", "py", "--links")["modules_loaded"])
    assert {"memory.links", "memory.endpoint", "memory.xiaozhi", "memory.wsclient"} <= with_links
