# The `memory` and `memory_sync` tool definitions: names and JSON schemas (descriptions: tool_text).
#
# Kept apart from the handlers: loaded to check a call's arguments or to list the tools, then unloaded.

MEMORY_TYPES = (
    "name", "age", "gender", "location", "birthday",
    "like", "dislike", "family",
    "fact", "trait", "habit", "moment", "goal",
    "schedule", "chat", "coins", "mood",
)
RECALL_TYPES = ("fact", "moment", "event")
ACTIONS = ("read", "write", "delete", "complete_schedule", "recall", "search")

MEMORY_SCHEMA = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": list(ACTIONS), "description": "操作 / operation"},
        # recall also takes "event" (schedules, past and present): one enum holds both lists.
        "type": {"type": "string", "enum": list(MEMORY_TYPES) + ["event"],
                 "description": "记忆类型；recall 用 fact/moment/event / memory type (recall: fact, moment, event)"},
        "content": {"type": "string", "description": "内容；年龄写数字 / the text to remember (an age as digits)"},
        "amount": {"type": "integer", "description": "coins 增加的金币数 / coins to add"},
        "datetime": {"type": "string", "description": "YYYY-MM-DD HH:MM 或每年的 MM-DD；同名日程完成或删除时用它指定哪一个"},
        "repeat": {"type": "string", "enum": ["none", "daily", "weekly", "monthly", "yearly"]},
        "event_type": {"type": "string"},
        "significance": {"type": "integer", "minimum": 1, "maximum": 5},
        "priority": {"type": "integer", "minimum": 1, "maximum": 5, "description": "日程优先级 / priority"},
        "force": {"type": "boolean", "description": "时间冲突时仍然添加 / add despite a conflict"},
        "relation": {"type": "string", "description": "家人关系，如 妈妈 / family relation"},
        "name": {"type": "string", "description": "家人名字 / family member's name"},
        "closeness": {"type": "integer", "minimum": 1, "maximum": 5, "description": "亲密度 / closeness"},
        "topic": {"type": "string", "description": "特殊时刻主题 / moment topic"},
        "emotion": {"type": "string", "enum": ["neutral", "happy", "sad", "excited", "worried", "touched"]},
        "intensity": {"type": "integer", "minimum": 1, "maximum": 5},
        "importance": {"type": "integer", "minimum": 1, "maximum": 5},
        "keyword": {"type": "string", "description": "recall/search 关键词 / keyword"},
        "start_date": {"type": "string", "description": "recall 起始日期 YYYY-MM-DD"},
        "end_date": {"type": "string", "description": "recall 结束日期 YYYY-MM-DD"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50, "description": "最多条数，默认 10"},
        "id": {"type": "integer", "minimum": 1, "description": "delete 按编号 / record id to delete"},
        "role": {"type": "string", "enum": ["user", "assistant"], "description": "chat 消息角色 / chat role"},
    },
    "required": ["action"],
    "additionalProperties": False,
}

SYNC_SCHEMA = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["apply", "export", "import", "stats", "set_clock", "recall", "config"]},
        "batch_id": {"type": "string"},
        "ops": {"type": "array", "items": {"type": "object"}},
        "records": {"type": "array", "items": {"type": "object"}},
        "cursor": {"type": "string"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 200},
        "archive": {"type": "boolean", "description": "export: the archive too (it comes first)"},
        "unix": {"type": "integer"},
        "utc_offset": {"type": "integer"},
    },
    "required": ["action"],
}
