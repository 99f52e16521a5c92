"""The Wokwi files agree with each other, and the workflow's image command builds what wokwi.toml points at.

Wokwi itself needs WOKWI_CLI_TOKEN and the network, so only the CI workflow runs the simulation.
"""

import json
import shlex
import tomllib
from pathlib import PurePosixPath

import yaml
from esp_images import ROOT, merged_firmware, project
from typer.testing import CliRunner
from xzmem.board import fsimage
from xzmem.board.partitions import load_layout, parse_table
from xzmem.cli.app import app


def workflow():
    return yaml.safe_load((ROOT / ".github" / "workflows" / "wokwi.yml").read_text())


def image_command():
    for step in workflow()["jobs"]["simulate"]["steps"]:
        if "xzmem image" in step.get("run", ""):
            return shlex.split(step["run"])
    raise AssertionError("the workflow has no `xzmem image` step")


def option(argv, name):
    return argv[argv.index(name) + 1]


def test_wokwi_toml_points_at_the_image_the_workflow_builds():
    config = tomllib.loads((ROOT / "wokwi.toml").read_text())["wokwi"]
    argv = image_command()
    assert config["version"] == 1
    assert PurePosixPath(config["firmware"]) == PurePosixPath(option(argv, "--out"))


def test_diagram_board_has_the_flash_size_the_image_is_built_for():
    parts = json.loads((ROOT / "diagram.json").read_text())["parts"]
    boards = [p for p in parts if p["type"] == "board-esp32-devkit-c-v4"]
    assert len(boards) == 1
    assert boards[0]["attrs"]["flashSize"] + "MB" == option(image_command(), "--flash-size") == "8MB"


def test_scenario_waits_for_ready_and_self_test_lines():
    steps = yaml.safe_load((ROOT / "tests" / "wokwi" / "scenario.yaml").read_text())["steps"]
    waits = [s["wait-serial"] for s in steps if "wait-serial" in s]
    ready = "xzmem device ready ws://0.0.0.0:8765/mcp"
    assert any(w in ready for w in waits)
    assert any(w in "xzmem self-test: 12 passed, 0 failed" for w in waits)
    # A failing self-test must not satisfy the scenario.
    assert not any(w in "xzmem self-test: 11 passed, 10 failed" or w in "xzmem self-test: 11 passed, 1 failed"
                   for w in waits if w not in ready)


def test_workflow_runs_wokwi_with_the_token_and_the_scenario():
    job = workflow()["jobs"]["simulate"]
    wokwi = [s for s in job["steps"] if str(s.get("uses", "")).startswith("wokwi/wokwi-ci-action")]
    assert len(wokwi) == 1
    args = wokwi[0]["with"]
    assert "secrets.WOKWI_CLI_TOKEN" in args["token"]
    assert (ROOT / args["path"].strip("/") / "wokwi.toml").exists()
    assert (ROOT / args["scenario"]).exists()
    assert any("make setup" in s.get("run", "") for s in job["steps"])
    assert "Wokwi-GUEST" in image_command()  # the simulator's open access point


def test_the_workflow_image_command_builds_a_bootable_layout(tmp_path):
    argv = image_command()
    assert argv[0].endswith("xzmem") and argv[1] == "image"
    out = tmp_path / "flash.bin"
    args = argv[2:]
    args[args.index("--firmware") + 1] = str(merged_firmware(tmp_path / "micropython.bin"))
    args[args.index("--out") + 1] = str(out)
    result = CliRunner().invoke(app, ["image", *args, "--root", str(project(tmp_path))])
    assert result.exit_code == 0, result.output
    data = out.read_bytes()
    layout = load_layout(option(argv, "--flash-size"))
    assert parse_table(data[0x8000:0x9000]) == list(layout.partitions)
    vfs = layout["vfs"]
    code = fsimage.read_files(fsimage.open_image(data[vfs.offset : vfs.end]))
    assert json.loads(code["/config.json"])["wifi_ssid"] == "Wokwi-GUEST"
    assert "/boot.py" in code and "/lib/memory/clock.py" in code
