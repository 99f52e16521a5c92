"""Where the device code (boot.py, main.py, lib/, firmware/, partitions/) is read from.

An installed xzmem carries its own copy inside the package (`xzmem/board/device_tree`, put there by
setup.py's build step); a checkout (`pip install -e .`, the tests) reads the repository's files, so
an edit to lib/ is what the next `xzmem sim` or `xzmem deploy` runs.
"""

import os
from pathlib import Path

BUNDLED = Path(__file__).resolve().parent / "device_tree"
CHECKOUT = Path(__file__).resolve().parents[3]
INSTALLED = (BUNDLED / "lib" / "memory").is_dir()
ROOT = BUNDLED if INSTALLED else CHECKOUT


def build_dir() -> Path:
    """Where images and staged files are written: build/ of a checkout, else the user's cache folder
    (an installed package's folder may not be writable)."""
    if not INSTALLED:
        return CHECKOUT / "build"
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "xzmem" / "build"
