# CPython only: a LittleFS volume on a block device (esp32.Partition) through littlefs-python.
#
# The configuration is MicroPython's VfsLfs2 default (read/prog size 32, lookahead 32, cache 128,
# block_cycles 100) and on-disk version 2.0, so an image written here mounts on a board and an
# image read back from a board mounts here. Errors come out as OSError(errno) like MicroPython's.

import errno
import io
import weakref

import littlefs
from littlefs import LittleFSError

_BLOCK_COUNT = 4  # ioctl numbers of MicroPython's block-device protocol
_BLOCK_SIZE = 5
_ERASE = 6
_DISK_VERSION = 0x00020000
_LFS_ERR_IO = -5


class _Blocks(littlefs.UserContext):
    """littlefs-python's storage callbacks on a MicroPython-style block device.

    littlefs-python swallows exceptions raised in callbacks, so the first one is kept in
    `error` and the volume raises it once the LittleFS call returns (a read error must not
    look like a blank partition, and a power cut must stop everything).
    """

    def __init__(self, bdev):  # noqa: B027 - UserContext's own buffer is not used
        self.bdev = bdev
        self.error = None
        # Blocks as last read or written, so LittleFS's many 32-byte reads are slices, not system
        # calls: a walk of the whole volume (statvfs) took 0.3 s on a 3 MB image. Writes go to the
        # file first and reach the copy only once they succeeded, so it always equals the file.
        self._blocks = {}
        self._size = bdev.ioctl(_BLOCK_SIZE, 0)

    def _guard(self, func, *args):
        if self.error is not None:
            return False
        try:
            func(*args)
            return True
        except BaseException as e:  # noqa: B036 - handed back to the caller by LfsVolume
            self.error = e
            return False

    def read(self, cfg, block, off, size):
        data = self._blocks.get(block)
        if data is None:
            data = bytearray(self._size)
            if not self._guard(self.bdev.readblocks, block, data, 0):
                return bytearray(b"\xff" * size)
            self._blocks[block] = data
        return data[off : off + size]

    def prog(self, cfg, block, off, data):
        data = bytes(data)
        if not self._guard(self.bdev.writeblocks, block, data, off):
            self._blocks.pop(block, None)
            return _LFS_ERR_IO
        cached = self._blocks.get(block)
        if cached is not None:
            cached[off : off + len(data)] = data
        return 0

    def erase(self, cfg, block):
        self._blocks.pop(block, None)
        return 0 if self._guard(self.bdev.ioctl, _ERASE, block) else _LFS_ERR_IO

    def sync(self, cfg):
        return 0


def _config(bdev):
    block_size = bdev.ioctl(_BLOCK_SIZE, 0)
    return dict(
        block_size=block_size,
        block_count=bdev.ioctl(_BLOCK_COUNT, 0),
        read_size=32,
        prog_size=32,
        lookahead_size=32,
        cache_size=min(block_size, 128),
        block_cycles=100,
        disk_version=_DISK_VERSION,
    )


def _oserror(e):
    if isinstance(e, LittleFSError):
        return OSError(-e.code, "littlefs: %s" % e)
    if isinstance(e, FileNotFoundError):
        return OSError(errno.ENOENT, str(e))
    if isinstance(e, FileExistsError):
        return OSError(errno.EEXIST, str(e))
    if isinstance(e, IsADirectoryError):
        return OSError(errno.EISDIR, str(e))
    return e


def mkfs(bdev):
    """Format the block device with an empty LittleFS."""
    blocks = _Blocks(bdev)
    fs = littlefs.LittleFS(blocks, mount=False, **_config(bdev))
    _run(blocks, fs.format)


def _run(blocks, func, *args):
    """func(*args), raising what the block device raised, else LittleFS errors as OSError."""
    try:
        result = func(*args)
    except (LittleFSError, OSError) as e:
        err = blocks.error or _oserror(e)
        blocks.error = None
        raise err
    if blocks.error is not None:
        err, blocks.error = blocks.error, None
        raise err
    return result


class _File:
    """A file of the volume; errors surface as OSError (or the block device's own exception)."""

    def __init__(self, blocks, f):
        self._blocks = blocks
        self._f = f

    def read(self, *args):
        return _run(self._blocks, self._f.read, *args)

    def readinto(self, buf):
        return _run(self._blocks, self._f.readinto, buf)

    def readline(self, *args):
        return _run(self._blocks, self._f.readline, *args)

    def write(self, data):
        return _run(self._blocks, self._f.write, data)

    def seek(self, *args):
        return _run(self._blocks, self._f.seek, *args)

    def tell(self):
        return _run(self._blocks, self._f.tell)

    def flush(self):
        return _run(self._blocks, self._f.flush)

    def close(self):
        return _run(self._blocks, self._f.close)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class LfsVolume:
    """The volume API of memory.fs (open, remove, rename, listdir, mkdir, stat, statvfs)."""

    def __init__(self, bdev):
        self.bdev = bdev
        self.blocks = _Blocks(bdev)
        self.fs = littlefs.LittleFS(self.blocks, mount=False, **_config(bdev))
        self._handles = weakref.WeakSet()
        _run(self.blocks, self.fs.mount)

    def unmount(self):
        """Unmount, also after a power cut: files still open are abandoned, as on a board."""
        for raw in list(self._handles):
            setattr(raw, "__IOBase_closed", True)  # their finaliser must not touch LittleFS again
        try:
            self.fs.unmount()
        except LittleFSError:
            pass
        self.blocks.error = None

    def open(self, path, mode="r"):
        F = littlefs.LFSFileFlag
        if "r" in mode:
            flags = (F.rdonly | F.wronly) if "+" in mode else F.rdonly
        elif "w" in mode:
            flags = F.wronly | F.creat | F.trunc
        elif "a" in mode:
            flags = F.wronly | F.creat | F.append
        else:
            raise ValueError("unsupported file mode %r" % mode)
        fh = _run(self.blocks, littlefs.lfs.file_open, self.fs.fs, path, flags)
        raw = littlefs.FileHandle(self.fs.fs, fh)
        self._handles.add(raw)
        if "b" in mode:
            return _File(self.blocks, raw)
        buffered = io.BufferedReader(raw) if flags == F.rdonly else io.BufferedWriter(raw)
        return _File(self.blocks, io.TextIOWrapper(buffered, encoding="utf-8"))

    def remove(self, path):
        _run(self.blocks, self.fs.remove, path)

    def rename(self, old, new):
        _run(self.blocks, self.fs.rename, old, new)

    def listdir(self, path):
        return _run(self.blocks, self.fs.listdir, path)

    def mkdir(self, path):
        _run(self.blocks, self.fs.mkdir, path)

    def stat(self, path):
        st = _run(self.blocks, self.fs.stat, path)
        mode = 0x4000 if st.type == 2 else 0x8000
        return (mode, 0, 0, 0, 0, 0, st.size, 0, 0, 0)

    def statvfs(self, path):
        bs = self.fs.cfg.block_size
        total = self.fs.block_count
        free = total - _run(self.blocks, lambda: self.fs.used_block_count)
        return (bs, bs, total, free, free, 0, 0, 0, 0, 255)


def build_image(path, size, fill):
    """A fresh LittleFS image file of `size` bytes as the `memory` partition, with what `fill(root)`
    writes under the mount point `root` (the device's own fs and archive code); returns the bytes
    left free. Tests and benches prefill the simulator's partition with it."""
    import esp32
    from memory import fs

    esp32.configure_partition("memory", str(path), size)
    part = esp32.Partition("memory")
    mkfs(part)
    volume = LfsVolume(part)
    fs.mount("/prefill", volume)
    try:
        fill("/prefill")
        return fs.free_bytes("/prefill")
    finally:
        fs.umount("/prefill")
        volume.unmount()
