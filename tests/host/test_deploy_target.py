"""xzmem deploy picks the form a board can boot, from what the board says about itself, or refuses and says why.

The boards in tests/host/boards/ are described boards: the probe's answer as those builds give it
(a stock ESP32_GENERIC on 1.23, an ESP32-S3 with octal PSRAM on 1.27), with typical heap figures
rather than ones read off a particular board.
"""

import json

from esp_images import ROOT, project
from typer.testing import CliRunner
from xzmem.board import plans as board
from xzmem.board import target
from xzmem.cli.app import app

BOARDS = ROOT / "tests" / "host" / "boards"
NO_PSRAM_123 = BOARDS / "esp32-generic-1.23.json"
PSRAM_127 = BOARDS / "esp32s3-psram-1.27.json"


def deploy(port, root, *args):
    return CliRunner().invoke(app, ["deploy", "--port", port, "--root", str(root), "--token", "tok-long-enough",
                                    *[str(a) for a in args]])


def described(tmp_path, base, **changes):
    data = json.loads(base.read_text())
    data.update(changes)
    path = tmp_path / "board.json"
    path.write_text(json.dumps(data))
    return path


def test_psram_board_gets_mpy_files_built_for_its_architecture(tmp_path, port, ran):
    result = deploy(port, project(tmp_path), "--board", PSRAM_127, "--dry-run")
    assert result.exit_code == 0, result.output
    assert "MicroPython 1.27.0" in result.output and "PSRAM" in result.output
    assert "deploying as mpy" in result.output and "lib as .mpy" in result.output
    assert "fs cp -r" in result.output
    assert ran == []


def test_no_psram_board_with_heap_for_frozen_code_gets_the_frozen_build_steps(tmp_path, port, ran):
    board_file = described(tmp_path, NO_PSRAM_123, version=[1, 26, 1], heap_free=280 * 1024, heap_total=290 * 1024)
    result = deploy(port, project(tmp_path), "--board", board_file, "--dry-run")
    assert result.exit_code == 1
    assert "no PSRAM" in result.output and "320 KB" in result.output and "248 KB" in result.output
    assert "firmware/manifest.py" in result.output and "xzmem flash" in result.output
    assert ran == []


def test_stock_esp32_without_psram_is_refused_even_frozen_and_told_which_boards_work(tmp_path, port, ran):
    # ESP32_GENERIC: about 111 KB of heap, of which ESP-IDF keeps about 31 KB for WiFi and TLS.
    root = project(tmp_path)
    for frozen in (False, True):
        result = deploy(port, root, "--board", described(tmp_path, NO_PSRAM_123, frozen=frozen), "--dry-run")
        assert result.exit_code == 1, result.output
        assert "76 KB" in result.output and "176 KB" in result.output
        assert "Supported boards" in result.output and "PSRAM" in result.output
    assert ran == []


def test_micropython_older_than_1_23_is_refused_with_the_reason(tmp_path, port, ran):
    result = deploy(port, project(tmp_path), "--board", described(tmp_path, PSRAM_127, version=[1, 22, 2]), "--dry-run")
    assert result.exit_code == 1
    assert "1.22.2" in result.output and "1.23" in result.output and "vfs" in result.output
    assert ran == []


def test_frozen_firmware_with_too_little_heap_is_refused(tmp_path, port, ran):
    result = deploy(port, project(tmp_path), "--board", described(tmp_path, NO_PSRAM_123, frozen=True, heap_free=200000),
                    "--dry-run")
    assert result.exit_code == 1 and "163 KB of heap is Python's even with memory frozen in" in result.output
    assert ran == []


def test_frozen_firmware_gets_only_boot_main_and_config(tmp_path, port, ran):
    root = project(tmp_path)
    stage = tmp_path / "stage"
    facts = target.load_facts(described(tmp_path, NO_PSRAM_123, frozen=True, heap_free=280 * 1024))
    choice = target.choose(facts)
    assert choice.form == "frozen"
    plan = board.deploy_plan(port, {"token": "tok-long-enough"}, form=choice.form, root=root, workdir=stage)
    board.run_plan(plan, dry_run=False, show=lambda *a: None, note=lambda m: None)
    assert not (stage / "lib").exists() and (stage / "boot.py").exists() and (stage / "main.py").exists()
    assert not any("-r" in c for c in ran)  # nothing copied into /lib
    assert ["reset"] == ran[-1][-1:]


def test_viper_module_is_left_out_when_the_board_has_no_native_architecture(tmp_path):
    files = board.code_files(project(tmp_path), mpy=True, arch=None)
    assert "/lib/memory/wsmask.mpy" not in files and "/lib/memory/ws.mpy" in files


def test_probe_answer_is_read_and_a_bad_one_named(tmp_path, monkeypatch, port):
    answer = json.loads(PSRAM_127.read_text())
    monkeypatch.setattr(target, "run_probe", lambda p: "soft reboot\n@@board " + json.dumps(answer) + "\n")
    result = CliRunner().invoke(app, ["probe", "--port", port])
    assert result.exit_code == 0, result.output
    facts = target.facts_from(json.loads(result.output))
    assert facts.version == (1, 27, 0) and facts.psram and facts.arch == "xtensawin"
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": [1, 27]}')
    result = deploy(port, project(tmp_path), "--board", bad, "--dry-run")
    assert result.exit_code == 1 and "malformed" in result.output
