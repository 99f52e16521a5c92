# memory_sync's `retract` op: take back what one earlier write stored, only while it is still stored.
#
# A parent's reject must not delete a later correction (小米粒, corrected to 陈小米, stays 陈小米).
# The op carries what the write stored; check and change happen in this one op, inside a batch the
# dispatcher's lock keeps whole. Changed since: nothing changes, the answer is CHANGED with what is
# there now. With `replace` the text is changed instead of deleted (an edited entry). Loaded by the
# first retract.

from memory import clock
from memory.records import trim

_PROFILE = ("name", "age", "gender", "location", "birthday")
_TEXTS = ("fact", "trait", "habit", "goal", "moment", "like", "dislike")


def retract(memory, op):
    """{"result": DELETED|UPDATED|ADDED|CHANGED, "detail"?, "now"?} for one `retract` op."""
    kind = op.get("type")
    new = op.get("replace")
    if new is not None and (not isinstance(new, str) or not trim(new)):
        raise ValueError("replace must be a non-empty string, got %r" % (new,))
    store = memory.store
    if kind == "keyed":
        if memory.keyed is None:
            raise OSError("keyed memories need the memory partition, which is not mounted")
        wrote = _text(op, "payload")
        rec = memory.keyed.get(op.get("key"))
        if rec is None or rec["payload"] != wrote:
            return _changed(op["key"], wrote, None if rec is None else [rec["payload"]])
        if new is None:
            return memory.keyed.delete(op["key"])
        rec["payload"] = new
        rec["updated_at"] = None  # put() stamps it now
        return memory.keyed.put(rec)
    if kind == "schedule":
        wrote = _text(op, "content")
        said = op.get("datetime")
        # A yearly date (MM-DD, time optional) names the day and not the year: any year's will do.
        yearly = isinstance(said, str) and len(said) in (5, 11) and said[2:3] == "-"
        when = None if yearly else clock.parse_local_datetime(said)
        for ev in store.events():
            if ev.content == wrote and (clock.format_local(ev.when)[5:5 + len(said)] == said if yearly
                                        else ev.when == when):
                if new is None:
                    return {"result": store.delete_event(ev)}
                ev.content = trim(new)
                return {"result": store.update_event(ev)}
        return _changed(kind, wrote, None)
    now = store.read(kind)  # an unknown type is refused here, before anything changes
    if kind in _PROFILE:
        wrote = _text(op, "content")
        values = [str(r["content"]) for r in now]
        if values != [wrote]:
            return _changed(kind, wrote, values)
        if new is None:
            return store.delete(kind)
        return store.write(kind, {"content": int(new) if kind == "age" and new.isdigit() else new})
    if kind == "family":
        name, relation = _text(op, "name"), op.get("relation")
        for r in now:
            if r["name"] == name and (relation is None or r["relation"] == trim(str(relation))):
                return store.delete(kind, {"name": name, "relation": r["relation"]})
        return _changed(kind, name, ["%s %s" % (r["relation"], r["name"]) for r in now])
    if kind not in _TEXTS:
        raise ValueError("retract: type must be keyed, schedule, family or one of %s" % ", ".join(_PROFILE + _TEXTS))
    wrote = _text(op, "content")
    topic = op.get("topic")
    for r in now:
        if r["content"] == wrote and (topic is None or r.get("topic", topic) == trim(str(topic))):
            out = store.delete(kind, {"content": wrote} if kind in ("like", "dislike") else {"id": r["id"]})
            if new is None:
                return out
            return store.write(kind, {"content": new, "topic": r["topic"]} if kind == "moment" else {"content": new})
    return _changed(kind, wrote, None)


def _text(op, name):
    value = op.get(name)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not trim(value):
        raise ValueError("retract needs %s: what the write stored, got %r" % (name, value))
    return trim(value)


def _changed(what, wrote, now):
    out = {"result": "CHANGED", "detail": "%s is no longer %r; nothing changed" % (what, wrote)}
    if now is not None:
        out["now"] = now
    return out
