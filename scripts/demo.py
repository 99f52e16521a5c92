"""Interim demo: exercises the device modules that exist on CPython and lists what is not built yet."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "firmware" / "sim"), str(ROOT / "lib")]

import esp32  # noqa: E402
from memory import clock  # noqa: E402

clock.set_utc_offset(8 * 3600)
now = clock.now()
print(f"device clock: {clock.iso_local(now)} (UTC+8), set: {clock.is_set()}")
flash = esp32.configure_nvs(reserve=200)
nvs = esp32.NVS("xzmem")
nvs.set_blob("p", "王浩宇".encode())
print(f"NVS: {flash.entries_used()} of {flash.usable_entries} entries used after one name (200 reserved for WiFi/PHY)")
print("not built yet: hot store, archive, schedules, MCP link, host pipelines, chat (see the open issues)")
