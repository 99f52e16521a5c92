# The device's memory as one service: hot store, schedules, archive and keyed memories behind the tools.

from micropython import const

from memory import clock, forget, mcp, statefile, steps
from memory.refusal import Refusal

_DEFAULT_LIMIT = const(10)
_MAX_LIMIT = const(50)
_RECENT_FACTS = const(5)
_RECENT_MOMENTS = const(3)


def _affinity():
    # The stage and style tables are wanted by reads and coin writes only: loaded for the call and
    # unloaded again, so their text is not on the heap between calls (.mpy).
    from memory import affinity

    forget("affinity")
    return affinity


_SEARCH_KINDS = ("like", "dislike", "family", "fact", "trait", "habit", "moment", "goal")
RECALL_KINDS = ("fact", "moment", "event")


def check_limit(value):
    if value is None:
        return _DEFAULT_LIMIT
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= _MAX_LIMIT:
        raise Refusal("limit must be 1-%d, got %r" % (_MAX_LIMIT, value), "range", "limit", value, (1, _MAX_LIMIT))
    return value


def coin_amount(args):
    """The coins a write adds: `amount`, or a number given as `content`."""
    amount = args.get("amount", args.get("content"))
    try:
        return int(amount)
    except (TypeError, ValueError):
        raise Refusal("coins needs an integer amount, got %r" % (amount,), "type", "amount", amount, "integer")


def _contains(item, needle):
    for key in ("content", "topic", "name", "relation", "payload"):
        value = item.get(key)
        if isinstance(value, str) and needle in value.lower():
            return True
    return False


def _last(items, n):
    return items[len(items) - n :] if len(items) > n else items


class MemoryService:
    def __init__(self, store, schedules, archive=None, keyed=None, device_id="", language="zh"):
        self.language = language  # of the stage's style hint
        self.store = store
        self.schedules = schedules
        self.archive = archive
        self.keyed = keyed
        self.device_id = device_id

    # ---- reads ----

    def overview_peek(self):
        """overview_json() for a caller that only looks: reminders stay untold."""
        return self.overview_json(False)

    def overview_json(self, tell=True):
        """What a conversation opens with (seed 003 §6.1) as JSON text, in pieces (a generator).

        Kept small (recent facts and moments only) and never held whole: each section is read from
        the store when its turn comes and each record becomes JSON on its own, so the heap holds one
        section's records and one short piece at a time, however full memory is.
        """
        s = self.store
        found = s.read("profile")
        profile = found[0] if found else {}
        for key in [k for k in profile if k == "id" or k == "learned_at" or k.endswith("_learned_at")]:
            profile.pop(key)
        yield '{"profile":' + mcp.json_text(profile)
        yield ',"preferences":{"likes":'
        yield from mcp.json_array(x["content"] for x in s.read("like"))
        yield ',"dislikes":'
        yield from mcp.json_array(x["content"] for x in s.read("dislike"))
        yield '},"family":'
        yield from mcp.json_array({"relation": x["relation"], "name": x["name"], "closeness": x["closeness"]}
                          for x in s.read("family"))
        yield ',"facts":'
        yield from mcp.json_array(x["content"] for x in _last(s.read("fact"), _RECENT_FACTS))
        for kind, key in (("trait", "traits"), ("habit", "habits"), ("goal", "goals")):
            yield ',"%s":' % key
            yield from mcp.json_array(x["content"] for x in s.read(kind))
        yield ',"moments":'
        yield from mcp.json_array({"topic": x["topic"], "content": x["content"]}
                          for x in _last(s.read("moment"), _RECENT_MOMENTS))
        yield ',"schedules":'
        yield from mcp.json_array(self.schedules.upcoming())
        # Due and missed reminders no path has told the user yet: the model says them first.
        yield ',"reminders":'
        yield from mcp.json_array(self.schedules.take_untold(tell=tell))
        affection = s.affection()
        coins = affection["total_coins_spent"]
        now = clock.format_local(clock.now()) if clock.is_set() else None
        affinity = _affinity()
        yield ',"total_coins_spent":%d,"relationship":%s,"style":%s,"mood":%s,"now":%s}' % (
            coins, mcp.json_text(affinity.stage(coins)[1]), mcp.json_text(affinity.style(coins, self.language)),
            mcp.json_text(affection["mood"]), mcp.json_text(now))

    def read(self, kind):
        """One type's records (the overview, read without a type, is overview_json())."""
        if kind == "schedule":
            return {"type": kind, "items": self.schedules.upcoming()}
        if kind == "coins" or kind == "mood" or kind == "affection":
            a = self.store.affection()
            affinity = _affinity()
            a.update(affinity.describe(a["total_coins_spent"]))
            a["style"] = affinity.style(a["total_coins_spent"], self.language)
            return {"type": "affection", "items": [a]}
        if kind == "keyed":
            return {"type": kind, "items": self.keyed.list() if self.keyed else []}
        return {"type": kind, "items": self.store.read(kind)}

    def search(self, keyword, limit=None):
        """The profile, hot memories of every kind, schedules and the host's keyed memories that
        mention `keyword`."""
        return steps.finish(self.search_steps(keyword, limit))

    def search_steps(self, keyword, limit=None):
        """search() as a generator (memory.steps): keyed memories are read a step each."""
        limit = check_limit(limit)
        if isinstance(keyword, int) and not isinstance(keyword, bool):
            keyword = str(keyword)  # a number to look for, as the model may send it unquoted
        if not isinstance(keyword, str):
            raise Refusal("keyword must be text, got %r" % (keyword,), "type", "keyword", keyword, "string")
        needle = keyword.lower()
        found = []
        found_profile = self.store.read("profile")
        for key, value in (found_profile[0] if found_profile else {}).items():
            # name, location, birthday...: the profile's own fields are memories too
            if key != "id" and not key.endswith("learned_at") and needle in str(value).lower():
                found.append({"type": key, "content": value})
        for kind in _SEARCH_KINDS:
            for item in self.store.read(kind):
                if _contains(item, needle):
                    item["type"] = kind
                    found.append(item)
        for item in self.schedules.upcoming():
            if _contains(item, needle):
                item["type"] = "schedule"
                found.append(item)
        if self.keyed is not None:
            keyed = yield from self.keyed.list_steps()
            for item in keyed:
                if _contains(item, needle):
                    item["type"] = "keyed"
                    found.append(item)
        found = found[:limit]
        return {"keyword": keyword, "count": len(found), "items": found}

    def recall(self, kind, keyword=None, start_date=None, end_date=None, limit=None, until=None):
        """Memories of `kind`, newest first: those still in NVS, then the archive; duplicates removed.
        `until` (Unix seconds) keeps those learned then or before: the host's pages of a busy day."""
        return steps.finish(self.recall_steps(kind, keyword, start_date, end_date, limit, until))

    def recall_steps(self, kind, keyword=None, start_date=None, end_date=None, limit=None, until=None):
        """recall() as a generator (memory.steps): the archive is read a step at a time."""
        if kind not in RECALL_KINDS:
            raise Refusal("recall type must be one of fact, moment, event, got %r" % (kind,), "choice", "type", kind, RECALL_KINDS)
        limit = check_limit(limit)
        # Validated as exactly YYYY-MM-DD, the dates compare as text with clock.local_date().
        if start_date:
            clock.parse_date(start_date, "start_date")
        if end_date:
            clock.parse_date(end_date, "end_date")
        needle = keyword.lower() if keyword else None
        items = []
        seen = []
        hot = self.store.read("schedule" if kind == "event" else kind)
        hot.sort(key=lambda x: x["learned_at"], reverse=True)
        for item in hot:
            day = clock.local_date(item["learned_at"])
            if (start_date and day < start_date) or (end_date and day > end_date) or (needle and not _contains(item, needle)):
                continue
            if until is not None and item["learned_at"] > until:
                continue
            item["timestamp"] = clock.iso_local(item["learned_at"])
            item["type"] = kind
            item["in"] = "nvs"
            items.append(item)
            seen.append(item["id"])
            if len(items) >= limit:
                break
        if self.archive is not None and len(items) < limit:
            older = yield from self.archive.recall_steps(kind, keyword, start_date, end_date, limit, until)
            for item in older["items"]:
                if item.get("id") not in seen and len(items) < limit:
                    items.append(item)
        return {"type": kind, "count": len(items), "items": items}

    # ---- writes ----

    def write_steps(self, kind, args):
        """write() as a generator (memory.steps): a full table hands its oldest records to the
        archive first, in steps; the answer counts them under "archived"."""
        content = args.get("content")
        archived = 0
        if isinstance(content, str) and content.strip():  # a write refused for want of content moves nothing
            archived = yield from self.store.room_steps(kind)
        out = self.write(kind, args)
        if archived and isinstance(out, dict):
            out["archived"] = archived
        return out

    def write(self, kind, args):
        if kind == "schedule":
            return self.schedules.add(args.get("content"), args.get("datetime"), args.get("repeat"),
                                      args.get("priority"), bool(args.get("force")), fields=args)
        if kind == "coins":
            out = self.store.add_coins(coin_amount(args))
            out["relationship"] = _affinity().describe(self.store.affection()["total_coins_spent"])
            return out
        if kind == "mood":
            return self.store.set_affection({"mood": args.get("content", "")})
        return self.store.write(kind, args)

    def delete(self, kind, args):
        if kind == "schedule":
            return self.schedules.delete(args.get("content"), args.get("datetime"))
        return self.store.delete(kind, args)

    def complete_schedule(self, content, datetime_text=None):
        return self.schedules.complete(content, datetime_text=datetime_text)

    # ---- upkeep ----

    def stats(self):
        return steps.finish(self.stats_steps())

    def stats_steps(self):
        """stats() as a generator (memory.steps): the archive's segments are counted a step each."""
        out = {"device_id": self.device_id, "store": self.store.stats()}
        yield
        nvs = out["store"].get("nvs")
        if nvs:
            out["nvs"] = nvs
        out["pending_writes"] = self.store.pending()
        out["flash_bytes_written"] = _flash_bytes_written()
        if self.archive is not None:
            out["archive"] = yield from self.archive.stats_steps()
        yield
        out["keyed"] = self.keyed.count() if self.keyed else 0
        out["state_files_set_aside"] = statefile.moved
        out["clock"] = {"set": clock.is_set(), "now": clock.iso_local(clock.now()), "utc_offset": clock.utc_offset()}
        return out


def _flash_bytes_written():
    """NVS bytes written since boot: the simulator counts them; a board has no such counter."""
    import esp32

    return esp32.nvs_flash().bytes_written if hasattr(esp32, "nvs_flash") else None
