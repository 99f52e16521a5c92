"""What a newcomer gets when something is wrong: one `xzmem: ...` line on stderr naming the problem,
a non-zero exit, never a traceback. Every command of docs/cli.md with no device, an unreachable one,
a wrong token, an http:// address and a bad flag value; then the other failures a new user met."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from simdevice import READY, TOKEN, SimDevice, free_port
from xzmem.sim.runner import MEMORY_IMAGE

# Each command of docs/cli.md as a user types it, and the same command with one bad flag value.
COMMANDS = {
    "inspect": (["inspect"], ["inspect", "planet"], "unknown memory type 'planet'"),
    "recall": (["recall", "--type", "fact"], ["recall", "--type", "fact", "--start", "2026-13-01"], "--start must be a date"),
    "schedules": (["schedules"], ["schedules", "--limit", "3"], "No such option: --limit"),
    "stats": (["stats"], ["stats", "--json=maybe"], "--json"),
    "forget": (["forget", "fact", "x"], ["forget", "family"], "say what to forget"),
    "export": (["export", "{tmp}/out.json"], ["export", "/nonexistent/dir/x.json"], "folder /nonexistent/dir does not exist"),
    "import": (["import", "{tmp}/in.json"], ["import", "{tmp}/garbage.json"], "is not an xzmem export"),
    "backup": (["backup", "{tmp}/bk.json"], ["backup", "/nonexistent/dir/x.json"], "folder /nonexistent/dir does not exist"),
    "restore": (["restore", "{tmp}/bk-in.json"], ["restore", "{tmp}/garbage.json"], "is not an xzmem export"),
    "outbox": (["outbox", "--send"], ["outbox", "--send", "--device-id"], "--device-id"),
    "chat": (["chat"], ["chat", "--idle-minutes", "0"], "--idle-minutes"),
    "config": (["config", "--check"], ["config", "--check", "--device"], "--device"),
}


def xzmem(tmp_path: Path, *args: str, env: dict | None = None, stdin: str = "", timeout: float = 60) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("XZMEM_")}
    clean.update(XZMEM_CONFIG=str(tmp_path / "config.toml"), XZMEM_DATA_DIR=str(tmp_path / "host"), COLUMNS="200")
    clean.update(env or {})
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    return subprocess.run([sys.executable, "-m", "xzmem", *args], input=stdin, capture_output=True, text=True,
                          env=clean, timeout=timeout)


def assert_one_line(done: subprocess.CompletedProcess, names: str) -> None:
    assert done.returncode != 0, done.stdout
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip() and not line.startswith("  refused ")]
    assert len(lines) == 1 and lines[0].startswith("xzmem: "), done.stderr
    assert names in lines[0], lines[0]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "in.json").write_text(json.dumps({"format": "xzmem-export", "version": 1, "records": [
        {"type": "like", "content": "猫"}]}), encoding="utf-8")
    (tmp_path / "bk-in.json").write_text(json.dumps({"format": "xzmem-export", "version": 1, "config": {}, "records": [
        {"type": "like", "content": "猫"}]}), encoding="utf-8")
    (tmp_path / "garbage.json").write_text("not json", encoding="utf-8")
    return tmp_path


@pytest.fixture(scope="module")
def device(tmp_path_factory):
    with SimDevice(tmp_path_factory.mktemp("dev")) as sim:
        yield sim


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_with_no_device(files, name):
    assert_one_line(xzmem(files, *COMMANDS[name][0]), "no device")


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_with_an_unreachable_device(files, name):
    url = f"ws://127.0.0.1:{free_port()}/mcp"
    assert_one_line(xzmem(files, *COMMANDS[name][0], env={"XZMEM_DEVICE": url, "XZMEM_TOKEN": TOKEN}),
                    "device unreachable")


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_with_a_wrong_token(files, device, name):
    url = device.url.split("?")[0]
    assert_one_line(xzmem(files, *COMMANDS[name][0], env={"XZMEM_DEVICE": url, "XZMEM_TOKEN": "wrong-token-99"}),
                    "refused the token")


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_with_an_http_address(files, name):
    assert_one_line(xzmem(files, *COMMANDS[name][0], env={"XZMEM_DEVICE": "http://192.168.1.42:8765/mcp"}),
                    "--device must be ws://")


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_with_a_bad_flag_value(files, name):
    url = f"ws://127.0.0.1:{free_port()}/mcp"  # never reached: the flag is checked first
    assert_one_line(xzmem(files, *COMMANDS[name][1], env={"XZMEM_DEVICE": url, "XZMEM_TOKEN": TOKEN}),
                    COMMANDS[name][2])


def test_the_token_inside_the_device_url_beats_the_environment_and_the_file(files, device):
    (files / "config.toml").write_text('[device]\ntoken = "saved-but-stale"\n', encoding="utf-8")
    done = xzmem(files, "stats", "--json", "--device", device.url, env={"XZMEM_TOKEN": "also-stale-1"})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["device_id"]
    # a --token flag still beats the URL's
    assert_one_line(xzmem(files, "stats", "--device", device.url, "--token", "wrong-token-99"), "refused the token")


def test_import_lists_the_refused_records_and_fails(files, device):
    (files / "mixed.json").write_text(json.dumps({"format": "xzmem-export", "version": 1, "records": [
        {"type": "like", "content": "下围棋", "learned_at": 1790000000},
        {"type": "birthday", "content": "二月三十", "learned_at": 1790000000}]}), encoding="utf-8")
    done = xzmem(files, "import", "{tmp}/mixed.json", "--device", device.url)
    assert_one_line(done, "1 of 2 records were refused")
    refused = [line for line in done.stdout.splitlines() if line.startswith("  refused ")]
    assert len(refused) == 1 and "birthday" in refused[0] and "二月三十" in refused[0], done.stdout


def test_log_with_an_unknown_stage(tmp_path):
    assert_one_line(xzmem(tmp_path, "log", "--stage", "bogus"), "unknown stage 'bogus'")


def test_sim_on_a_port_in_use(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = xzmem(tmp_path, "sim", "--data", str(tmp_path / "d"), "--token", TOKEN, "--listen", f"127.0.0.1:{port}")
    assert_one_line(done, f"cannot listen on 127.0.0.1:{port}")
    assert done.returncode == 1  # not a usage error: the flags were fine
    assert "never awaited" not in done.stderr


def test_a_damaged_firmware_file_is_named_without_esptool_words(tmp_path):
    bad = tmp_path / "fw.bin"
    bad.write_bytes(bytes([0xE9, 3, 195, 0x20]) + bytes(60))
    done = xzmem(tmp_path, "image", "--firmware", str(bad), "--out", str(tmp_path / "flash.bin"))
    assert_one_line(done, "fw.bin is not a usable ESP32 firmware image")
    assert "ImageSpiMode" not in done.stderr


def test_ctrl_c_in_a_long_command_is_one_line(tmp_path, device):
    clean = {k: v for k, v in os.environ.items() if not k.startswith("XZMEM_")}
    clean.update(XZMEM_CONFIG=str(tmp_path / "none.toml"), XZMEM_DATA_DIR=str(tmp_path / "host"))
    chat = subprocess.Popen([sys.executable, "-m", "xzmem", "chat", "--device", device.url], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean)
    chat.stdout.readline()  # the chat has started (it says the LLM is off) and waits for a line
    time.sleep(1)
    chat.send_signal(signal.SIGINT)
    out, err = chat.communicate(timeout=30)
    assert chat.returncode == 130
    assert err.strip() == "xzmem: interrupted" and "Traceback" not in out


def test_sigterm_to_a_sim_with_a_client_connected_logs_no_cancellation(tmp_path):
    import asyncio

    import websockets

    sim = SimDevice(tmp_path / "d").start()

    async def hold_a_connection():
        async with websockets.connect(sim.url) as ws:
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
            await ws.recv()
            sim.proc.send_signal(signal.SIGTERM)
            await asyncio.sleep(1)

    asyncio.run(hold_a_connection())
    rest, _ = sim.proc.communicate(timeout=30)
    log = "".join(sim.output) + rest
    assert "xzmem device stopped" in log
    assert "CancelledError" not in log and "Traceback" not in log, log


def test_two_sims_have_their_own_stable_device_ids(tmp_path):
    ids = []
    for folder in ("a", "b", "a"):
        with SimDevice(tmp_path / folder) as sim:
            ids.append(json.loads(xzmem(tmp_path, "stats", "--json", "--device", sim.url).stdout)["device_id"])
    assert ids[0] != ids[1] and ids[0] == ids[2]
    assert READY  # the sims announced themselves with the ready line


def test_sim_with_a_memory_image_of_the_wrong_size(tmp_path):
    data = tmp_path / "d"
    data.mkdir()
    (data / MEMORY_IMAGE).write_bytes(bytes(5000))
    done = xzmem(tmp_path, "sim", "--data", str(data), "--token", TOKEN, "--listen", f"127.0.0.1:{free_port()}")
    assert_one_line(done, "is 5000 bytes; a memory image is a multiple of 4096 bytes")
    assert done.returncode == 1
    assert (data / MEMORY_IMAGE).stat().st_size == 5000  # left as it was for the user to look at


@pytest.mark.parametrize("where", ["missing/probe.json", "."])
def test_sim_with_a_loop_probe_report_it_cannot_write(tmp_path, where):
    report = tmp_path / where
    done = xzmem(tmp_path, "sim", "--data", str(tmp_path / "d"), "--token", TOKEN,
                 "--listen", f"127.0.0.1:{free_port()}", "--loop-probe", str(report))
    assert_one_line(done, "--loop-probe")
    assert done.returncode == 1 and READY not in done.stdout  # refused before the device booted
