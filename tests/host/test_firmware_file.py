"""Firmware files: a merged MicroPython image is split into bootloader and app; anything else is refused."""

import pytest
from esp_images import app_only_firmware, merged_firmware
from xzmem.board.firmware import FirmwareError, load_firmware


def test_merged_image_splits_into_bootloader_and_app(tmp_path):
    fw = load_firmware(merged_firmware(tmp_path / "fw.bin", app_payload=300_000))
    assert (fw.chip, fw.bootloader_offset) == ("esp32", 0x1000)
    assert fw.bootloader[0] == 0xE9 and fw.app[0] == 0xE9
    data = (tmp_path / "fw.bin").read_bytes()
    assert fw.app == data[0xF000:]  # the app starts at 0x10000 - 0x1000 in the file
    assert 300_000 < fw.app_size < 300_200


def test_esp32s3_image_has_its_bootloader_at_zero(tmp_path):
    fw = load_firmware(merged_firmware(tmp_path / "s3.bin", chip="esp32s3"))
    assert (fw.chip, fw.bootloader_offset) == ("esp32s3", 0x0)
    assert fw.app == (tmp_path / "s3.bin").read_bytes()[0x10000:]


def test_missing_file(tmp_path):
    with pytest.raises(FirmwareError, match="firmware file not found"):
        load_firmware(tmp_path / "nope.bin")


def test_not_an_image(tmp_path):
    (tmp_path / "x.bin").write_bytes(b"PK\x03\x04 a zip, not firmware")
    with pytest.raises(FirmwareError, match="not an ESP32 firmware image"):
        load_firmware(tmp_path / "x.bin")


def test_app_image_alone_asks_for_the_merged_file(tmp_path):
    with pytest.raises(FirmwareError, match="app image alone"):
        load_firmware(app_only_firmware(tmp_path / "app.bin"))


def test_app_too_large_for_factory(tmp_path):
    with pytest.raises(FirmwareError, match="factory partition holds 2031616 bytes"):
        load_firmware(merged_firmware(tmp_path / "big.bin", app_payload=0x1F0000))


def test_truncated_app(tmp_path):
    path = merged_firmware(tmp_path / "fw.bin")
    path.write_bytes(path.read_bytes()[:-5000])
    with pytest.raises(FirmwareError, match="damaged or cut short"):
        load_firmware(path)


def test_a_header_esptool_cannot_read_is_told_about_the_file_not_in_esptool_words(tmp_path):
    path = merged_firmware(tmp_path / "fw.bin")
    data = bytearray(path.read_bytes())
    data[2] = 195  # the flash mode byte
    path.write_bytes(bytes(data))
    with pytest.raises(FirmwareError) as caught:
        load_firmware(path)
    assert "fw.bin is not a usable ESP32 firmware image" in str(caught.value)
    assert "ImageSpiMode" not in str(caught.value) and "195" not in str(caught.value)


def test_app_elsewhere_than_factory_offset(tmp_path):
    table = "nvs, data, nvs, 0x9000, 0x6000\nfactory, app, factory, 0x20000, 0x1F0000\n"
    with pytest.raises(FirmwareError, match="puts its app at 0x20000"):
        load_firmware(merged_firmware(tmp_path / "fw.bin", table=table))

