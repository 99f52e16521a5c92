"""Partition layouts: the CSVs keep the rules stock MicroPython and xzmem need, and the binary is what the bootloader reads."""

import hashlib
import struct

import pytest
from esp_images import ROOT
from typer.testing import CliRunner
from xzmem.board.partitions import FLASH_SIZES, LayoutError, load_layout, parse_table
from xzmem.cli.app import app

SIZES = list(FLASH_SIZES)


@pytest.mark.parametrize("size", SIZES)
def test_layout_keeps_stock_factory_and_48k_nvs(size):
    layout = load_layout(size)
    factory, nvs = layout["factory"], layout["nvs"]
    assert (factory.offset, factory.size) == (0x10000, 0x1F0000)
    assert (nvs.offset % 0x1000, nvs.size, nvs.subtype) == (0, 48 * 1024, 0x02)
    assert {"vfs", "memory"} <= {p.name for p in layout.partitions}


@pytest.mark.parametrize("size", SIZES)
def test_partitions_are_aligned_do_not_overlap_and_fill_the_board(size):
    parts = sorted(load_layout(size).partitions, key=lambda p: p.offset)
    assert parts[0].offset >= 0x9000  # after the table sector at 0x8000
    for p in parts:
        assert p.offset % (0x10000 if p.type == 0 else 0x1000) == 0, p
        assert p.size % 0x1000 == 0, p
    for a, b in zip(parts, parts[1:], strict=False):
        assert a.end <= b.offset, (a, b)
    assert parts[-1].end == FLASH_SIZES[size]


def test_memory_partition_sizes_per_board():
    assert load_layout("8MB")["memory"].size == 3 << 20
    assert load_layout("16MB")["memory"].size == 8 << 20
    small = load_layout("4MB")
    # On 4 MB the archive takes what is left after the code's vfs.
    assert small["memory"].end == 4 << 20 and small["memory"].offset == small["vfs"].end
    assert small["memory"].size >= 1 << 20


@pytest.mark.parametrize("size", SIZES)
def test_binary_table_entries_md5_and_end_marker(size):
    layout = load_layout(size)
    data = layout.binary()
    assert len(data) == 0xC00
    n = len(layout.partitions)
    for i, p in enumerate(layout.partitions):
        magic, ptype, subtype, offset, psize, name, flags = struct.unpack("<2sBBLL16sL", data[i * 32 : i * 32 + 32])
        assert magic == b"\xaa\x50"
        assert (ptype, subtype, offset, psize) == (p.type, p.subtype, p.offset, p.size)
        assert name.rstrip(b"\0").decode() == p.name
    md5 = data[n * 32 : n * 32 + 32]
    assert md5[:16] == b"\xeb\xeb" + b"\xff" * 14
    assert md5[16:] == hashlib.md5(data[: n * 32]).digest()
    assert data[(n + 1) * 32 :] == b"\xff" * (0xC00 - (n + 1) * 32)
    assert parse_table(data) == list(layout.partitions)


def test_damaged_table_fails_its_md5():
    data = bytearray(load_layout("8MB").binary())
    data[40] ^= 0x01  # inside the factory entry's offset field
    with pytest.raises(LayoutError, match="MD5"):
        parse_table(bytes(data))


def test_cli_writes_the_table_binary(tmp_path):
    out = tmp_path / "pt.bin"
    result = CliRunner().invoke(app, ["partitions", "--flash-size", "16MB", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == load_layout("16MB").binary()
    assert "memory" in result.output and "0x800000" in result.output


def test_layout_larger_than_the_board_is_refused(tmp_path):
    out = tmp_path / "pt.bin"
    result = CliRunner().invoke(
        app, ["partitions", "--flash-size", "4MB", "--csv", str(ROOT / "partitions" / "esp32-8MB.csv"), "--out", str(out)]
    )
    assert result.exit_code == 1
    assert "past the end of a 4MB board" in result.output
    assert not out.exists()


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("nvs, data, nvs, 0x200000, 0x6000\n", "'nvs' must be an nvs partition of 0xc000"),
        ("nvs, data, nvs, 0x1F0000, 0xC000\n", "overlap"),
        ("nvs, data, nvs, 0x200800, 0xC000\n", "not aligned"),
    ],
)
def test_broken_layouts_name_the_problem(tmp_path, rows, message):
    csv = tmp_path / "bad.csv"
    csv.write_text(
        "factory, app, factory, 0x10000, 0x1F0000\n" + rows
        + "vfs, data, fat, 0x210000, 0x70000\nmemory, data, 0x83, 0x280000, 0x180000\n"
    )
    with pytest.raises(LayoutError, match=message):
        load_layout("4MB", csv)


def test_moved_factory_is_refused(tmp_path):
    csv = tmp_path / "moved.csv"
    csv.write_text(
        "nvs, data, nvs, 0x9000, 0xC000\nfactory, app, factory, 0x20000, 0x1F0000\n"
        "vfs, data, fat, 0x210000, 0x70000\nmemory, data, 0x83, 0x280000, 0x180000\n"
    )
    with pytest.raises(LayoutError, match="stock MicroPython"):
        load_layout("4MB", csv)


def test_unknown_flash_size():
    with pytest.raises(LayoutError, match="4MB, 8MB, 16MB"):
        load_layout("2MB")


def test_flags_of_a_custom_layout_survive_the_binary(tmp_path):
    csv = tmp_path / "ro.csv"
    text = (ROOT / "partitions" / "esp32-4MB.csv").read_text()
    csv.write_text(text.replace("phy_init,", "factory_cfg, data, nvs, 0x9000, 0x3000, readonly\nphy_init,"))
    layout = load_layout("4MB", csv)
    back = {p.name: p for p in parse_table(layout.binary())}
    assert back["factory_cfg"].flags == ("readonly",)
    assert back["memory"].flags == ()
