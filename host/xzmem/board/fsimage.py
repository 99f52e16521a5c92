"""LittleFS partition images (littlefs-python) laid out so MicroPython's vfs.VfsLfs2 mounts them unchanged."""

from pathlib import Path

from littlefs import LittleFS, LittleFSError

from xzmem.board.partitions import LFS_BLOCK

# What vfs.VfsLfs2 uses on an esp32.Partition: 4096-byte blocks from the partition, 32-byte reads,
# programs and lookahead. Disk version 2.0 is readable by every littlefs v2 that MicroPython shipped.
LFS_PARAMS = {"read_size": 32, "prog_size": 32, "lookahead_size": 32, "name_max": 255, "disk_version": 0x00020000}


class ImageError(ValueError):
    """A LittleFS image that cannot be built or read; the message names the file."""


def build_image(size: int, files: dict[str, bytes]) -> bytes:
    """A LittleFS image of exactly `size` bytes holding `files` ({"/lib/memory/clock.py": b"..."})."""
    if size % LFS_BLOCK:
        raise ImageError(f"image size must be a multiple of {LFS_BLOCK}, got {size}")
    fs = LittleFS(block_size=LFS_BLOCK, block_count=size // LFS_BLOCK, mount=False, **LFS_PARAMS)
    fs.format()
    fs.mount()
    for path, data in sorted(files.items()):
        parent = path.rsplit("/", 1)[0]
        if parent:
            fs.makedirs(parent, exist_ok=True)
        try:
            with fs.open(path, "wb") as f:
                f.write(data)
        except LittleFSError as e:
            total = sum(len(d) for d in files.values())
            raise ImageError(
                f"{path} does not fit: {total} bytes of files in a {size} byte partition ({e})"
            ) from None
    fs.unmount()
    return bytes(fs.context.buffer)


def open_image(data: bytes) -> LittleFS:
    """Mount an image read from a board or a file; raises ImageError when it is not LittleFS."""
    if not data or len(data) % LFS_BLOCK:
        raise ImageError(f"a LittleFS image is a whole number of {LFS_BLOCK}-byte blocks, got {len(data)} bytes")
    fs = LittleFS(block_size=LFS_BLOCK, block_count=len(data) // LFS_BLOCK, mount=False, **LFS_PARAMS)
    fs.context.buffer[:] = data
    try:
        fs.mount()
    except LittleFSError as e:
        raise ImageError(f"not a LittleFS image ({e}): the partition was never formatted or is damaged") from None
    return fs


def read_files(fs: LittleFS) -> dict[str, bytes]:
    """Every file in a mounted image, by absolute path."""
    out = {}
    for root, _dirs, names in fs.walk("/"):
        for name in names:
            path = root.rstrip("/") + "/" + name
            with fs.open(path, "rb") as f:
                out[path] = f.read()
    return out


def files_from_source(source: Path) -> dict[str, bytes]:
    """Files to import into the memory partition: a directory tree, or a LittleFS image (a backup)."""
    source = Path(source)
    if source.is_dir():
        return {"/" + p.relative_to(source).as_posix(): p.read_bytes() for p in sorted(source.rglob("*")) if p.is_file()}
    if source.is_file():
        try:
            return read_files(open_image(source.read_bytes()))
        except ImageError as e:
            raise ImageError(f"{source}: {e}") from None
    raise ImageError(f"memory source not found: {source}")
