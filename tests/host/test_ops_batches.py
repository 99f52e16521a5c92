"""Op batches follow docs/sync.md: limits, UTF-8 cuts on character boundaries, batch splitting."""

import pytest
from xzmem.device import ops


def test_cut_utf8_never_splits_a_character():
    text = "用户" * 100
    cut, was_cut = ops.cut_utf8(text, 200)
    assert was_cut and len(cut.encode()) == 198 and cut == "用户" * 33
    assert ops.cut_utf8("short", 200) == ("short", False)


def test_put_mem_cuts_payload_and_tags_and_says_so():
    built = ops.put_mem("mem_abc", "preference", "喜" * 100, 7, "user",
                        ["标签一二三四五六", "a", "b", "c", "d"], 1, 10, 10, 10)
    assert len(built.op["payload"].encode()) <= 200
    assert built.op["tags"] == ["标签一二三", "a", "b", "c"]  # 16 bytes hold 5 CJK characters
    assert any("payload cut" in n for n in built.notes)
    assert any("tags beyond 4" in n for n in built.notes)
    ops.validate_op(built.op)


@pytest.mark.parametrize(
    "kwargs, field",
    [({"key": "mem_TOO-BAD"}, "key"), ({"importance": 11}, "importance"), ({"source": "robot"}, "source")],
)
def test_put_mem_rejects_bad_fields_by_name(kwargs, field):
    args = dict(key="mem_ok", category="fact", payload="x", importance=5, source="user", tags=[],
                trigger_count=1, created_at=1, updated_at=1, last_triggered=1)
    args.update(kwargs)
    with pytest.raises(ValueError, match=field):
        ops.put_mem(**args)


def test_write_ops_are_validated():
    op = ops.write("schedule", "开会", datetime="2026-02-05 14:00", repeat="daily", priority=3)
    assert op == {"op": "write", "type": "schedule", "content": "开会", "datetime": "2026-02-05 14:00",
                  "repeat": "daily", "priority": 3}
    with pytest.raises(ValueError, match="datetime"):
        ops.write("schedule", "开会", datetime="明天")
    with pytest.raises(ValueError, match="type"):
        ops.write("hobby", "x")


def test_schedule_ops_carry_seed_003_event_fields_and_yearly_dates():
    op = ops.write("schedule", "妈妈生日", datetime="03-15", event_type="生日", emotion="happy", intensity=4,
                   significance=5)
    assert (op["datetime"], op["event_type"], op["emotion"], op["significance"]) == ("03-15", "生日", "happy", 5)
    assert ops.write("schedule", "纪念日", datetime="06-01 19:30", repeat="yearly")["repeat"] == "yearly"
    for fields, name in (({"event_type": "纪念日" * 2}, "event_type"), ({"significance": 6}, "significance"),
                         ({"emotion": "angry"}, "emotion"), ({"datetime": "3-15"}, "datetime"),
                         ({"datetime": "2026-03-15"}, "datetime"), ({"intensity": 0}, "intensity")):
        args = {"datetime": "03-15", **fields}
        with pytest.raises(ValueError, match=name):
            ops.write("schedule", "生日", **args)


def test_batches_hold_at_most_64_ops_with_distinct_ids():
    many = [ops.del_mem(f"mem_{i}") for i in range(130)]
    batches = ops.make_batches("changes", many)
    assert [len(b.ops) for b in batches] == [64, 64, 2]
    assert len({b.batch_id for b in batches}) == 3
    assert all(1 <= len(b.batch_id) <= 64 for b in batches)


def test_new_keys_fit_the_device_format():
    keys = {ops.new_key() for _ in range(200)}
    assert len(keys) == 200
    assert all(ops.KEY_RE.match(k) for k in keys)


def test_mood_carries_the_soul_state_code():
    assert ops.mood("开心", 6) == {"op": "mood", "mood": "开心", "soul_state_code": 6}
    assert ops.mood(None, 6) == {"op": "mood", "soul_state_code": 6}  # reflection: the mood is kept
    with pytest.raises(ValueError, match="soul_state_code"):
        ops.mood("x", 16)
