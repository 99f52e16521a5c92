# memory_sync's `retract` op: take back what one earlier write stored, only while it is still stored.
#
# A parent rejecting an extraction-log entry must not delete a later correction (the name written
# first as 小米粒 and corrected to 陈小米 stays 陈小米). The op carries what the entry wrote; the
# check and the delete happen in this one op, inside a batch the dispatcher's lock keeps whole, so no
# other write comes between them. When the memory is not what the entry wrote any more, nothing
# changes and the answer is CHANGED with what is there now. With `replace` the record's text is
# changed to that instead of deleted (an edited entry), under the same check.
#
# Loaded by the first retract; apply and the memory tool do not need it.

from memory import clock
from memory.records import trim

_PROFILE = ("name", "age", "gender", "location", "birthday")
_NOTES = ("fact", "trait", "habit", "goal", "moment", "like", "dislike")


def retract(memory, op):
    """{"result": DELETED|UPDATED|ADDED|CHANGED, "detail"?, "now"?} for one `retract` op."""
    kind = op.get("type")
    replace = op.get("replace")
    if replace is not None and (not isinstance(replace, str) or not trim(replace)):
        raise ValueError("replace must be a non-empty string, got %r" % (replace,))
    if kind == "keyed":
        return _keyed(memory, op, replace)
    if kind == "schedule":
        return _schedule(memory, op, replace)
    store = memory.store
    current = store.read(kind)  # an unknown type is refused here, before anything changes
    if kind in _PROFILE:
        wrote = _text(op, "content")
        now = [str(r["content"]) for r in current]
        if now != [wrote]:
            return _changed(kind, wrote, now)
        if replace is not None:
            return store.write(kind, {"content": int(replace) if kind == "age" and replace.isdigit() else replace})
        return store.delete(kind)
    if kind == "family":
        name, relation = _text(op, "name"), op.get("relation")
        for r in current:
            if r["name"] == name and (relation is None or r["relation"] == trim(str(relation))):
                return store.delete("family", {"name": r["name"], "relation": r["relation"]})
        return _changed(kind, "%s %s" % (relation or "", name), ["%s %s" % (r["relation"], r["name"]) for r in current])
    if kind not in _NOTES:
        raise ValueError("retract: type must be keyed, schedule, family, %s or %s" % (", ".join(_PROFILE), ", ".join(_NOTES)))
    wrote = _text(op, "content")
    topic = op.get("topic")
    for r in current:
        if r["content"] == wrote and (kind != "moment" or topic is None or r["topic"] == trim(str(topic))):
            out = store.delete(kind, {"content": wrote} if kind in ("like", "dislike") else {"id": r["id"]})
            if replace is None:
                return out
            fields = {"content": replace}
            if kind == "moment":
                fields["topic"] = r["topic"]
            return store.write(kind, fields)
    return _changed(kind, wrote, None)


def _schedule(memory, op, replace):
    wrote = _text(op, "content")
    when = clock.parse_local_datetime(op.get("datetime"))
    for ev in memory.store.events():
        if ev.content == wrote and ev.when == when:
            if replace is None:
                return {"result": memory.store.delete_event(ev)}
            ev.content = trim(replace)
            return {"result": memory.store.update_event(ev)}
    return _changed("schedule", "%s %s" % (op.get("datetime"), wrote), None)


def _keyed(memory, op, replace):
    if memory.keyed is None:
        raise OSError("keyed memories need the memory partition, which is not mounted")
    key = op.get("key")
    wrote = _text(op, "payload")
    rec = memory.keyed.get(key)
    if rec is None or rec.get("payload") != wrote:
        return _changed(key, wrote, None if rec is None else [rec.get("payload")])
    if replace is None:
        return memory.keyed.delete(key)
    rec = dict(rec)
    rec["payload"] = replace
    rec["updated_at"] = None  # put() stamps it now
    return memory.keyed.put(rec)


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
