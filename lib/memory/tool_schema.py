# The `memory` and `memory_sync` tool definitions: names, descriptions and JSON schemas.
#
# Kept apart from the handlers so the descriptions can be read and sized on their own.

MEMORY_TYPES = (
    "name", "age", "gender", "location", "birthday",
    "like", "dislike", "family",
    "fact", "trait", "habit", "moment", "goal",
    "schedule", "chat", "coins", "mood",
)
RECALL_TYPES = ("fact", "moment", "event")
ACTIONS = ("read", "write", "delete", "complete_schedule", "recall", "search")

MEMORY_DESCRIPTION = (
    "长期记忆。对话开始先 read（无 type）取用户档案、喜好、家人、近期事实、日程和亲密度；"
    "结果里有 reminders 就先把其中的 text 告诉用户。"
    "按 relationship 阶段说话（style 是一句提示）：陌生期客气，称“您”；熟悉期自然，称“你”，偶尔撒娇；"
    "亲密期随意，可开玩笑；深厚期信任，可聊心事；灵魂伴侣完全放松，用默契的小梗。"
    "用户说出名字、喜好、家人、计划时 write；信息有误时 delete；用户说做完了日程就 complete_schedule；"
    "问起以前的事用 recall（type=fact/moment/event，可带 keyword 或日期）；找某件事用 search。"
    " Long-term memory: read at the start of every conversation and first tell the user any "
    "reminders (their text); speak as the relationship stage says (style): stranger polite and formal, "
    "acquaintance natural, friend casual with jokes, close friend trusting, soulmate at ease with "
    "in-jokes. Write what the user tells about themselves; delete wrong facts; complete_schedule when "
    "a plan is done; recall for old memories."
)

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

SYNC_DESCRIPTION = (
    "Host companion only: apply op batches from the memory pipelines (idempotent by batch_id), "
    "export or import all memory, report storage stats, set the device clock."
)

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
