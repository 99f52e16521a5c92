"""`xzmem sim`: the device's own boot.py and main.py on CPython, with firmware/sim standing in for ESP32.

NVS is the simulated partition (real entry accounting) persisted as DATA/nvs.json; the `memory`
partition is a LittleFS image file DATA/memory.lfs (littlefs-python), so it can be flashed to a
board or opened with `littlefs-python`. Data survives restarts.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import runpy
import signal
import socket
import sys
from datetime import datetime, timezone
from pathlib import Path

from xzmem.board.tree import ROOT

NVS_FILE = "nvs.json"
MEMORY_IMAGE = "memory.lfs"
CONFIG_FILE = "config.json"
MEMORY_PARTITION_BYTES = 3 * 1024 * 1024
NVS_RESERVE = 200  # entries WiFi and PHY calibration take on a real board


class SimError(Exception):
    """A flag or configuration the simulator cannot take (a usage error: exit 2)."""

    exit_code = 2


class SimFault(SimError):
    """The flags are fine but the machine is not: a busy port, an unusable image (exit 1)."""

    exit_code = 1


def parse_listen(listen: str) -> tuple[str, int]:
    host, sep, port = listen.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise SimError(f"--listen must be HOST:PORT, got {listen!r}")
    return host, int(port)


def parse_start(text: str | None, utc_offset: int) -> int | None:
    """An ISO date-time; without a zone it is device local time (UTC + utc_offset)."""
    if not text:
        return None
    try:
        dt = datetime.fromisoformat(text)
    except ValueError as e:
        raise SimError(f"--start-time must be ISO 8601 like 2026-02-05T13:00, got {text!r}") from e
    if dt.tzinfo is None:
        return int(dt.replace(tzinfo=timezone.utc).timestamp()) - utc_offset
    return int(dt.timestamp())


def device_config(listen: str, token: str, utc_offset: int, endpoint: str | None = None, xiaozhi: str | None = None,
                  device_id: str | None = None, trusted_links: str | None = None, xiaozhi_token: str | None = None,
                  reminder_prefix: str | None = None, language: str = "zh") -> dict:
    host, port = parse_listen(listen)
    if language not in ("zh", "en"):
        raise SimError(f"--language must be zh or en, got {language!r}")
    cfg = {"token": token, "listen_host": host, "listen_port": port, "utc_offset": utc_offset, "language": language}
    optional = {"trusted_links": trusted_links, "endpoint_url": endpoint, "xiaozhi_url": xiaozhi, "device_id": device_id,
                "xiaozhi_token": xiaozhi_token, "reminder_prefix": reminder_prefix}
    cfg.update({key: value for key, value in optional.items() if value})
    return cfg


def prepare(data: Path, cfg: dict) -> None:
    """Point the firmware fakes at DATA and write the device config there."""
    data.mkdir(parents=True, exist_ok=True)
    for p in (ROOT / "lib", ROOT / "firmware" / "sim"):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))
    import esp32
    from memory import config

    try:
        config.validate(cfg)
    except ValueError as e:
        raise SimError(str(e)) from e
    esp32.configure_nvs(str(data / NVS_FILE), reserve=NVS_RESERVE)
    image = data / MEMORY_IMAGE
    # An existing image keeps its size (one read back from a board, or a small one for tests).
    size = image.stat().st_size if image.exists() else MEMORY_PARTITION_BYTES
    if size % 4096 or size < 16 * 4096:
        raise SimFault(f"{image} is {size} bytes; a memory image is a multiple of 4096 bytes, at least 64 KB")
    esp32.configure_partition("memory", str(image), size)
    (data / CONFIG_FILE).write_text(json.dumps(cfg, indent=1))


_stopping = False  # set by SIGTERM/SIGINT: from then on a dropped connection is expected


def _drop_cancelled(loop: asyncio.AbstractEventLoop, context: dict) -> None:
    """Stopping cancels the tasks serving connected clients, or interrupts them mid-write; asyncio's
    stream callback then reports each as an error with a traceback. On the way out that is no error."""
    if _stopping or isinstance(context.get("exception"), asyncio.CancelledError):
        return
    loop.default_exception_handler(context)


class _QuietShutdownPolicy(asyncio.DefaultEventLoopPolicy):
    """main.py's asyncio.run() gets a loop that keeps shutdown cancellations out of the log
    (and carries the loop probe when one was asked for)."""

    def __init__(self, probe=None):
        super().__init__()
        self.probe = probe

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        loop = super().new_event_loop()
        loop.set_exception_handler(_drop_cancelled)
        if self.probe is not None:
            self.probe.attach(loop)
        return loop


def stable_device_id(data: Path) -> str:
    """A MAC-form id derived from the data folder, so two simulators differ and one keeps its id
    across restarts (02: marks a locally administered address, never a real board's)."""
    digest = hashlib.sha256(str(data.resolve()).encode()).digest()
    return ":".join(f"{b:02x}" for b in (0x02, *digest[:5]))


def check_port_free(host: str, port: int) -> None:
    """SimFault now, before booting, when HOST:PORT cannot be listened on."""
    if port == 0:
        return
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the device's server does
        try:
            probe.bind((host, port))
        except OSError as e:
            raise SimFault(f"cannot listen on {host}:{port}: {e.strerror or e}; pick another --listen port") from None


def check_report_path(path: Path) -> None:
    """SimFault now, before booting, when the loop probe's report could not be written at the end."""
    if path.is_dir():
        raise SimFault(f"--loop-probe {path} is a folder; give a file name for the report")
    if not path.parent.is_dir() or not os.access(path.parent, os.W_OK):
        raise SimFault(f"--loop-probe {path}: cannot write there (no such folder, or no permission)")


def run(data: Path, cfg: dict, start: int | None = None, speed: float = 1.0, loop_probe: Path | None = None) -> None:
    """Boot the simulated device and serve until SIGINT or SIGTERM; the store is flushed on the way out.

    With `loop_probe`, how long single steps hold the event loop is measured and written there as
    JSON on the way out (xzmem.sim.loopprobe)."""
    if speed <= 0:
        raise SimError(f"--speed must be > 0, got {speed}")
    check_port_free(cfg["listen_host"], cfg["listen_port"])
    if loop_probe is not None:
        check_report_path(loop_probe)
    prepare(data, cfg)
    sys.stdout.reconfigure(line_buffering=True)  # the ready line must reach a pipe at once
    from memory import app, clock

    if start is not None or speed != 1:
        clock.simulate(start if start is not None else clock.now(), speed)
    app.CONFIG_PATH = str(data / CONFIG_FILE)

    def stop(signum, frame):
        global _stopping
        _stopping = True
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)  # Ctrl-C stops the same quiet way
    probe = None
    if loop_probe is not None:
        from xzmem.sim.loopprobe import LoopProbe

        probe = LoopProbe(loop_probe, lambda: app.current is not None and app.current.server is not None)
    asyncio.set_event_loop_policy(_QuietShutdownPolicy(probe))
    runpy.run_path(str(ROOT / "boot.py"), run_name="boot")
    try:
        runpy.run_path(str(ROOT / "main.py"), run_name="__main__")
    except KeyboardInterrupt:
        pass
    finally:
        if app.current is not None:
            app.current.shutdown()
        if probe is not None:
            probe.finish()
        print("xzmem device stopped; data kept in", data, flush=True)
