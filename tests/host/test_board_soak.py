"""bench/board_soak.py as README states it: the whole firmware under real MicroPython (the
WebAssembly port) on the heap deploy asks of a board for the .mpy form (xzmem.board.target.MPY_HEAP,
320 KB), 1,000 mixed calls, nothing lost.

The port collects garbage only between event-loop turns, so the soak ends the firmware's step slices
early when the heap runs low, where a board would collect (bench/board_soak_mp.py); README gives the
figures.
"""

import json
import os
import subprocess
import sys

import pytest
from esp_images import ROOT
from xzmem.board.target import MPY_HEAP

SOAK_HEAP = MPY_HEAP  # README: "Soak in CI"


def soak(*args, check=True):
    return subprocess.run([sys.executable, str(ROOT / "bench" / "board_soak.py"), *map(str, args)],
                          capture_output=True, text=True, check=check, timeout=600)


@pytest.mark.timeout(900)  # about a minute alone; much more on a machine busy with other work
def test_a_thousand_mixed_calls_on_the_claimed_heap_lose_nothing():
    out = json.loads(soak("--heap", SOAK_HEAP, "--calls", 1000).stdout)
    assert (out["memory_errors"], out["sessions_lost"], out["leaked_sockets"]) == (0, 0, 0), out["first_problems"]
    assert out["loop_faults"] == 0  # the port's event loop never ran short of heap itself
    # Every call was one the firmware takes: nothing refused but writes to a type at capacity.
    assert out["tool_errors"] == 0, out["first_problems"]
    assert out["answered"] + out["reconnects"] == 1000 and out["reconnects"] > 20
    # The device's live heap (with the client's) stayed inside the heap it was given.
    assert 100_000 < out["live_max"] < SOAK_HEAP
    assert 0 < out["largest_alloc"] < 16 * 1024
    assert out["fake_nvs_bytes"] > 10_000  # weighed and left out of the budget


def test_a_heap_too_small_for_the_started_firmware_is_named():
    result = soak("--heap", 65536, "--calls", 10, check=False)
    assert result.returncode != 0
    assert "more than --heap 65536" in result.stderr


def test_a_unix_port_binary_that_is_not_there_is_named():
    result = soak("--heap", 65536, "--micropython", "/nonexistent/micropython", check=False)
    assert result.returncode == 2
    assert "--micropython /nonexistent/micropython: no such program" in result.stderr
    assert "Traceback" not in result.stderr


def test_under_a_unix_port_when_one_is_given():
    # `--micropython PATH` runs the soak under a unix-port binary (README's table of 32-bit 1.23 and
    # 1.28 runs). None is built here: XZMEM_UNIX_MICROPYTHON names one when there is.
    binary = os.environ.get("XZMEM_UNIX_MICROPYTHON")
    if not binary:
        pytest.skip("no unix MicroPython binary (XZMEM_UNIX_MICROPYTHON)")
    # The device runs alone there, on a real socket, driven by a client in this machine's CPython.
    out = json.loads(soak("--heap", 320 * 1024, "--calls", 200, "--micropython", binary).stdout)
    assert (out["memory_errors"], out["sessions_lost"], out["leaked_sockets"]) == (0, 0, 0), out["first_problems"]
    assert out["tool_errors"] == 0 and out["device_faults"] == 0 and out["form"] == "mpy"
    assert out["sockets_opened"] == out["reconnects"] + 1 and out["reconnects"] > 3
    assert 100_000 < out["live_max"] < 320 * 1024
