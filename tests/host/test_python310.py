"""The host package on Python 3.10, the Python of xiaozhi-esp32-server's Docker image.

The memory provider runs inside the server's own Python, so xzmem installs and works there: every
module imports, and the server contract test passes. The venv is built once under build/py310
(again when pyproject.toml changes). Skipped, saying so, on a machine with no python3.10.
"""

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(900)
REPO = Path(__file__).resolve().parents[2]
VENV = REPO / "build" / "py310"
CANDIDATES = ("python3.10", str(Path.home() / ".pyenv" / "versions" / "3.10.13" / "bin" / "python3.10"))


def python310() -> str | None:
    for candidate in CANDIDATES:
        found = shutil.which(candidate)
        if found and subprocess.run([found, "-c", "import sys; assert sys.version_info[:2] == (3, 10)"],
                                    capture_output=True).returncode == 0:  # a pyenv shim may lead nowhere
            return found
    return None


@pytest.fixture(scope="module")
def venv310():
    interpreter = python310()
    if interpreter is None:
        pytest.skip("no python3.10 on this machine (xiaozhi-esp32-server's image runs 3.10)")
    stamp = hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()
    python = VENV / "bin" / "python"
    marker = VENV / ".stamp"
    if not (marker.is_file() and marker.read_text() == stamp):
        shutil.rmtree(VENV, ignore_errors=True)
        subprocess.run([interpreter, "-m", "venv", str(VENV)], check=True)
        done = subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-e",
                               f"{REPO}", "pytest>=8", "pytest-timeout>=2.3"], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-3000:]
        marker.write_text(stamp)
    return python


def test_every_module_imports_on_python_3_10(venv310):
    code = ("import pathlib, importlib, xzmem\n"
            "root = pathlib.Path(xzmem.__file__).parent\n"
            "for p in sorted(root.rglob('*.py')):\n"
            "    parts = p.relative_to(root.parent).with_suffix('').parts\n"
            "    name = '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)\n"
            "    if name != 'xzmem.__main__':\n"
            "        importlib.import_module(name)\n"
            "import sys; print(sys.version_info[:2])")
    done = subprocess.run([venv310, "-W", "ignore", "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "(3, 10)"


def test_the_server_contract_holds_on_python_3_10(venv310):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XZMEM_", "PYTEST_"))}
    done = subprocess.run([venv310, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-x", "-W", "ignore",
                           "tests/host/test_xiaozhi_server_contract.py"], capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


if sys.platform == "win32":
    pytest.skip("POSIX venv layout", allow_module_level=True)
