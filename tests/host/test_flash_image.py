"""xzmem image: one flash file from 0x0 that parses back into table, bootloader, app, code and archive."""

import json

import pytest
from esp_idf_defs import ImageHeader, ImageMetadata
from esp_idf_defs.image_metadata import ImageFlashSize
from esp_images import merged_firmware, project
from typer.testing import CliRunner
from xzmem.board import fsimage
from xzmem.board.partitions import load_layout, parse_table
from xzmem.board.plans import without_comments
from xzmem.cli.app import app


def build(tmp_path, *extra, size="8MB"):
    fw = merged_firmware(tmp_path / "fw.bin")
    out = tmp_path / "out" / "flash.bin"
    result = CliRunner().invoke(app, [str(a) for a in (
        "image", "--firmware", fw, "--flash-size", size, "--out", out, "--root", project(tmp_path),
        "--wifi-ssid", "Wokwi-GUEST", "--token", "wokwi-ci", "--utc-offset", "28800", *extra)])
    return result, out, fw


def partition(data, part):
    return data[part.offset : part.end]


def test_image_parses_back(tmp_path):
    result, out, fw = build(tmp_path)
    assert result.exit_code == 0, result.output
    data = out.read_bytes()
    layout = load_layout("8MB")
    assert len(data) == 8 << 20
    assert parse_table(data[0x8000:0x9000]) == list(layout.partitions)
    boot = ImageHeader.from_bytes(data[0x1000:])
    assert boot.spi_size == ImageFlashSize.MB8  # esptool set the bootloader's flash size to the board's
    ImageMetadata.from_bytes(data[0x1000:0x8000])  # checksum and SHA-256 still hold after that edit
    app_image = fw.read_bytes()[0xF000:]
    assert data[0x10000 : 0x10000 + len(app_image)] == app_image

    code = fsimage.read_files(fsimage.open_image(partition(data, layout["vfs"])))
    root = tmp_path / "project"
    assert code["/boot.py"] == without_comments((root / "boot.py").read_bytes())
    assert code["/lib/memory/clock.py"] == without_comments((root / "lib" / "memory" / "clock.py").read_bytes())
    assert "/main.py" in code
    cfg = json.loads(code["/config.json"])
    assert (cfg["wifi_ssid"], cfg["token"], cfg["utc_offset"], cfg["listen_port"]) == ("Wokwi-GUEST", "wokwi-ci", 28800, 8765)

    archive = fsimage.open_image(partition(data, layout["memory"]))
    assert fsimage.read_files(archive) == {}
    assert archive.block_count == (3 << 20) // 4096


def test_image_imports_a_memory_folder_and_a_backup_image(tmp_path):
    src = tmp_path / "mem"
    (src / "archive").mkdir(parents=True)
    (src / "archive" / "facts-0001.jsonl").write_text('{"id": "f1", "text": "王浩宇"}\n', encoding="utf-8")
    result, out, _ = build(tmp_path, "--memory", src, size="4MB")
    assert result.exit_code == 0, result.output
    mem = load_layout("4MB")["memory"]
    first = partition(out.read_bytes(), mem)
    files = fsimage.read_files(fsimage.open_image(first))
    assert files == {"/archive/facts-0001.jsonl": '{"id": "f1", "text": "王浩宇"}\n'.encode()}

    # A memory.bin from `xzmem backup` (here of a different size) imports the same way.
    backup = tmp_path / "memory.bin"
    backup.write_bytes(fsimage.build_image(64 * 4096, files))
    again = tmp_path / "again"
    again.mkdir()
    result, out, _ = build(again, "--memory", backup, size="16MB")
    assert result.exit_code == 0, result.output
    mem16 = load_layout("16MB")["memory"]
    assert fsimage.read_files(fsimage.open_image(partition(out.read_bytes(), mem16))) == files


def test_mpy_image_holds_compiled_lib(tmp_path):
    result, out, _ = build(tmp_path, "--mpy")
    assert result.exit_code == 0, result.output
    code = fsimage.read_files(fsimage.open_image(partition(out.read_bytes(), load_layout("8MB")["vfs"])))
    assert code["/lib/memory/clock.mpy"][:2] == b"M\x06"
    assert "/lib/memory/clock.py" not in code and "/boot.py" in code


def test_memory_import_that_does_not_fit(tmp_path):
    src = tmp_path / "mem"
    src.mkdir()
    (src / "huge.bin").write_bytes(b"\x00" * (2 << 20))
    result, out, _ = build(tmp_path, "--memory", src, size="4MB")
    assert result.exit_code == 1
    assert "huge.bin does not fit" in result.output
    assert not out.exists()


@pytest.mark.parametrize("source", ["missing-dir", "garbage.bin"])
def test_memory_import_that_is_not_usable(tmp_path, source):
    (tmp_path / "garbage.bin").write_bytes(b"\x00" * 8192)
    result, out, _ = build(tmp_path, "--memory", tmp_path / source)
    assert result.exit_code == 1
    assert ("memory source not found" if source == "missing-dir" else "not a LittleFS image") in result.output
    assert not out.exists()


def test_image_refuses_bad_firmware_before_building(tmp_path):
    result = CliRunner().invoke(app, ["image", "--firmware", str(tmp_path / "none.bin"), "--out",
                                      str(tmp_path / "f.bin"), "--root", str(project(tmp_path))])
    assert result.exit_code == 1 and "firmware file not found" in result.output
    assert "[1/" not in result.output


def test_esp32s3_image_keeps_its_bootloader_at_zero(tmp_path):
    fw = merged_firmware(tmp_path / "s3.bin", chip="esp32s3")
    out = tmp_path / "s3-flash.bin"
    result = CliRunner().invoke(app, ["image", "--firmware", str(fw), "--flash-size", "16MB", "--out", str(out),
                                      "--root", str(project(tmp_path)), "--token", "t-long-enough"])
    assert result.exit_code == 0, result.output
    data = out.read_bytes()
    assert ImageHeader.from_bytes(data).spi_size == ImageFlashSize.MB16
    assert parse_table(data[0x8000:0x9000]) == list(load_layout("16MB").partitions)


def test_image_refuses_a_firmware_without_psram_as_deploy_refuses_its_board(tmp_path):
    # xzmem deploy refuses a board without PSRAM; an image for such a firmware would not run for long
    # either, so image agrees unless told it is for a simulator.
    fw = merged_firmware(tmp_path / "generic.bin", psram=False)
    args = ["image", "--firmware", str(fw), "--out", str(tmp_path / "flash.bin"), "--token", "tok-long-enough",
            "--root", str(project(tmp_path))]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1
    assert "without PSRAM support" in result.output and "Supported boards" in result.output
    assert not (tmp_path / "flash.bin").exists()
    result = CliRunner().invoke(app, [*args, "--allow-no-psram"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "flash.bin").exists()
