"""The device's /config.json from a TOML [device] table and command-line values."""

import pytest
from typer.testing import CliRunner
from xzmem.board.devconfig import (
    KEYS,
    DeviceConfigError,
    config_json,
    device_config,
    masked,
    read_device_table,
)
from xzmem.cli.app import app


def test_toml_table_then_options_override(tmp_path):
    toml = tmp_path / "xzmem.toml"
    toml.write_text('[board]\nwifi_ssid = "家里的WiFi"\nutc_offset = 28800\n[device]\ntoken = "from-file"\n'
                    '[llm]\nmodel = "deepseek-chat"\n', encoding="utf-8")
    cfg = device_config(read_device_table(toml), token="from-cli", wifi_password=None)
    assert cfg["wifi_ssid"] == "家里的WiFi" and cfg["token"] == "from-cli" and cfg["utc_offset"] == 28800
    assert list(cfg) == list(KEYS)
    assert '"家里的WiFi"' in config_json(cfg).decode()


def test_missing_token_is_generated_and_hidden_when_shown():
    a, b = device_config(), device_config()
    assert len(a["token"]) >= 20 and a["token"] != b["token"]
    assert masked(a)["token"] == "***" and masked(a)["listen_port"] == 8765


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"listen_port": 70000}, "listen_port must be 1-65535"),
        ({"utc_offset": 15 * 3600}, "utc_offset must be seconds within"),
        ({"wifi_ssid": "x" * 33}, "wifi_ssid must be at most 32 bytes"),
        ({"endpoint_url": "http://example.invalid/mcp"}, "endpoint_url must start with ws://"),
    ],
)
def test_bad_values_name_the_field(values, message):
    with pytest.raises(DeviceConfigError, match=message):
        device_config(**values)


def test_unknown_key_in_device_table(tmp_path):
    toml = tmp_path / "c.toml"
    toml.write_text('[board]\nwifi_sid = "typo"\n')
    with pytest.raises(DeviceConfigError, match="unknown \\[board\\] keys wifi_sid"):
        read_device_table(toml)


def test_unreadable_toml(tmp_path):
    toml = tmp_path / "c.toml"
    toml.write_text("[device\n")
    with pytest.raises(DeviceConfigError, match="c.toml"):
        read_device_table(toml)
    with pytest.raises(DeviceConfigError, match="cannot read config"):
        read_device_table(tmp_path / "none.toml")


def test_cli_shows_a_bracketed_error_whole(tmp_path):
    toml = tmp_path / "c.toml"
    toml.write_text('[board]\nwifi_sid = "typo"\n')
    result = CliRunner().invoke(app, ["image", "--firmware", str(tmp_path / "fw.bin"), "--config", str(toml)])
    assert result.exit_code == 1
    assert "unknown [board] keys wifi_sid" in result.output
