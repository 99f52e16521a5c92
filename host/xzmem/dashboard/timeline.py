"""Every memory on one time axis, newest first, a page at a time.

Hot records (NVS) and keyed memories come from one export; facts and moments come from `recall`,
which answers those still in NVS and then the archive, newest first. Each page asks `recall` only
for what that page needs (those learned up to the cursor's second, memory_sync's `until`: at most a
page plus the entries already shown at that second), so the archive is streamed page by page and
never read whole, and every record is reached however many one day holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from xzmem.device.client import DeviceClient

RECALLED = ("fact", "moment")
PROFILE_TYPES = ("name", "age", "gender", "location", "birthday")
FILTERS = ("profile", "like", "dislike", "family", "fact", "trait", "habit", "goal", "moment", "schedule", "keyed")
PAGE = 20
MAX_RECALL = 50  # the memory tool's own limit


@dataclass
class Entry:
    at: int
    kind: str
    text: str
    where: str
    key: str
    record: dict[str, Any] = field(default_factory=dict)


@dataclass
class Cursor:
    """Entries newer than `at`, and those at `at` whose keys are in `shown`, were on earlier pages."""

    at: int
    shown: frozenset[str] = frozenset()

    def encode(self) -> str:
        return f"{self.at}:" + ",".join(sorted(self.shown))

    @classmethod
    def decode(cls, text: str | None) -> Cursor | None:
        if not text:
            return None
        at, _, keys = text.partition(":")
        try:
            return cls(int(at), frozenset(k for k in keys.split(",") if k))
        except ValueError:
            return None

    def admits(self, entry: Entry) -> bool:
        return entry.at < self.at or (entry.at == self.at and entry.key not in self.shown)


def entry_text(kind: str, record: dict[str, Any]) -> str:
    if kind == "family":
        return f"{record.get('relation', '')} {record.get('name', '')}".strip()
    if kind == "moment":
        topic = record.get("topic") or ""
        return f"{topic}：{record.get('content', '')}" if topic else str(record.get("content", ""))
    if kind == "keyed":  # the page shows the category in words beside it
        return str(record.get("payload", ""))
    if kind == "schedule":
        done = " ✓" if record.get("completed") else ""
        return f"{record.get('datetime', '')} {record.get('content', '')}{done}"
    return str(record.get("content", ""))


def schedule_time(record: dict[str, Any], utc_offset: int) -> str:
    """A schedule's local 'YYYY-MM-DD HH:MM': `datetime` as `read` gives it, or from an export's `when`."""
    if record.get("datetime"):
        return str(record["datetime"])
    return (datetime.fromtimestamp(int(record.get("when") or 0), timezone.utc) + timedelta(seconds=utc_offset)).strftime("%Y-%m-%d %H:%M")


def _number(value: Any) -> int:
    return value if isinstance(value, int) else 0


def _local_unix(text: str, utc_offset: int) -> int:
    when = datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=timezone.utc)
    return int(when.timestamp()) - utc_offset


def hot_entries(records: list[dict[str, Any]], utc_offset: int) -> list[Entry]:
    """Timeline entries for exported records that `recall` does not cover."""
    out = []
    for record in records:
        kind = record.get("type")
        if kind in RECALLED or kind in ("affection", "chat") or kind is None:
            continue  # the chat ring is the conversation itself, not something remembered
        if kind == "schedule":
            record = dict(record, datetime=schedule_time(record, utc_offset))
            at = int(record.get("learned_at") or _local_unix(record["datetime"], utc_offset))
            key = f"schedule:{record['content']}@{record['datetime']}"
            where = "schedule"
        elif kind == "keyed":
            at = int(record.get("updated_at") or record.get("created_at") or 0)
            key = f"keyed:{record['key']}"
            where = "keyed"
        else:
            at = int(record.get("learned_at") or 0)
            key = f"{kind}:{record.get('id', record.get('content'))}"
            where = "nvs"
        out.append(Entry(at, kind, entry_text(kind, record), where, key, record))
    return out


def wanted(entry: Entry, kind_filter: str | None, keyword: str | None) -> bool:
    if kind_filter:
        if kind_filter == "profile" and entry.kind not in PROFILE_TYPES:
            return False
        if kind_filter != "profile" and entry.kind != kind_filter:
            return False
    return not keyword or keyword.casefold() in entry.text.casefold()


async def recalled_entries(
    client: DeviceClient, kind: str, keyword: str | None, cursor: Cursor | None, need: int
) -> tuple[list[Entry], bool]:
    """Up to `need` entries of `kind` the cursor admits, and whether `recall` may hold more."""
    limit = min(MAX_RECALL, need + (len(cursor.shown) if cursor else 0))
    args: dict[str, Any] = {"action": "recall", "type": kind, "limit": limit}
    if keyword:
        args["keyword"] = keyword
    if cursor is None:
        answer = await client.memory(**args)
    else:
        # Up to the cursor's second, not its day: a day may hold far more than one recall answers.
        answer = await client.sync(**args, until=cursor.at)
    items = answer.get("items", []) if isinstance(answer, dict) else []
    entries = []
    for item in items:
        where = "nvs" if item.get("in") == "nvs" else "archive"
        entry = Entry(int(item.get("learned_at") or 0), kind, entry_text(kind, item), where,
                      f"{kind}:{item.get('id', item.get('content'))}", item)
        if cursor is None or cursor.admits(entry):
            entries.append(entry)
    return entries, len(items) >= limit


async def timeline_page(
    client: DeviceClient,
    records: list[dict[str, Any]],
    utc_offset: int,
    kind_filter: str | None = None,
    keyword: str | None = None,
    cursor: Cursor | None = None,
    page: int = PAGE,
) -> tuple[list[Entry], Cursor | None]:
    """One page of the merged timeline and the cursor of the next (None on the last page)."""
    candidates = [e for e in hot_entries(records, utc_offset)
                  if wanted(e, kind_filter, keyword) and (cursor is None or cursor.admits(e))]
    more = False
    for kind in RECALLED:
        if kind_filter and kind_filter != kind:
            continue
        found, full = await recalled_entries(client, kind, keyword, cursor, page + 1)
        candidates.extend(e for e in found if wanted(e, kind_filter, None))
        more = more or full
    # Within one second the device's ids tell the order things were learned in.
    candidates.sort(key=lambda e: (e.at, _number(e.record.get("id")), e.key), reverse=True)
    shown = candidates[:page]
    if not shown or (len(candidates) <= page and not more):
        return shown, None
    last = shown[-1].at
    keys = {e.key for e in shown if e.at == last}
    if cursor is not None and cursor.at == last:
        keys |= cursor.shown
    return shown, Cursor(last, frozenset(keys))
