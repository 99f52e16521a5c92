"""The upgrade path a maker takes: `xzmem backup`, a flash that keeps memory, `xzmem restore`.

A simulated device full of every kind of memory (profile, likes, family, facts with some archived,
traits, habits, goals, moments, the chat ring, schedules in every state, coins, mood, keyed
memories) is backed up into one file with its config minus secrets; the flash plan for a board
holding memory keeps the `nvs` and `memory` partitions (shown as a dry run, and run against a
board that answers esptool with an xzmem table) and refuses to erase unless told; a fresh device
gets the backup restored, and its export equals the first device's.
"""

import asyncio
import json
import warnings

from esp_images import merged_firmware
from simdevice import TOKEN, SimDevice
from test_backup_roundtrip import fill
from typer.testing import CliRunner
from xzmem.board import plans as board
from xzmem.board.partitions import load_layout
from xzmem.cli.app import app

warnings.filterwarnings("ignore", category=DeprecationWarning)


def xzmem(tmp_path, *args, device=None):
    env = {"XZMEM_CONFIG": str(tmp_path / "config.toml"), "XZMEM_DATA_DIR": str(tmp_path / "data"),
           "XZMEM_DEVICE": None, "XZMEM_TOKEN": None, "COLUMNS": "160"}
    extra = ["--device", device.url.split("?")[0], "--token", TOKEN] if device is not None else []
    return CliRunner().invoke(app, [str(a) for a in (*args, *extra)], env=env)


def board_with_memory(flash_size: str):
    """An esptool stand-in for a board that runs xzmem with the `flash_size` layout: read-flash of the
    partition table answers that table; every command line is kept."""
    calls = []

    def run(argv):
        calls.append(argv)
        if "read-flash" in argv:
            i = argv.index("read-flash")
            with open(argv[i + 3], "wb") as f:
                f.write(load_layout(flash_size).binary())

    return run, calls


def written_offsets(argv: list[str]) -> list[int]:
    args = argv[argv.index("write-flash") + 3:]
    return [int(a, 16) for a in args[::2]]


def test_backup_flash_keeping_memory_restore_gives_the_same_export(tmp_path, port, monkeypatch):
    fw = merged_firmware(tmp_path / "fw.bin")
    before, saved, after = tmp_path / "before.json", tmp_path / "upgrade.bak.json", tmp_path / "after.json"
    board_id = ("--device-id", "02:8b:65:71:0c:9f")  # one board, before and after its flash was erased
    with SimDevice(tmp_path / "a", "--start-time", "2026-02-05T08:00", "--utc-offset", "3600", *board_id) as a:
        asyncio.run(fill(a.url))
        assert xzmem(tmp_path, "export", before, "--archive", device=a).exit_code == 0
        backed = xzmem(tmp_path, "backup", saved, device=a)
        assert backed.exit_code == 0, backed.output
    document = json.loads(saved.read_text(encoding="utf-8"))
    kinds = {r["type"] for r in document["records"]}
    assert {"name", "like", "family", "fact", "trait", "habit", "goal", "moment", "chat", "schedule", "affection",
            "keyed", "archive"} <= kinds
    assert document["config"]["utc_offset"] == 3600
    assert "token" not in document["config"] and TOKEN not in saved.read_text(encoding="utf-8")

    # The flash that keeps memory: shown as a dry run, then run against a board holding memory.
    dry = xzmem(tmp_path, "flash", "--port", port, "--firmware", fw, "--flash-size", "8MB", "--keep-memory", "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "erase-flash" not in dry.output and "read-flash 0x8000" in dry.output
    assert "nvs, vfs and memory are left as they are" in dry.output
    run, calls = board_with_memory("8MB")
    monkeypatch.setattr(board, "run_command", run)
    kept = xzmem(tmp_path, "flash", "--port", port, "--firmware", fw, "--flash-size", "8MB", "--keep-memory")
    assert kept.exit_code == 0, kept.output
    assert not any("erase-flash" in c for c in calls)
    layout = load_layout("8MB")
    nvs, memory = layout["nvs"], layout["memory"]
    for offset in written_offsets(calls[-1]):  # bootloader, table, app: none inside nvs or memory
        assert not (nvs.offset <= offset < nvs.end or memory.offset <= offset < memory.end), hex(offset)

    # The fresh device listens where the old one did, as a re-flashed board does with its restored config.
    with SimDevice(tmp_path / "b", "--start-time", "2026-02-05T09:00", "--utc-offset", "3600", *board_id,
                   port=a.port) as b:
        restored = xzmem(tmp_path, "restore", saved, device=b)
        assert restored.exit_code == 0, restored.output
        assert "REFUSED" not in restored.output
        assert "config matches the backup" in restored.output
        assert xzmem(tmp_path, "export", after, "--archive", device=b).exit_code == 0
        again = xzmem(tmp_path, "restore", saved, device=b)  # twice changes nothing
        assert again.exit_code == 0 and "ADDED" not in again.output, again.output
    first = json.loads(before.read_text(encoding="utf-8"))["records"]
    second = json.loads(after.read_text(encoding="utf-8"))["records"]
    assert second == first


def test_flash_refuses_to_erase_a_board_that_holds_memory_unless_told(tmp_path, port, monkeypatch):
    fw = merged_firmware(tmp_path / "fw.bin")
    run, calls = board_with_memory("8MB")
    monkeypatch.setattr(board, "run_command", run)
    refused = xzmem(tmp_path, "flash", "--port", port, "--firmware", fw, "--flash-size", "8MB")
    assert refused.exit_code == 1
    assert "holds xzmem memory" in refused.output and "--keep-memory" in refused.output
    assert "xzmem backup" in refused.output
    assert [c for c in calls if "erase-flash" in c or "write-flash" in c] == []  # nothing written
    calls.clear()
    wiped = xzmem(tmp_path, "flash", "--port", port, "--firmware", fw, "--flash-size", "8MB", "--wipe-memory")
    assert wiped.exit_code == 0, wiped.output
    assert [c[-1] for c in calls if "erase-flash" in c] == ["erase-flash"]
    # A layout that moves the memory partition cannot keep it in place: refused, nothing written.
    calls.clear()
    moved = xzmem(tmp_path, "flash", "--port", port, "--firmware", fw, "--flash-size", "4MB", "--keep-memory")
    assert moved.exit_code == 1 and "cannot be kept in place" in moved.output
    assert [c for c in calls if "write-flash" in c] == []
    # A blank chip (all 0xFF where the table would be) holds nothing: the plain flash erases and writes.
    calls.clear()
    monkeypatch.setattr(board, "run_command", lambda argv: calls.append(argv) or (
        "read-flash" in argv and open(argv[argv.index("read-flash") + 3], "wb").write(b"\xff" * 0x1000)))
    blank = xzmem(tmp_path, "flash", "--port", port, "--firmware", fw, "--flash-size", "8MB")
    assert blank.exit_code == 0, blank.output
    assert "holds no xzmem memory" in blank.output and any("erase-flash" in c for c in calls)
    both = xzmem(tmp_path, "flash", "--port", port, "--firmware", fw, "--keep-memory", "--wipe-memory")
    assert both.exit_code == 1 and "contradict" in both.output


def test_restore_refuses_a_plain_export(tmp_path):
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"format": "xzmem-export", "version": 1, "device_id": "x", "exported_at": "",
                                 "records": []}), encoding="utf-8")
    result = xzmem(tmp_path, "restore", plain, "--device", "ws://127.0.0.1:1/mcp")
    assert result.exit_code == 1 and "is an export, not a backup" in result.output
