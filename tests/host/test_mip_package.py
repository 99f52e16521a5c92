"""package.json's mip fields list every device file, and mpremote's own mip code puts them where the board needs them."""

import json
import posixpath
import shutil

import pytest
from esp_images import ROOT, project
from mpremote import mip as mpremote_mip
from typer.testing import CliRunner
from xzmem.board import mippackage
from xzmem.board.plans import device_files
from xzmem.cli.app import app


def test_package_json_is_current():
    assert mippackage.stale_fields() == [], "run `make mip` (xzmem mip) and commit package.json"
    assert CliRunner().invoke(app, ["mip", "--check"]).exit_code == 0


def test_every_device_module_is_listed():
    package = json.loads((ROOT / "package.json").read_text())
    listed = {repo for _, repo in package["urls"]}
    for module in (ROOT / "lib" / "memory").glob("*.py"):
        assert module.relative_to(ROOT).as_posix() in listed
    for entry in ("boot.py", "main.py"):
        assert ((ROOT / entry).exists()) == (entry in listed)
    assert package["deps"] == [] and package["version"]
    assert "devDependencies" in package  # the npm side is kept


def test_a_new_module_makes_package_json_stale(tmp_path):
    root = project(tmp_path)
    shutil.copy(ROOT / "package.json", root / "package.json")
    mippackage.write_package(root)
    assert mippackage.stale_fields(root) == []
    (root / "lib" / "memory" / "newmod.py").write_text("X = 1\n")
    assert mippackage.stale_fields(root) == ["urls"]
    mippackage.write_package(root)
    assert ["memory/newmod.py", "lib/memory/newmod.py"] in json.loads((root / "package.json").read_text())["urls"]
    assert ["../boot.py", "boot.py"] in json.loads((root / "package.json").read_text())["urls"]


class RecordingBoard:
    """The part of mpremote's transport that mip uses, keeping files in a dict instead of a board."""

    def __init__(self):
        self.files, self.dirs = {}, {"/"}

    def fs_exists(self, path):
        return posixpath.normpath(path) in self.dirs or posixpath.normpath(path) in self.files

    def fs_mkdir(self, path):
        self.dirs.add(posixpath.normpath(path))

    def fs_writefile(self, path, data, progress_callback=None):
        # littlefs resolves "..", as posixpath does here.
        self.files[posixpath.normpath(path)] = data


@pytest.mark.parametrize("with_main", [False, True])
def test_mpremote_mip_installs_the_files_where_deploy_puts_them(tmp_path, with_main):
    root = project(tmp_path)
    if not with_main:
        (root / "main.py").unlink()
    shutil.copy(ROOT / "package.json", root / "package.json")
    mippackage.write_package(root)
    board = RecordingBoard()
    mpremote_mip._install_json(board, str(root / "package.json"), None, "/lib", None, False)
    expected = {device: src.read_bytes() for device, src in device_files(root)}
    assert board.files == expected
    assert "/boot.py" in board.files and ("/main.py" in board.files) == with_main
