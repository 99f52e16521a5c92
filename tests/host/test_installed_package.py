"""xzmem installed as users install it (`pip install .`, not editable) works with no checkout around.

The package is built from a copy of the repository that is deleted before the commands run, in a
fresh venv. Its dependencies come from the test venv (a path entry, not an install) to keep the
test short; xzmem itself and everything it reads come from the new venv only.
"""

import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest
from simdevice import READY, free_port

pytestmark = pytest.mark.timeout(300)
REPO = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "setup.py", "README.md", "host", "lib", "boot.py", "main.py", "firmware", "partitions")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    base = tmp_path_factory.mktemp("installed")
    copy = base / "source"
    for name in SOURCES:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, copy / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            copy.mkdir(exist_ok=True)
            shutil.copy2(src, copy / name)
    env_dir = base / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    done = subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps",
                           "--disable-pip-version-check", str(copy)], capture_output=True, text=True, cwd=base)
    assert done.returncode == 0, done.stderr
    shutil.rmtree(copy)
    (base / "work").mkdir()
    return env_dir, base / "work"


def run(installed, *args, timeout=120):
    env_dir, work = installed
    return subprocess.run([env_dir / "bin" / "xzmem", *args], capture_output=True, text=True, cwd=work,
                          timeout=timeout, env={"PATH": "/usr/bin:/bin", "HOME": str(work), "COLUMNS": "200"})


def test_the_package_is_the_installed_copy_not_the_checkout(installed):
    env_dir, work = installed
    done = subprocess.run([env_dir / "bin" / "python", "-c", "import xzmem; print(xzmem.__file__)"],
                          capture_output=True, text=True, cwd=work, check=True)
    assert done.stdout.startswith(str(env_dir)), done.stdout


@pytest.mark.parametrize("args, shown", [
    (("--help",), "Usage: xzmem"),
    (("version",), "xzmem 0.1.0"),
    (("image", "--help"), "--firmware"),
    (("deploy", "--help"), "--port"),
    (("sim", "--help"), "--data"),
    (("integrate", "xiaozhi-server", "--help"), "--server-dir"),
])
def test_documented_commands_start(installed, args, shown):
    done = run(installed, *args)
    assert done.returncode == 0, done.stderr
    assert shown in done.stdout
    assert "Traceback" not in done.stderr


def test_the_simulator_boots_the_bundled_device_code(installed):
    env_dir, work = installed
    proc = subprocess.Popen([env_dir / "bin" / "xzmem", "sim", "--data", str(work / "sim"), "--token", "t" * 16,
                             "--listen", f"127.0.0.1:{free_port()}"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=work, env={"PATH": "/usr/bin:/bin", "HOME": str(work)})
    seen = []
    try:
        for line in proc.stdout:
            seen.append(line)
            if line.startswith(READY) or len(seen) > 50:
                break
    finally:
        proc.terminate()
        rest, _ = proc.communicate(timeout=30)
    assert seen and seen[-1].startswith(READY), "".join(seen) + rest


def test_mip_asks_for_a_checkout(installed):
    done = run(installed, "mip", "--check")
    assert done.returncode == 1 and "run it in a checkout" in done.stderr


if sys.platform == "win32":  # the venv layout above is POSIX's
    pytest.skip("POSIX venv layout", allow_module_level=True)
