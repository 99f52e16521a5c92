"""flash, deploy and backup-image: every step is shown before it runs, --dry-run runs none, bad input stops everything."""

import json

import pytest
from esp_images import ROOT, merged_firmware, project
from typer.testing import CliRunner
from xzmem.board import fsimage
from xzmem.board import plans as board
from xzmem.board.devconfig import device_config
from xzmem.board.partitions import load_layout
from xzmem.cli.app import app

PSRAM_BOARD = ROOT / "tests" / "host" / "boards" / "esp32s3-psram-1.27.json"


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_flash_dry_run_shows_erase_then_write_and_runs_nothing(tmp_path, port, ran):
    fw = merged_firmware(tmp_path / "fw.bin")
    result = invoke("flash", "--port", port, "--firmware", fw, "--flash-size", "8MB", "--dry-run")
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.index("read-flash 0x8000") < out.index("erase-flash") < out.index("write-flash")
    assert f"--port {port}" in out and "--chip esp32" in out
    assert "--flash-size 8MB 0x1000" in out and "0x8000" in out and "0x10000" in out
    assert "dry run: nothing was run" in out
    assert ran == []


def test_flash_runs_esptool_with_the_split_firmware_and_our_table(tmp_path, port, ran):
    fw_path = merged_firmware(tmp_path / "fw.bin")
    work = tmp_path / "work"
    plan = board.flash_plan(port, fw_path, "4MB", workdir=work, memory="wipe")
    board.run_plan(plan, dry_run=False, show=lambda *a: None, note=lambda m: None)
    erase, write = ran
    assert erase[1:3] == ["-m", "esptool"] and erase[-1] == "erase-flash"
    args = write[write.index("write-flash") + 1 :]
    assert args[:2] == ["--flash-size", "4MB"]
    pieces = dict(zip(args[2::2], args[3::2], strict=True))
    data = fw_path.read_bytes()
    assert open(pieces["0x8000"], "rb").read() == load_layout("4MB").binary()
    assert open(pieces["0x10000"], "rb").read() == data[0xF000:]
    assert data.startswith(open(pieces["0x1000"], "rb").read())


def test_flash_esp32s3_writes_its_bootloader_at_zero(tmp_path, port, ran):
    fw = merged_firmware(tmp_path / "s3.bin", chip="esp32s3")
    plan = board.flash_plan(port, fw, "16MB", workdir=tmp_path / "work", memory="wipe")
    board.run_plan(plan, dry_run=False, show=lambda *a: None, note=lambda m: None)
    write = ran[-1]
    assert write[write.index("--chip") + 1] == "esp32s3"
    assert write[write.index("--flash-size") + 2 :: 2] == ["0x0", "0x8000", "0x10000"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--firmware", "{tmp}/missing.bin"], "firmware file not found"),
        (["--firmware", "{fw}", "--port", "/dev/ttyDOESNOTEXIST"], "serial port /dev/ttyDOESNOTEXIST does not exist"),
        (["--firmware", "{fw}", "--flash-size", "4MB", "--csv", "{root}/partitions/esp32-16MB.csv"], "past the end"),
        (["--firmware", "{big}"], "factory partition holds"),
    ],
)
def test_flash_bad_input_is_refused_before_anything_runs(tmp_path, port, ran, args, message):
    fw = merged_firmware(tmp_path / "fw.bin")
    big = merged_firmware(tmp_path / "big.bin", app_payload=0x1F0000)
    args = [a.format(tmp=tmp_path, fw=fw, big=big, root=ROOT) for a in args]
    if "--port" not in args:
        args += ["--port", port]
    result = invoke("flash", *args)
    assert result.exit_code == 1
    assert message in result.output
    assert "[1/" not in result.output  # no step was even shown
    assert ran == []


def test_deploy_plan_copies_code_and_config_then_resets(tmp_path, port, ran):
    root = project(tmp_path)
    stage = tmp_path / "stage"
    cfg = device_config(wifi_ssid="home", wifi_password="pw", token="t0k-long-enough", utc_offset=28800)
    plan = board.deploy_plan(port, cfg, root=root, workdir=stage)
    board.run_plan(plan, dry_run=False, show=lambda *a: None, note=lambda m: None)
    mp = [c[c.index("mpremote") + 3 :] for c in ran]
    assert all(c[c.index("mpremote") + 1 : c.index("mpremote") + 3] == ["connect", port] for c in ran)
    assert mp[0][0] == "exec" and "os.mkdir('/lib')" in mp[0][1]
    copies = {c[-1]: c[-2] for c in mp if c[:2] == ["fs", "cp"]}
    assert {":/boot.py", ":/main.py", ":/config.json", ":lib"} == set(copies)
    recursive = [c for c in mp if c[:3] == ["fs", "cp", "-r"]]
    assert len(recursive) == 1 and recursive[0][3].endswith("lib/memory") and recursive[0][4] == ":lib"
    assert mp[-1] == ["reset"]
    staged = json.loads((stage / "config.json").read_text())
    assert staged["wifi_ssid"] == "home" and staged["utc_offset"] == 28800 and staged["listen_port"] == 8765
    assert (stage / "lib" / "memory" / "clock.py").read_bytes() == board.without_comments((root / "lib" / "memory" / "clock.py").read_bytes())


def test_deploy_mpy_stages_compiled_modules(tmp_path, port, ran):
    root = project(tmp_path)
    stage = tmp_path / "stage"
    plan = board.deploy_plan(port, None, form="mpy", root=root, workdir=stage)
    board.run_plan(plan, dry_run=False, show=lambda *a: None, note=lambda m: None)
    compiled = (stage / "lib" / "memory" / "clock.mpy").read_bytes()
    assert compiled[:2] == b"M\x06"  # .mpy magic and format version 6 (MicroPython 1.19+)
    assert not (stage / "lib" / "memory" / "clock.py").exists()
    assert (stage / "boot.py").exists() and not (stage / "config.json").exists()
    assert not any(":/config.json" in c for c in ran)


def test_deploy_dry_run_shows_every_step_and_touches_nothing(tmp_path, port, ran):
    root = project(tmp_path)
    result = invoke("deploy", "--port", port, "--root", root, "--wifi-ssid", "home", "--wifi-password", "secret",
                    "--token", "tok-long-enough", "--board", PSRAM_BOARD, "--dry-run")
    assert result.exit_code == 0, result.output
    assert "fs cp" in result.output and "reset" in result.output
    assert "secret" not in result.output.split("[1/")[0]  # the config table hides secrets
    assert ran == []


def test_dry_run_performs_no_file_operation_either(tmp_path, port, ran):
    stage = tmp_path / "stage"
    shown = []
    plan = board.deploy_plan(port, device_config(token="t-long-enough"), root=project(tmp_path), workdir=stage)
    board.run_plan(plan, dry_run=True, show=lambda i, n, step: shown.append(step.title))
    assert len(shown) == len(plan.steps) == 7  # stage, prepare, boot.py, main.py, config.json, lib/memory, reset
    assert not stage.exists() and ran == []


def test_deploy_without_a_token_generates_one_and_says_so(tmp_path, port, ran):
    result = invoke("deploy", "--port", port, "--root", project(tmp_path), "--board", PSRAM_BOARD, "--dry-run")
    assert result.exit_code == 0, result.output
    assert "generated device token" in result.output
    assert "'***'" in result.output  # the config table itself still hides it


def test_deploy_without_boot_py_is_refused(tmp_path, port, ran):
    root = project(tmp_path)
    (root / "boot.py").unlink()
    result = invoke("deploy", "--port", port, "--root", root, "--board", PSRAM_BOARD, "--dry-run")
    assert result.exit_code == 1 and "boot.py is missing" in result.output
    assert ran == []


def test_deploy_to_a_missing_port(tmp_path, ran):
    result = invoke("deploy", "--port", str(tmp_path / "ttyACM9"), "--root", project(tmp_path))
    assert result.exit_code == 1 and "does not exist" in result.output
    assert ran == []


def _fake_board(layout, files):
    """Answers esptool read-flash with what a board using `layout` holds: its table and a memory archive."""
    calls = []

    def run(argv):
        calls.append(argv)
        i = argv.index("read-flash")
        offset, out = int(argv[i + 1], 16), argv[i + 3]
        if offset == 0x8000:
            data = layout.binary()
        else:
            data = fsimage.build_image(int(argv[i + 2], 16), files)
        with open(out, "wb") as f:
            f.write(data)

    return run, calls


def test_backup_reads_table_and_memory_then_extracts(tmp_path, port, monkeypatch):
    layout = load_layout("8MB")
    run, calls = _fake_board(layout, {"/archive/facts-0001.jsonl": b'{"id": 1}\n'})
    monkeypatch.setattr(board, "run_command", run)
    result = invoke("backup-image", "--port", port, "--out", tmp_path / "bk", "--flash-size", "8MB")
    assert result.exit_code == 0, result.output
    assert [c[c.index("read-flash") + 1 : c.index("read-flash") + 3] for c in calls] == [
        ["0x8000", "0x1000"], ["0x500000", "0x300000"]]
    assert (tmp_path / "bk" / "files" / "archive" / "facts-0001.jsonl").read_bytes() == b'{"id": 1}\n'
    assert "facts-0001.jsonl" in result.output


def test_backup_stops_when_the_board_has_another_layout(tmp_path, port, monkeypatch):
    run, calls = _fake_board(load_layout("4MB"), {})
    monkeypatch.setattr(board, "run_command", run)
    result = invoke("backup-image", "--port", port, "--out", tmp_path / "bk", "--flash-size", "8MB")
    assert result.exit_code == 1
    assert "the board's memory partition is at 0x280000" in result.output
    assert len(calls) == 1  # the memory partition was never read


def test_backup_dry_run(tmp_path, port, ran):
    result = invoke("backup-image", "--port", port, "--out", tmp_path / "bk", "--flash-size", "16MB", "--dry-run")
    assert result.exit_code == 0, result.output
    assert "read-flash 0x800000 0x800000" in result.output
    assert ran == [] and not (tmp_path / "bk").exists()


def test_dry_run_with_the_board_unplugged_warns_and_still_shows_the_steps(tmp_path, ran):
    fw = merged_firmware(tmp_path / "fw.bin")
    result = invoke("flash", "--port", "/dev/ttyNOPE0", "--firmware", fw, "--dry-run")
    assert result.exit_code == 0, result.output
    assert "warning: serial port /dev/ttyNOPE0 does not exist" in result.output
    assert "erase-flash" in result.output and ran == []


def test_source_on_the_board_has_no_comments_and_keeps_its_lines():
    from xzmem.board.plans import code_files

    files = code_files()
    store = files["/lib/memory/store.py"].decode()
    original = (board.ROOT / "lib/memory/store.py").read_text(encoding="utf-8")
    assert "#" in original and not any(line.lstrip().startswith("#") for line in store.splitlines())
    assert '"""' in original and '"""' not in store  # docstrings become ""
    assert len(store.splitlines()) == len(original.splitlines())
    for path, data in files.items():
        compile(data, path, "exec")
    assert sum(len(d) for d in files.values()) < 0.9 * sum(src.stat().st_size for _, src in board.device_files())
