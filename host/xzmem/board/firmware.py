"""A MicroPython firmware file: the merged image from micropython.org or a port build, split into bootloader and app."""

import struct
from dataclasses import dataclass
from pathlib import Path

from esp_idf_defs import ImageHeader, ImageMetadata

from xzmem.board.partitions import FACTORY_OFFSET, FACTORY_SIZE, TABLE_OFFSET, LayoutError, parse_table

# Where the ROM loads the second-stage bootloader: 0x1000 on the first chips, 0 on the later ones.
BOOTLOADER_OFFSETS = {"esp32": 0x1000, "esp32s2": 0x1000}
_IMAGE_MAGIC = 0xE9
_TABLE_MAGIC = b"\xaa\x50"


class FirmwareError(ValueError):
    """A firmware file xzmem will not write to a board; the message says why."""


@dataclass(frozen=True)
class Firmware:
    path: Path
    chip: str  # esptool's chip name: esp32, esp32s3, ...
    bootloader_offset: int
    bootloader: bytes  # from bootloader_offset up to the partition table
    app: bytes  # the app image alone, without trailing padding

    @property
    def app_size(self) -> int:
        return len(self.app)

    @property
    def psram(self) -> bool:
        """Built with PSRAM support: MicroPython names such builds SPIRAM (the board name it reports,
        ESP-IDF's psram driver linked in)."""
        return b"SPIRAM" in self.app or b"spiram" in self.app


def load_firmware(path: Path | str) -> Firmware:
    """Read and check a merged firmware image (bootloader, table, app) as MicroPython publishes it."""
    path = Path(path)
    if not path.is_file():
        raise FirmwareError(f"firmware file not found: {path}")
    data = path.read_bytes()
    if not data or data[0] != _IMAGE_MAGIC:
        raise FirmwareError(f"{path.name} is not an ESP32 firmware image (no 0xE9 image header at its start)")
    try:
        header = ImageHeader.from_bytes(data)
    except ValueError:
        # esptool's own words ("195 is not a valid ImageSpiMode") would mean nothing to a user
        raise FirmwareError(
            f"{path.name} is not a usable ESP32 firmware image: its header names no known flash mode, "
            "size or chip; download the merged .bin for your board again"
        ) from None
    chip = header.chip_id.chip_name
    boot_at = BOOTLOADER_OFFSETS.get(chip, 0)
    table_at = TABLE_OFFSET - boot_at
    if data[table_at : table_at + 2] != _TABLE_MAGIC:
        raise FirmwareError(
            f"{path.name} has no partition table at {TABLE_OFFSET:#x}: it looks like an app image alone; "
            f"pass the merged firmware (bootloader, table and app, written at {boot_at:#x})"
        )
    try:
        table = parse_table(data[table_at : table_at + 0x1000])
    except LayoutError as e:
        raise FirmwareError(f"{path.name}: its own {e}") from None
    apps = [p for p in table if p.type == 0]
    if not apps or apps[0].offset != FACTORY_OFFSET:
        where = f"{apps[0].offset:#x}" if apps else "nowhere"
        raise FirmwareError(f"{path.name} puts its app at {where}; xzmem layouts boot the app at {FACTORY_OFFSET:#x}")
    app_at = FACTORY_OFFSET - boot_at
    app_len = _image_length(data[app_at:], path.name)
    if app_len > FACTORY_SIZE:
        raise FirmwareError(
            f"{path.name}: the app is {app_len} bytes ({app_len / 2**20:.2f} MB) but the factory partition "
            f"holds {FACTORY_SIZE} bytes ({FACTORY_SIZE / 2**20:.2f} MB)"
        )
    boot_len = _image_length(data, path.name)
    return Firmware(path, chip, boot_at, data[:boot_len], data[app_at : app_at + app_len])


def _image_length(data: bytes, name: str) -> int:
    """Bytes an ESP image takes: header, segments, checksum padded to 16, and the SHA-256 when appended."""
    try:
        meta = ImageMetadata.from_bytes(data)
    except (ValueError, IndexError, struct.error):
        raise FirmwareError(f"{name} is damaged or cut short: an image inside it ends before its segments do") from None
    last = max(meta.segments, key=lambda s: s.offset)
    length = (last.offset + last.length + 1 + 15) & ~15
    return length + (32 if meta.header.hash_appended else 0)
