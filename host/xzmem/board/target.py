"""What a board can run: its facts as it reports them, and the form the device code goes on it in.

`xzmem deploy` reads the facts off the board (MicroPython version, .mpy format and architecture, free
heap, PSRAM, a frozen `memory` package) or from a recorded answer (--board FILE), then picks a form
that boots there, or refuses and says what to do instead.
"""

import json
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

MIN_VERSION = (1, 23, 0)
MIN_REASON = "the memory partition is mounted with the `vfs` module, which came in MicroPython 1.23"
MPY_FORMAT = 6  # what mpy-cross writes (MicroPython 1.19 and newer read it)
# The heap the firmware needs to run for weeks: the smallest heap on which 1,000 mixed calls left no
# MemoryError and no lost session on 32-bit unix builds of MicroPython 1.23 and 1.28
# (bench/board_soak.py --micropython, the device alone: .mpy 288 KB, frozen 160 KB), plus 10 %.
MPY_HEAP = 320 * 1024
FROZEN_HEAP = 176 * 1024
# gc.mem_free() on an ESP32 counts ESP-IDF's largest free block, which the Python heap may grow into;
# ESP-IDF keeps about 31 KB of it for WiFi and TLS, so that much is not Python's.
IDF_RESERVE = 32 * 1024
# sys.implementation._mpy bits 10-13: the native architecture, named as mpy-cross -march takes it.
ARCHES = ("", "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp", "armv7emdp", "xtensa",
          "xtensawin", "rv32imc", "rv64imc")

# Run on the board with `mpremote exec`: one JSON line with what the choice needs.
PROBE = """import gc, sys, json
gc.collect()
i = sys.implementation
f = {'version': list(i.version[:3]), 'mpy': getattr(i, '_mpy', 0), 'machine': getattr(i, '_machine', ''),
     'heap_free': gc.mem_free(), 'heap_total': gc.mem_free() + gc.mem_alloc(), 'frozen': False}
p = sys.path[:]
sys.path[:] = ['.frozen']
try:
    __import__('memory')
    f['frozen'] = True
except ImportError:
    pass
sys.path[:] = p
print('@@board ' + json.dumps(f))
"""
_MARK = "@@board "


class TargetError(RuntimeError):
    """The board cannot run the device code in any form deploy can install; the message says why and what to do."""


@dataclass
class BoardFacts:
    version: tuple[int, int, int]
    mpy: int  # sys.implementation._mpy: format version, sub-version and native architecture
    machine: str
    heap_free: int  # gc.mem_free() after a collection, on a freshly reset board
    heap_total: int
    frozen: bool  # the firmware has a frozen `memory` package

    @property
    def mpy_format(self) -> int:
        return self.mpy & 0xFF

    @property
    def arch(self) -> str | None:
        """The mpy-cross -march name for native code on this board, None where it has none."""
        n = (self.mpy >> 10) & 0xF
        return ARCHES[n] if 0 < n < len(ARCHES) else None

    @property
    def usable_heap(self) -> int:
        """What Python can allocate: on an ESP32 less what ESP-IDF keeps for WiFi and TLS."""
        return self.heap_free - (IDF_RESERVE if "ESP32" in self.machine.upper() else 0)

    @property
    def psram(self) -> bool:
        # MicroPython names SPIRAM builds in _machine; a heap over 1 MB can only be PSRAM on an ESP32.
        return "SPIRAM" in self.machine.upper() or self.heap_total > 1024 * 1024

    def describe(self) -> str:
        v = ".".join(map(str, self.version))
        extras = [f"{self.heap_free // 1024} KB heap free", "PSRAM" if self.psram else "no PSRAM"]
        if self.frozen:
            extras.append("memory frozen in")
        return f"MicroPython {v} ({self.machine or 'unknown board'}): " + ", ".join(extras)

    def to_json(self) -> str:
        data = asdict(self)
        data["version"] = list(self.version)
        return json.dumps(data, indent=2)


def facts_from(data: dict) -> BoardFacts:
    """BoardFacts from a probe's answer (or a recorded one); TargetError names what is missing or wrong."""
    try:
        version = tuple(int(x) for x in data["version"])
        if len(version) != 3:
            raise ValueError("version must have 3 parts")
        return BoardFacts(version=version, mpy=int(data["mpy"]), machine=str(data.get("machine", "")),
                          heap_free=int(data["heap_free"]), heap_total=int(data.get("heap_total", data["heap_free"])),
                          frozen=bool(data.get("frozen", False)))
    except (KeyError, TypeError, ValueError) as e:
        raise TargetError(f"the board answer is incomplete or malformed ({e}); it needs version, mpy and heap_free") from None


def load_facts(path: Path) -> BoardFacts:
    """A recorded board answer (JSON, as `xzmem probe` prints it)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise TargetError(f"cannot read the board answer {path}: {e.strerror}") from None
    except ValueError as e:
        raise TargetError(f"the board answer {path} is not JSON: {e}") from None
    if not isinstance(data, dict):
        raise TargetError(f"the board answer {path} must be a JSON object")
    return facts_from(data)


def run_probe(port: str) -> str:
    """Soft-reset the board (so the heap is as at boot) and run PROBE there; returns what it printed."""
    argv = [sys.executable, "-m", "mpremote", "connect", port, "soft-reset", "exec", PROBE]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    if result.returncode:
        raise TargetError(f"could not ask the board on {port} what it is: {(result.stderr or result.stdout).strip()[-300:]}")
    return result.stdout


def read_facts(port: str) -> BoardFacts:
    out = run_probe(port)
    for line in out.splitlines():
        if line.startswith(_MARK):
            return facts_from(json.loads(line[len(_MARK):]))
    raise TargetError(f"the board on {port} gave no answer to the probe: {out.strip()[-300:]}")


@dataclass
class Choice:
    form: str  # "mpy" (.mpy files in /lib) or "frozen" (code in the firmware)
    reason: str
    arch: str | None = None  # -march for viper modules; None leaves them out (plain Python is used)


FROZEN_STEPS = (
    "build MicroPython with xzmem frozen in (docs/firmware.md: make -C ports/esp32 BOARD=ESP32_GENERIC "
    "FROZEN_MANIFEST=<xzmem>/firmware/manifest.py), write it with `xzmem flash --firmware "
    "build-ESP32_GENERIC/firmware.bin`, then run `xzmem deploy` again: it copies only boot.py, main.py and the config"
)


SUPPORTED = ("Supported boards: an ESP32 or ESP32-S3 with PSRAM (stock MicroPython 1.23 or newer, "
             "for example ESP32_GENERIC_S3 with SPIRAM or ESP32_GENERIC-SPIRAM)")


def choose(facts: BoardFacts) -> Choice:
    """The form that boots on this board, or TargetError saying why none does and what to do."""
    v = ".".join(map(str, facts.version))
    if facts.version < MIN_VERSION:
        raise TargetError(f"the board runs MicroPython {v}; xzmem needs {'.'.join(map(str, MIN_VERSION))} or newer "
                          f"({MIN_REASON}). Flash a newer firmware (xzmem flash), then deploy")
    usable = facts.usable_heap // 1024
    if facts.frozen:
        if facts.psram or facts.usable_heap >= FROZEN_HEAP:
            return Choice("frozen", "the firmware has xzmem frozen in: only boot.py, main.py and the config are copied")
        raise TargetError(f"only {usable} KB of heap is Python's even with memory frozen in; xzmem needs "
                          f"{FROZEN_HEAP // 1024} KB to run for weeks. {SUPPORTED}")
    if facts.mpy_format != MPY_FORMAT:
        raise TargetError(f"the board reads .mpy format {facts.mpy_format}, mpy-cross writes {MPY_FORMAT}")
    if facts.psram or facts.usable_heap >= MPY_HEAP:
        return Choice("mpy", f"{usable} KB of heap for Python: .mpy files in /lib, whose bytecode loads into RAM "
                             f"(needs {MPY_HEAP // 1024} KB)", facts.arch)
    if usable >= FROZEN_HEAP // 1024:
        raise TargetError(f"{facts.describe()}: .mpy files need {MPY_HEAP // 1024} KB of heap and this board gives "
                          f"Python {usable} KB. To run xzmem here, {FROZEN_STEPS}")
    raise TargetError(f"{facts.describe()}: Python gets {usable} KB of heap here, and xzmem needs "
                      f"{MPY_HEAP // 1024} KB as .mpy files or {FROZEN_HEAP // 1024} KB frozen in. {SUPPORTED}")
