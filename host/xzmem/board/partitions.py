"""Partition layouts: the CSVs in partitions/, their binary tables (esp-idf-defs), and the checks xzmem relies on."""

from dataclasses import dataclass
from pathlib import Path

from esp_idf_defs.partitions import (
    DATA_TYPE,
    MAX_PARTITION_LENGTH,
    MD5_PARTITION_BEGIN,
    SUBTYPES,
    InputError,
    PartitionDefinition,
    PartitionTable,
)

from xzmem.board.tree import ROOT

PARTITIONS_DIR = ROOT / "partitions"

TABLE_OFFSET = 0x8000  # stock MicroPython on ESP32 puts its table here
TABLE_SECTOR = 0x1000
FACTORY_OFFSET = 0x10000
FACTORY_SIZE = 0x1F0000
NVS_SIZE = 0xC000  # 48 KB: 12 pages of NVS, see DESIGN.md
LFS_BLOCK = 4096
FLASH_SIZES = {"4MB": 4 << 20, "8MB": 8 << 20, "16MB": 16 << 20}


class LayoutError(ValueError):
    """A partition layout xzmem cannot use; the message says which partition and why."""


@dataclass(frozen=True)
class Partition:
    name: str
    type: int
    subtype: int
    offset: int
    size: int
    flags: tuple[str, ...] = ()  # "encrypted", "readonly"

    @classmethod
    def from_definition(cls, d: PartitionDefinition) -> "Partition":
        return cls(d.name, d.type, d.subtype, d.offset, d.size, tuple(d.get_flags_list()))

    @property
    def end(self) -> int:
        return self.offset + self.size


@dataclass(frozen=True)
class Layout:
    flash_size: str
    source: Path
    partitions: tuple[Partition, ...]

    @property
    def flash_bytes(self) -> int:
        return FLASH_SIZES[self.flash_size]

    def __getitem__(self, name: str) -> Partition:
        for p in self.partitions:
            if p.name == name:
                return p
        raise LayoutError(f"{self.source.name}: no partition named {name!r}")

    def table(self) -> PartitionTable:
        table = PartitionTable()
        for p in self.partitions:
            d = PartitionDefinition()
            d.name, d.type, d.subtype, d.offset, d.size = p.name, p.type, p.subtype, p.offset, p.size
            for flag in p.flags:
                setattr(d, flag, True)
            table.append(d)
        return table

    def binary(self) -> bytes:
        """The table as the bootloader reads it at 0x8000: 32-byte entries, the MD5 entry, 0xFF padding."""
        return self.table().to_binary(md5sum=True)


def flash_bytes(flash_size: str) -> int:
    try:
        return FLASH_SIZES[flash_size]
    except KeyError:
        raise LayoutError(f"flash size must be one of {', '.join(FLASH_SIZES)}, got {flash_size!r}") from None


def default_csv(flash_size: str) -> Path:
    flash_bytes(flash_size)
    return PARTITIONS_DIR / f"esp32-{flash_size}.csv"


def load_layout(flash_size: str, csv: Path | None = None) -> Layout:
    """Read a partition CSV (ours for the board size unless `csv` is given) and check it fits the board."""
    size = flash_bytes(flash_size)
    path = Path(csv) if csv else default_csv(flash_size)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise LayoutError(f"cannot read partition CSV {path}: {e.strerror}") from None
    try:
        table = PartitionTable.from_csv(text, partition_table_offset=TABLE_OFFSET)
        table.verify(partition_table_offset=TABLE_OFFSET)
    except InputError as e:
        raise LayoutError(f"{path.name}: {e}") from None
    parts = tuple(Partition.from_definition(d) for d in table)
    layout = Layout(flash_size, path, parts)
    check_layout(layout, size)
    return layout


def check_layout(layout: Layout, flash_size_bytes: int) -> None:
    """The rules every xzmem layout keeps (the library has already checked alignment and overlaps)."""
    name = layout.source.name
    last = max(layout.partitions, key=lambda p: p.end)
    if last.end > flash_size_bytes:
        raise LayoutError(
            f"{name}: partition {last.name!r} ends at {last.end:#x} ({last.end / 2**20:.2f} MB), "
            f"past the end of a {layout.flash_size} board ({flash_size_bytes:#x})"
        )
    factory = layout["factory"]
    if (factory.offset, factory.size) != (FACTORY_OFFSET, FACTORY_SIZE):
        raise LayoutError(
            f"{name}: factory must be at {FACTORY_OFFSET:#x} with size {FACTORY_SIZE:#x} so stock MicroPython "
            f"images boot, got {factory.offset:#x} size {factory.size:#x}"
        )
    nvs = layout["nvs"]
    if nvs.subtype != SUBTYPES[DATA_TYPE]["nvs"] or nvs.size != NVS_SIZE:
        raise LayoutError(f"{name}: 'nvs' must be an nvs partition of {NVS_SIZE:#x} bytes, got size {nvs.size:#x}")
    for label in ("vfs", "memory"):
        p = layout[label]
        if p.type != DATA_TYPE:
            raise LayoutError(f"{name}: {label!r} must be a data partition, got type {p.type}")
        if p.offset % LFS_BLOCK or p.size % LFS_BLOCK:
            raise LayoutError(f"{name}: {label!r} must start and end on {LFS_BLOCK}-byte LittleFS blocks")


def parse_table(data: bytes) -> list[Partition]:
    """Parse a binary table (as read from 0x8000); raises LayoutError when the magic or the MD5 is wrong."""
    try:
        table = PartitionTable.from_binary(data[:MAX_PARTITION_LENGTH], md5sum=True)
    except InputError as e:
        raise LayoutError(f"partition table: {e}") from None
    md5_at = len(table) * 32
    if data[md5_at : md5_at + 2] != MD5_PARTITION_BEGIN[:2]:
        raise LayoutError(f"partition table has no MD5 entry after its {len(table)} partitions")
    return [Partition.from_definition(d) for d in table]


def describe(layout: Layout) -> list[tuple[str, str, str, str, str]]:
    """Rows (name, type, offset, size, end) for printing."""
    rows = []
    for p in sorted(layout.partitions, key=lambda p: p.offset):
        kind = "app" if p.type == 0 else "data"
        rows.append((p.name, kind, f"{p.offset:#08x}", _human(p.size), f"{p.end:#08x}"))
    return rows


def _human(n: int) -> str:
    if n % (1 << 20) == 0:
        return f"{n >> 20} MB"
    if n % 1024 == 0:
        return f"{n >> 10} KB"
    return f"{n} B"
