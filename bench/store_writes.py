"""NVS writes of a 10-turn conversation, of one changed record per type, and the entries used with
every type full.

Prints one JSON object. The conversation writes a name, 3 likes, 2 family members, 4 facts,
1 moment and 2 schedules over 10 turns (targets: at most 4 KB written, one flush), first on an
empty store, then again on a store already holding every type at capacity (so facts and moments
hand their oldest to the archive). A third run also keeps the 20 chat messages of those turns in
the chat ring. Then, on a full store, one record of each type is changed and flushed alone: the
bytes that flush writes are the flash wear of one change (a key holding several records is
rewritten whole). The simulated NVS counts entries as ESP-IDF lays them out.
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for sub in ("lib", "firmware/sim", "tests/device"):
    sys.path.insert(0, str(ROOT / sub))

import esp32  # noqa: E402
from memory.store import Event, Store  # noqa: E402
from store_helpers import T0, Clock, FakeArchive, fill_every_type  # noqa: E402

_USABLE = 1386
_RESERVE = 200

_TURNS = [
    [("name", {"content": "王浩宇"})],
    [("like", {"content": "打篮球"})],
    [("like", {"content": "北京烤鸭"}), ("family", {"relation": "妈妈", "name": "李娟", "closeness": 5})],
    [("fact", {"content": "主人在北京做软件工程师"})],
    [("like", {"content": "科幻电影"}), ("fact", {"content": "主人养了一只叫豆豆的猫"})],
    [("family", {"relation": "妹妹", "name": "王小雨", "closeness": 4})],
    [("schedule", 1), ("fact", {"content": "主人每周六上午去打球"})],
    [("moment", {"topic": "升职", "content": "主人今天升职了，特别开心", "emotion": "happy", "intensity": 5,
                 "importance": 5})],
    [("schedule", 2)],
    [("fact", {"content": "主人下个月要去上海出差"})],
]


def conversation(store, clock, flash, chat=False):
    writes_before = (flash.writes, flash.entries_written, flash.bytes_written)
    flushes = 0
    for turn in _TURNS:
        clock.t += 45
        if chat:
            store.write("chat", {"role": "user", "content": f"第{clock.t}秒：主人说了一句话"})
            store.write("chat", {"role": "assistant", "content": "好的，我记住啦"})
        for kind, fields in turn:
            if kind == "schedule":
                store.add_event(Event(f"团队会议 {fields}", clock.t + 86400 * fields, "meeting", priority=4))
            else:
                store.write(kind, fields)
    writes_during = flash.writes - writes_before[0]
    pending = store.pending()
    n = store.end_conversation()
    flushes += 1 if n else 0
    return {
        "nvs_writes_during_turns": writes_during,
        "pending_at_end": pending,
        "flushes": flushes,
        "nvs_writes": flash.writes - writes_before[0],
        "entries_written": flash.entries_written - writes_before[1],
        "bytes_written": flash.bytes_written - writes_before[2],
        "target_bytes": 4096,
    }


def one_change_each(store, flash):
    """Bytes one flush writes for a single new or changed record of each type, on a full store (a
    record is deleted first, unmeasured, to make room). A new record also writes the id counter (32 B)."""
    member = store.read("family")[0]
    adds = {
        "family": ("family", {"relation": member["relation"], "name": member["name"],
                              "closeness": 1 + member["closeness"] % 5}),
        "like": ("like", {"content": "one more like"}),
        "fact": ("fact", {"content": "one more fact"}),
        "trait": ("trait", {"content": "one more trait"}),
        "habit": ("habit", {"content": "one more habit"}),
        "moment": ("moment", {"content": "one more moment"}),
        "goal": ("goal", {"content": "one more goal"}),
        "chat": ("chat", {"role": "user", "content": "one more line"}),
    }
    out = {}
    for kind, (_, fields) in adds.items():
        if kind in ("fact", "trait", "habit", "moment", "goal"):
            store.delete(kind, {"id": store.read(kind)[0]["id"]})
        elif kind == "like":
            store.delete("like", {"content": store.read("like")[0]["content"]})
        store.flush()
        before = flash.bytes_written
        store.write(kind, fields)
        store.flush()
        out[kind] = flash.bytes_written - before
    store.delete_event(store.events()[0])
    store.flush()
    before = flash.bytes_written
    store.add_event(Event("one more plan", T0 + 86400, "meeting"))
    store.flush()
    out["schedule"] = flash.bytes_written - before
    return out


def main():
    flash = esp32.configure_nvs(reserve=_RESERVE)
    clock = Clock(T0)
    empty = conversation(Store(archiver=FakeArchive(), now=clock), clock, flash)
    flash = esp32.configure_nvs(reserve=_RESERVE)
    clock = Clock(T0)
    with_chat = conversation(Store(archiver=FakeArchive(), now=clock), clock, flash, chat=True)

    flash = esp32.configure_nvs(reserve=_RESERVE)
    archive = FakeArchive()
    store = Store(archiver=archive, now=Clock(T0 - 3600))
    fill_every_type(store)
    store.flush()
    full_entries = flash.namespace_entries("xzmem")
    budget = {
        "entries_ours_all_full": full_entries,
        "entries_by_formula": store.stats()["entries"]["all_full"],
        "reserve_wifi_phy": _RESERVE,
        "usable": _USABLE,
        "free_after_reserve": flash.entries_free(),
        "free_percent": round(100.0 * flash.entries_free() / _USABLE, 1),
        "target_free_percent": 30,
    }
    per_change = one_change_each(Store(archiver=FakeArchive(), now=Clock(T0)), flash)
    flash = esp32.configure_nvs(reserve=_RESERVE)
    archive = FakeArchive()
    store = Store(archiver=archive, now=Clock(T0 - 3600))
    fill_every_type(store)
    store.flush()
    clock = Clock(T0)
    store = Store(archiver=archive, now=clock)
    # Room for what the conversation adds where a type has no archive: 3 likes, 2 members, 2 events.
    for like in store.read("like")[:3]:
        store.delete("like", {"content": like["content"]})
    for member in store.read("family")[:2]:
        store.delete("family", {"relation": member["relation"], "name": member["name"]})
    for ev in store.events()[:2]:
        store.delete_event(ev)
    store.flush()
    full = conversation(store, clock, flash)
    full["archived"] = archive.calls
    print(json.dumps({"conversation_on_empty_store": empty, "conversation_on_full_store": full,
                      "conversation_with_20_chat_messages": with_chat,
                      "bytes_written_per_single_change": per_change, "budget": budget}, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
