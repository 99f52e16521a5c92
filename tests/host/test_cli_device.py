"""The device commands of `xzmem` against a fake device: output, exit codes, one-line errors."""

import json
import tomllib

import pytest
from fake_device import DeviceState, FakeDevice
from typer.testing import CliRunner
from xzmem.cli.app import app
from xzmem.cli.common import resolve_settings
from xzmem.cli.device import dump_toml
from xzmem.device.outbox import Outbox

runner = CliRunner()


@pytest.fixture
def env(tmp_path):
    return {
        "XZMEM_CONFIG": str(tmp_path / "config.toml"),
        "XZMEM_DATA_DIR": str(tmp_path / "data"),
        "XZMEM_DEVICE": None,
        "XZMEM_TOKEN": None,
        "COLUMNS": "120",
    }


def fill(state):
    state.write({"type": "name", "content": "小明"})
    for text in ("likes oolong tea", "has a cat named 豆豆", "plays the piano"):
        state.write({"type": "fact", "content": text})
    state.write({"type": "family", "content": "妈妈 李华", "relation": "妈妈", "name": "李华", "closeness": 5})
    state.write({"type": "schedule", "content": "piano lesson", "datetime": "2026-12-02 17:00", "repeat": "weekly"})
    state.write({"type": "schedule", "content": "dentist", "datetime": "2026-11-25 10:00", "repeat": "none"})


def xzmem(env, *args, device=None, token="secret"):
    argv = list(args)
    if device is not None:
        argv += ["--device", device.url if hasattr(device, "url") else device]
        if token is not None:
            argv += ["--token", token]
    return runner.invoke(app, argv, env=env)


def one_line_error(result, starts):
    """Exit 1 and one `xzmem: ...` line on stderr (no progress bar: stderr is not a terminal here)."""
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("xzmem: " + starts), lines[0]
    return lines[0]


def test_inspect_renders_tables_and_json(env, device):
    fill(device.state)
    shown = xzmem(env, "inspect", device=device)
    assert shown.exit_code == 0, shown.output
    for text in ("小明", "has a cat named 豆豆", "李华", "piano lesson", "total_coins_spent"):
        assert text in shown.stdout
    raw = xzmem(env, "inspect", "--json", device=device)
    assert json.loads(raw.stdout)["facts"] == ["likes oolong tea", "has a cat named 豆豆", "plays the piano"]
    facts = xzmem(env, "inspect", "fact", "--json", device=device)
    assert json.loads(facts.stdout)["type"] == "fact"


def test_recall_passes_filters(env, device):
    fill(device.state)
    found = xzmem(env, "recall", "--type", "fact", "--keyword", "TEA", "--json", device=device)
    assert found.exit_code == 0, found.output
    assert json.loads(found.stdout)["items"] == [{"content": "likes oolong tea"}]
    table = xzmem(env, "recall", "--type", "fact", "-n", "2", device=device)
    assert "fact (2 found)" in table.stdout and "likes oolong tea" not in table.stdout


def test_schedules_in_time_order(env, device):
    fill(device.state)
    shown = xzmem(env, "schedules", device=device)
    assert shown.exit_code == 0
    assert shown.stdout.index("dentist") < shown.stdout.index("piano lesson")


def test_stats_shows_nested_figures(env, device):
    shown = xzmem(env, "stats", device=device)
    assert shown.exit_code == 0
    assert "1386" in shown.stdout and "dropped_segments" in shown.stdout
    assert json.loads(xzmem(env, "stats", "--json", device=device).stdout)["device_id"] == "fake-esp32-01"


def test_forget_deletes_one_memory(env, device):
    fill(device.state)
    gone = xzmem(env, "forget", "fact", "plays the piano", device=device)
    assert gone.exit_code == 0
    assert "forgotten (DELETED)" in gone.stdout
    assert [i["content"] for i in device.state.items["fact"]] == ["likes oolong tea", "has a cat named 豆豆"]
    assert "nothing matched (NOOP)" in xzmem(env, "forget", "fact", "plays the piano", device=device).stdout


@pytest.mark.parametrize(
    "args, starts",
    [
        (["inspect", "planet"], "unknown memory type 'planet'; use one of: name, age"),
        (["forget", "planet", "mars"], "unknown memory type 'planet'"),
        (["recall", "--type", "habit"], "unknown recall type 'habit'; use one of: fact, moment, event"),
        (["recall", "--type", "fact", "--start", "2026-13-01"], "--start must be a date YYYY-MM-DD"),
        (["forget", "fact"], "say what to forget"),
    ],
)
def test_bad_arguments_fail_before_touching_the_device(env, device, args, starts):
    fill(device.state)
    before = device.state.records()
    one_line_error(xzmem(env, *args, device=device), starts)
    assert device.state.handshakes == 0
    assert device.state.records() == before


def test_unreachable_device_is_one_line(env, device):
    url = device.url
    device.stop()
    line = one_line_error(xzmem(env, "inspect", device=url), "device unreachable at " + url)
    assert line.endswith("connection refused")


def test_wrong_token_is_one_line_and_not_echoed(env, device):
    result = xzmem(env, "forget", "fact", "x", device=device, token="letmein")
    one_line_error(result, f"device at {device.url} refused the token (HTTP 401)")
    assert "letmein" not in result.output


def test_missing_device_or_token_is_one_line(env, device):
    one_line_error(xzmem(env, "stats"), "no device: pass --device")
    one_line_error(xzmem(env, "stats", device=device, token=None), f"no token for {device.url}")


def test_export_import_round_trip(env, device, tmp_path):
    fill(device.state)
    out = tmp_path / "memory.json"
    exported = xzmem(env, "export", str(out), device=device)
    assert exported.exit_code == 0, exported.output
    assert "exported 7 records from fake-esp32-01" in exported.stdout
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["format"] == "xzmem-export" and len(document["records"]) == 7

    fresh = FakeDevice(DeviceState(device_id="new-board")).start()
    try:
        imported = xzmem(env, "import", str(out), device=fresh)
        assert imported.exit_code == 0, imported.output
        assert imported.stderr == ""  # the progress bar is for a terminal; a log gets none
        assert "imported 7 records from" in imported.stdout and "6 ADDED, 1 UPDATED" in imported.stdout
        assert sorted(map(json.dumps, fresh.state.records())) == sorted(map(json.dumps, device.state.records()))

        again = xzmem(env, "import", str(out), device=fresh)
        assert "1 of 1 chunks already imported" in again.stdout
        assert len(fresh.state.applied) == 1
    finally:
        fresh.stop()


def test_export_keeps_an_existing_file_unless_forced(env, device, tmp_path):
    out = tmp_path / "memory.json"
    out.write_text("precious")
    one_line_error(xzmem(env, "export", str(out), device=device), f"{out} exists; pass --force")
    assert out.read_text() == "precious"
    assert xzmem(env, "export", str(out), "--force", device=device).exit_code == 0
    assert json.loads(out.read_text())["records"] == []


@pytest.mark.parametrize(
    "content, starts",
    [
        ("{not json", "{file} is not an xzmem export: not JSON"),
        ('{"records": []}', '{file} is not an xzmem export: no "format"'),
        ('{"format": "xzmem-export", "version": 9, "records": []}', "{file}: export version 9 is not supported"),
        ('{"format": "xzmem-export", "version": 1, "records": {}}', '{file} is not an xzmem export: "records" must'),
        ('{"format": "xzmem-export", "version": 1, "records": [{"type": "fact"}, 3]}', "{file}: records[1] must be"),
        (None, "{file}: no such file"),
    ],
)
def test_malformed_export_file_sends_nothing(env, device, tmp_path, content, starts):
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content)
    one_line_error(xzmem(env, "import", str(bad), device=device), starts.format(file=bad))
    assert device.state.handshakes == 0
    assert device.state.records() == []


def test_outbox_lists_sends_and_drops(env, device, tmp_path):
    path = tmp_path / "data" / "outbox.sqlite3"
    with Outbox(path) as box:
        ids = [box.enqueue("fake-esp32-01", [{"op": "coins", "amount": n}]) for n in (1, 2, 3, 4)]
        other = box.enqueue("kitchen-esp32", [{"op": "mood", "mood": "happy"}])

    listed = xzmem(env, "outbox")
    assert listed.exit_code == 0
    for batch_id in ids + [other]:
        assert batch_id in listed.stdout
    assert [b["batch_id"] for b in json.loads(xzmem(env, "outbox", "--json", "--device-id", "kitchen-esp32").stdout)] == [other]

    # The connection drops after the device applied the second batch: the client reconnects and
    # sends it again (the device answers "replayed"); then the device refuses the fourth.
    device.state.faults.update({2: "drop_after_apply", 5: "tool_error"})
    failed = xzmem(env, "outbox", "--send", device=device)
    one_line_error(failed, "1 batches still pending: device refused memory_sync: nvs full")
    assert "sent 3 batches to fake-esp32-01 (1 the device already had)" in failed.stdout
    assert [b["batch_id"] for b in json.loads(xzmem(env, "outbox", "--json").stdout)] == [ids[3], other]

    sent = xzmem(env, "outbox", "--send", device=device)
    assert sent.exit_code == 0, sent.output
    assert "sent 1 batches to fake-esp32-01 (0 the device already had)" in sent.stdout
    assert device.state.applied == ids and device.state.coins == 10

    one_line_error(xzmem(env, "outbox", "--drop", "b-nope"), "no pending batch 'b-nope'")
    assert xzmem(env, "outbox", "--drop", other).exit_code == 0
    assert "no pending batches" in xzmem(env, "outbox").stdout


def test_config_writes_and_settings_resolve_in_order(env, device, tmp_path):
    config_path = tmp_path / "config.toml"
    config_path.write_text('[llm]\nmodel = "deepseek-chat"\ntimeout = 30\n')
    saved = xzmem(env, "config", "--device", device.url, "--token", "secret")
    assert saved.exit_code == 0, saved.output
    written = tomllib.loads(config_path.read_text())
    assert written == {"llm": {"model": "deepseek-chat", "timeout": 30}, "device": {"url": device.url, "token": "secret"}}
    assert config_path.stat().st_mode & 0o077 == 0
    assert "secret" not in saved.stdout

    checked = xzmem(env, "config", "--check")
    assert checked.exit_code == 0, checked.output
    assert f"device fake-esp32-01 answered at {device.url}" in checked.stdout

    file_only = {k: v for k, v in env.items() if v is not None}
    assert resolve_settings(env=file_only).target == device.url
    from_env = resolve_settings(env=dict(file_only, XZMEM_DEVICE="ws://env:1/mcp"))
    assert (from_env.target, from_env.token) == ("ws://env:1/mcp", "secret")
    assert from_env.sources == {"device": "XZMEM_DEVICE", "token": str(config_path)}
    assert resolve_settings("/dev/ttyUSB0", env=dict(file_only, XZMEM_DEVICE="ws://env:1/mcp")).target == "/dev/ttyUSB0"


def test_config_check_and_bad_config_file_are_one_line(env, device, tmp_path):
    (tmp_path / "config.toml").write_text(f'[device]\nurl = "{device.url}"\ntoken = "wrong"\n')
    one_line_error(xzmem(env, "config", "--check"), "device at")
    (tmp_path / "config.toml").write_text("[device\nurl =")
    one_line_error(xzmem(env, "inspect"), f"config file {tmp_path / 'config.toml'} is not valid TOML")


def test_dump_toml_round_trips():
    config = {"top": 1, "device": {"url": "ws://h:1/mcp?token=a\"b", "retries": 3, "on": True},
              "llm": {"models": ["a", "b"], "deep": {"temperature": 0.2}}}
    assert tomllib.loads(dump_toml(config)) == config
