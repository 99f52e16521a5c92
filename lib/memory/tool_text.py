# The tools' descriptions (memory.tools): what tools/list shows the model.
#
# Kept apart from memory.tool_schema, which every call loads to check its arguments: the text is
# over 1 KB, and only a listing needs it. A tuple of sentences, each a string of its own, so that
# neither loading it nor listing it (memory.mcplist) needs a block that size.

MEMORY_DESCRIPTION = (
    "长期记忆。对话开始先 read（无 type）取用户档案、喜好、家人、近期事实、日程和亲密度；",
    "结果里有 reminders 就先把其中的 text 告诉用户。",
    "按 relationship 阶段说话（style 是一句提示）：陌生期客气，称“您”；熟悉期自然，称“你”，偶尔撒娇；",
    "亲密期随意，可开玩笑；深厚期信任，可聊心事；灵魂伴侣完全放松，用默契的小梗。",
    "用户说出名字、喜好、家人、计划时 write；信息有误时 delete；用户说做完了日程就 complete_schedule；",
    "问起以前的事用 recall（type=fact/moment/event，可带 keyword 或日期）；找某件事用 search。",
    " Long-term memory: read at the start of every conversation and first tell the user any ",
    "reminders (their text); speak as the relationship stage says (style): stranger polite and formal, ",
    "acquaintance natural, friend casual with jokes, close friend trusting, soulmate at ease with ",
    "in-jokes. Write what the user tells about themselves; delete wrong facts; complete_schedule when ",
    "a plan is done; recall for old memories.",
)

SYNC_DESCRIPTION = (
    "Host companion only: apply op batches from the memory pipelines (idempotent by batch_id), "
    "export or import all memory, report storage stats, set the device clock."
)
