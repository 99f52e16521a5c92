"""Puts the device code into the package at build time, so an installed xzmem needs no checkout.

`xzmem sim`, `deploy`, `image` and `flash` read boot.py, main.py, lib/, firmware/ and partitions/;
setuptools ships only files inside host/xzmem, so the build step copies these into
xzmem/board/device_tree (xzmem.board.tree finds them there). Editable installs read the checkout.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
DEVICE_TREE = ("boot.py", "main.py", "lib", "firmware", "partitions")


class BuildWithDeviceTree(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "xzmem" / "board" / "device_tree"
        shutil.rmtree(target, ignore_errors=True)
        for name in DEVICE_TREE:
            src = HERE / name
            if src.is_dir():
                shutil.copytree(src, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            elif src.is_file():
                target.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, target / name)


setup(cmdclass={"build_py": BuildWithDeviceTree})
