"""package.json's mip fields, so `mpremote mip install github:OWNER/REPO` installs the device code."""

import json
import re
from pathlib import Path

from xzmem import __version__
from xzmem.board.partitions import ROOT
from xzmem.board.plans import device_files


def mip_urls(root: Path = ROOT) -> list[list[str]]:
    """[device path, repo path] pairs. mip installs under /lib, so the entry points go one level up."""
    urls = []
    for device_path, src in device_files(root):
        repo_path = src.relative_to(root).as_posix()
        target = device_path[len("/lib/"):] if device_path.startswith("/lib/") else ".." + device_path
        urls.append([target, repo_path])
    return urls


def updated_package(package: dict, root: Path = ROOT) -> dict:
    out = dict(package)
    out["urls"] = mip_urls(root)
    out["version"] = __version__
    out["deps"] = []
    return out


def stale_fields(root: Path = ROOT) -> list[str]:
    """Names of the mip fields in package.json that differ from what the tree needs; empty when current."""
    package = json.loads((root / "package.json").read_text(encoding="utf-8"))
    wanted = updated_package(package, root)
    return [k for k in ("urls", "version", "deps") if package.get(k) != wanted[k]]


def write_package(root: Path = ROOT) -> Path:
    path = root / "package.json"
    package = json.loads(path.read_text(encoding="utf-8"))
    text = json.dumps(updated_package(package, root), indent=2, ensure_ascii=False)
    # One [device path, repo path] pair per line keeps the diff of an added module to one line.
    text = re.sub(r'\[\n\s+("[^"\n]*"),\n\s+("[^"\n]*")\n\s+\]', r"[\1, \2]", text)
    path.write_text(text + "\n", encoding="utf-8")
    return path
