"""Builds ESP32 firmware files shaped like the ones micropython.org publishes, for tests (no download)."""

import shutil
from pathlib import Path

from esp_idf_defs import PartitionTable
from esptool.bin_image import ESP32FirmwareImage, ESP32S3FirmwareImage, ImageSegment

ROOT = Path(__file__).resolve().parents[2]

# The table stock MicroPython builds into its ESP32 images.
STOCK_TABLE = """nvs, data, nvs, 0x9000, 0x6000
phy_init, data, phy, 0xf000, 0x1000
factory, app, factory, 0x10000, 0x1F0000
vfs, data, fat, 0x200000, 0x200000
"""


IMAGE_CLASSES = {"esp32": ESP32FirmwareImage, "esp32s3": ESP32S3FirmwareImage}
BOOTLOADER_AT = {"esp32": 0x1000, "esp32s3": 0x0}


def esp_image(payload: bytes, load_address: int, chip: str = "esp32") -> bytes:
    """A valid app/bootloader image (header, one segment, checksum, SHA-256) made by esptool."""
    img = IMAGE_CLASSES[chip]()
    img.entrypoint = 0x40080000
    segment = ImageSegment(load_address, payload)
    segment.name = ".data"
    img.segments = [segment]
    img.append_digest = True
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "image.bin"
        img.save(str(path))
        return path.read_bytes()


def merged_firmware(path: Path, app_payload: int = 200_000, table: str = STOCK_TABLE, chip: str = "esp32",
                    psram: bool = True) -> Path:
    """bootloader, table at 0x8000, app at 0x10000, as one file flashed where the chip's ROM finds the bootloader.

    The app names its board as MicroPython builds do: with SPIRAM when `psram`."""
    start = BOOTLOADER_AT[chip]
    bootloader = esp_image(b"\x5b" * 20_000, 0x40080400 if chip == "esp32" else 0x403C8000, chip)
    name = b"Generic ESP32 module with SPIRAM with ESP32\x00" if psram else b"Generic ESP32 module with ESP32\x00"
    app_data = name + bytes(range(256)) * ((app_payload - len(name)) // 256) + b"\x01" * ((app_payload - len(name)) % 256)
    app = esp_image(app_data, 0x3F400020 if chip == "esp32" else 0x3C000020, chip)
    data = bytearray(b"\xff" * (0x10000 - start))
    data[: len(bootloader)] = bootloader
    table_bin = PartitionTable.from_csv(table).to_binary()
    data[0x8000 - start : 0x8000 - start + len(table_bin)] = table_bin
    data += app
    path.write_bytes(bytes(data))
    return path


def app_only_firmware(path: Path) -> Path:
    path.write_bytes(esp_image(b"\x22" * 5000, 0x3F400020))
    return path


def project(tmp: Path) -> Path:
    """A copy of the device code to build from: the real lib/, and the real boot.py when it exists."""
    root = tmp / "project"
    shutil.copytree(ROOT / "lib", root / "lib", ignore=shutil.ignore_patterns("__pycache__"))
    boot = ROOT / "boot.py"
    if boot.exists():
        shutil.copy(boot, root / "boot.py")
    else:
        (root / "boot.py").write_text("# stand-in boot.py for tests\nimport vfs\n")
    (root / "main.py").write_text("print('xzmem device ready ws://0.0.0.0:8765/mcp')\n")
    return root
