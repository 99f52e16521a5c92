"""The acknowledged-change journal on the simulator's real LittleFS image: the power is cut at every flash
write (block program or erase) of a commit and of the flush that cuts the journal, then the device
reboots (remount, NVS reloaded, journal replayed). Every change acknowledged before is back; the
change in flight is there whole or not at all; coins are exact."""

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT / "lib", ROOT / "firmware" / "sim", ROOT / "tests" / "device"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import esp32  # noqa: E402
import vfs  # noqa: E402
from memory.ackjournal import AckJournal  # noqa: E402
from memory.mount import mount_data  # noqa: E402
from memory.schedule import Schedules  # noqa: E402
from memory.service import MemoryService  # noqa: E402
from memory.store import Event, Store  # noqa: E402
from memory.tools import MemoryTool  # noqa: E402
from store_helpers import Clock  # noqa: E402
from test_ackjournal import CHANGES, T0, ask, snapshot  # noqa: E402

SIZE = 256 * 1024


class Board:
    """NVS file + LittleFS image in one folder; boot() is a power-on."""

    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir(exist_ok=True)

    def boot(self):
        try:
            vfs.umount("/data")
        except OSError:
            pass
        esp32.configure_partition("memory", str(self.folder / "memory.bin"), SIZE)
        self.partition = esp32.Partition.find(esp32.Partition.TYPE_DATA, label="memory")[0]
        assert mount_data(self.partition) in ("mounted", "formatted")
        esp32.configure_nvs(str(self.folder / "nvs.json"), reserve=200)
        store = Store(now=Clock(T0), journal=AckJournal("/data/acked.jnl"))
        return store, MemoryTool(MemoryService(store, Schedules(store, Event)))


@pytest.fixture
def saved(tmp_path):
    """A board that acknowledged every change but the last two, and the state after all but the last."""
    board = Board(tmp_path / "base")
    store, tool = board.boot()
    for args in CHANGES[:-2]:
        ask(tool, args)
    vfs.umount("/data")
    store, tool = _copy(board.folder, tmp_path / "before").boot()
    ask(tool, CHANGES[-2])
    yield board.folder, snapshot(store)
    try:
        vfs.umount("/data")
    except OSError:
        pass


def _copy(base: Path, to: Path) -> Board:
    shutil.copytree(base, to)
    return Board(to)


@pytest.mark.parametrize("step", ["commit", "flush"])
def test_power_cut_at_every_flash_write(saved, tmp_path, step):
    base, before = saved
    store, tool = _copy(base, tmp_path / "uncut").boot()
    ask(tool, CHANGES[-2])
    ask(tool, CHANGES[-1])
    after = snapshot(store)
    cut = 1
    while True:
        board = _copy(base, tmp_path / f"{step}{cut}")
        store, tool = board.boot()  # replays and cuts the journal of the earlier changes
        ask(tool, CHANGES[-2])  # so the journal holds a record when the power goes
        if step == "flush":
            ask(tool, CHANGES[-1])
        board.partition.cut_power_at(cut)
        try:
            if step == "commit":
                ask(tool, CHANGES[-1])
            else:
                store.flush()
            finished = True
        except esp32.PowerCut:
            finished = False
        store, tool = board.boot()
        got = snapshot(store)
        coins = got["affection"][0]["total_coins_spent"]
        if step == "commit":
            assert got in ((after,) if finished else (before, after)), f"cut at flash write {cut}"
            assert coins in ((12,) if finished else (7, 12))
        else:
            assert got == after, f"cut at flash write {cut} of the flush"
            assert coins == 12
        assert store.journal.size == 0  # the boot flushed what it replayed and cut the journal
        if finished:
            break
        cut += 1
    assert cut > 1
