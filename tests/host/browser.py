"""Headless Chromium for tests, driven by selenium through Debian's chromedriver (no browser download).

`make test` installs Debian's `chromium` and `chromium-driver` when they are missing; where that
cannot work, the browser tests skip with a message naming the packages.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
# The network here is closed: without these, Chromium keeps trying to reach Google's services.
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--window-size=1280,900", "--lang=zh-CN",
)


def browser_missing() -> str | None:
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists():
            return (f"BROWSER TESTS SKIPPED: {path} is missing; install Debian's chromium and chromium-driver "
                    "(`make test` does this with apt-get when run as root)")
    return None


def chromium():
    """A selenium WebDriver on a fresh profile; quit() it (the fixture does)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium Manager look for a driver online
    profile = tempfile.mkdtemp(prefix="xzmem-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    driver.xzmem_profile = profile
    return driver


@pytest.fixture
def browser():
    missing = browser_missing()
    if missing:
        pytest.skip(missing)
    driver = chromium()
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(driver.xzmem_profile, ignore_errors=True)
