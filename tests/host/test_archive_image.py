"""The simulator's `memory` partition is a real LittleFS image: boot mount logic, images shared
with littlefs-python (as with a board), and the archive surviving power cuts at flash level."""

import errno
import json
import runpy
import sys
from pathlib import Path

import littlefs
import pytest

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT / "lib", ROOT / "firmware" / "sim"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import esp32  # noqa: E402
import vfs  # noqa: E402
from memory import fs  # noqa: E402
from memory.archive import Archive  # noqa: E402
from memory.mount import mount_data  # noqa: E402
from memory.space import MemoryFull  # noqa: E402

SIZE = 512 * 1024
BLOCK = 4096


def fact(i, content=None):
    return {"id": f"f{i}", "type": "fact", "learned_at": 1735732800 + i * 3600,
            "content": content or f"主人第{i}次去北京 trip {i}"}


@pytest.fixture
def partition(tmp_path):
    esp32.configure_partition("memory", str(tmp_path / "memory.bin"), SIZE)
    yield esp32.Partition.find(esp32.Partition.TYPE_DATA, label="memory")[0]
    try:
        vfs.umount("/data")
    except OSError:
        pass


def _lfs(path, mount=True):
    """The image opened by littlefs-python alone, configured as MicroPython's VfsLfs2."""
    ctx = littlefs.UserContextFile(str(path))
    return littlefs.LittleFS(ctx, mount=mount, block_size=BLOCK, block_count=SIZE // BLOCK,
                             read_size=32, prog_size=32, lookahead_size=32, cache_size=128,
                             block_cycles=100, disk_version=0x00020000)


class Counting:
    """A block device in front of a partition: counts writes, fails reads or loses power on demand."""

    def __init__(self, part, fail_reads=None, cut_at=None):
        self.part, self.fail_reads, self.cut_at = part, fail_reads, cut_at
        self.writes = 0

    def readblocks(self, n, buf, off=0):
        if self.fail_reads:
            raise OSError(self.fail_reads, "read failed")
        self.part.readblocks(n, buf, off)

    def _write(self):
        self.writes += 1
        if self.cut_at and self.writes >= self.cut_at:
            raise esp32.PowerCut(f"power cut at flash write {self.writes}")

    def writeblocks(self, n, buf, off=None):
        self._write()
        self.part.writeblocks(n, buf, off)

    def ioctl(self, op, arg):
        if op == 6:
            self._write()
        return self.part.ioctl(op, arg)


def test_blank_partition_is_formatted_once_then_mounted(partition):
    assert mount_data(partition) == "formatted"
    fs.makedirs("/data/keep")
    vfs.umount("/data")
    assert mount_data(partition) == "mounted"
    assert fs.listdir("/data") == ["keep"]


def test_other_mount_errors_are_reported_and_never_formatted(partition, tmp_path):
    assert mount_data(partition) == "formatted"
    Archive("/data/archive").append("fact", [fact(1)])
    vfs.umount("/data")
    before = (tmp_path / "memory.bin").read_bytes()
    broken = Counting(partition, fail_reads=errno.EIO)
    status = mount_data(broken)
    assert status.startswith("error:") and "OSError 5" in status
    assert broken.writes == 0
    assert (tmp_path / "memory.bin").read_bytes() == before
    with pytest.raises(OSError):
        fs.listdir("/data/archive")  # nothing mounted
    assert mount_data(None) == "error: no partition labelled memory"


def test_boot_py_mounts_the_memory_partition_at_data(partition, capsys):
    runpy.run_path(str(ROOT / "boot.py"))
    assert "memory partition: formatted" in capsys.readouterr().out
    assert fs.statvfs("/data")[2] == SIZE // BLOCK
    assert not fs.exists("/memory")  # never mounted where it would hide lib/memory


def test_image_written_by_the_simulator_opens_with_littlefs_python(partition, tmp_path):
    mount_data(partition)
    a = Archive("/data/archive")
    a.append("fact", [fact(i) for i in range(40)])
    a.append("moment", [{"id": "m1", "type": "moment", "learned_at": 1735732800, "topic": "生日",
                         "content": "一起庆祝生日", "emotion_type": 1, "emotion_intensity": 5, "importance": 5}])
    vfs.umount("/data")
    lfs = _lfs(tmp_path / "memory.bin")
    ids = []
    for top, _dirs, names in lfs.walk("/archive/fact"):
        for name in names:
            if name.endswith(".jsonl"):
                with lfs.open(top + "/" + name, "r", encoding="utf-8") as f:
                    ids += [json.loads(line)["id"] for line in f]
    assert sorted(ids) == sorted(f"f{i}" for i in range(40))
    assert lfs.fs_stat().disk_version == 0x00020000


def test_image_from_elsewhere_is_mounted_not_formatted(partition, tmp_path):
    lfs = _lfs(tmp_path / "memory.bin", mount=False)
    lfs.format()
    lfs.mount()
    lfs.makedirs("/archive/fact/202501")
    line = json.dumps(fact(7), ensure_ascii=False) + "\n"
    with lfs.open("/archive/fact/202501/0.jsonl", "w", encoding="utf-8") as f:
        f.write(line)
    lfs.unmount()
    lfs.context.close()
    assert mount_data(partition) == "mounted"
    a = Archive("/data/archive")  # no sidecar yet: built from the part on first use
    r = a.recall("fact", keyword="北京")
    assert [it["id"] for it in r["items"]] == ["f7"]


def test_full_partition_fails_cleanly_on_real_littlefs(tmp_path):
    esp32.configure_partition("memory", str(tmp_path / "small.bin"), 64 * 1024)
    part = esp32.Partition.find(esp32.Partition.TYPE_DATA, label="memory")[0]
    try:
        mount_data(part)
        a = Archive("/data/archive", reserve_bytes=8192)
        with pytest.raises(MemoryFull) as e:
            for k in range(100):
                a.append("fact", [fact(k * 5 + j, "x" * 150) for j in range(5)])
        assert "memory is full" in str(e.value) and "Errno" not in str(e.value)
        s = a.stats()
        assert s["counts"]["fact"] == k * 5
        assert not fs.exists("/data/archive/journal.json")
    finally:
        vfs.umount("/data")


@pytest.mark.parametrize("cut_at", range(1, 72, 2))
def test_power_cut_at_any_flash_write_of_an_append(partition, cut_at):
    mount_data(partition)
    Archive("/data/archive").append("fact", [fact(i) for i in range(20)])
    vfs.umount("/data")
    dying = Counting(partition, cut_at=cut_at)
    vfs.mount(vfs.VfsLfs2(dying), "/data")
    try:
        Archive("/data/archive").append("fact", [fact(i) for i in range(20, 23)])
        finished = True
    except esp32.PowerCut:
        finished = False
    vfs.umount("/data")
    assert mount_data(partition) == "mounted"  # the next boot
    a = Archive("/data/archive")
    assert a.count("fact") in ((23,) if finished else (20, 23))
    a.append("fact", [fact(i) for i in range(20, 23)])  # the store retries what it still holds
    assert a.count("fact") == 23
    ids = [it["id"] for it in a.recall("fact", limit=50)["items"]]
    assert sorted(ids) == sorted(f"f{i}" for i in range(23))


def test_oldest_segments_make_room_on_real_littlefs(tmp_path):
    esp32.configure_partition("memory", str(tmp_path / "tight.bin"), 256 * 1024)
    part = esp32.Partition.find(esp32.Partition.TYPE_DATA, label="memory")[0]
    try:
        mount_data(part)
        a = Archive("/data/archive", reserve_bytes=16384)
        total = 0
        for k in range(120):
            batch = [dict(fact(k * 5 + j, "长" * 60 + f" {k * 5 + j}"), learned_at=1735732800 + (k * 5 + j) * 40000)
                     for j in range(5)]
            total += a.append("fact", batch)
        s = a.stats()
        assert s["dropped_segments"] > 0
        assert s["counts"]["fact"] + s["dropped_records"] == total == 600
        assert a.recall("fact", limit=1)["items"][0]["id"] == "f599"
        assert fs.free_bytes("/data") > 0
    finally:
        vfs.umount("/data")
