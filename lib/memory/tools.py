# The MCP tools: `memory` for the model, `memory_sync` for the host companion (trusted links only).

from memory import clock, forget, mcp, steps
from memory.refusal import Refusal


def _need(args, name):
    value = args.get(name)
    if value is None or value == "":
        raise Refusal("%s is required for action %s" % (name, args.get("action")), "missing", name)
    return value


def _text():
    # The descriptions: loaded to list the tools, then unloaded.
    from memory import tool_text

    forget("tool_text")
    return tool_text


def _definitions():
    # The tool schemas (dicts in RAM) are needed only to list the tools and to
    # check a call's arguments: loaded for that one use, then unloaded again.
    from memory import tool_schema

    forget("tool_schema")
    return tool_schema


class MemoryTool(mcp.Tool):
    name = "memory"
    spoken = True

    @property
    def description(self):
        return _text().MEMORY_DESCRIPTION

    @property
    def input_schema(self):
        return _definitions().MEMORY_SCHEMA

    def __init__(self, memory):
        self.memory = memory  # a memory.service.MemoryService

    def call(self, args, link):
        return steps.finish(self.call_steps(args, link))

    def call_steps(self, args, link):
        m = self.memory
        action = args["action"]
        yield
        if action == "read":
            kind = args.get("type")
            if not kind:
                # The biggest answer: sent as it is written. It tells the untold reminders.
                return mcp.Streamed(m.overview_json if not link.peek else m.overview_peek)
            return mcp.streamed(m.read(kind))
        if action == "write" or action == "delete" or action == "complete_schedule":
            try:
                if action == "write":
                    return (yield from m.write_steps(_need(args, "type"), args))
                return self._change(action, args)
            finally:
                m.store.commit()  # before the answer leaves: an acknowledged change survives a power cut
        # The answers that grow with memory (a recall may carry 50 records) go out one record at a time.
        if action == "recall":
            return mcp.streamed((yield from m.recall_steps(_need(args, "type"), args.get("keyword"), args.get("start_date"),
                                                           args.get("end_date"), args.get("limit"))))
        return mcp.streamed((yield from m.search_steps(_need(args, "keyword"), args.get("limit"))))

    def _change(self, action, args):
        m = self.memory
        if action == "delete":
            return m.delete(_need(args, "type"), args)
        return m.complete_schedule(_need(args, "content"), args.get("datetime"))


class SyncTool(mcp.Tool):
    name = "memory_sync"
    annotations = {"audience": ["user"]}
    user_only = True

    @property
    def description(self):
        return _text().SYNC_DESCRIPTION

    @property
    def input_schema(self):
        return _definitions().SYNC_SCHEMA

    def __init__(self, memory, sync):
        self.memory = memory
        self._sync = sync  # a memory.sync.Sync, or a function that makes one when first needed

    @property
    def sync(self):
        if callable(self._sync):
            self._sync = self._sync()
        return self._sync

    def call(self, args, link):
        return steps.finish(self.call_steps(args, link))

    def call_steps(self, args, link):
        action = args["action"]
        yield
        if action == "apply":
            return (yield from self.sync.apply_steps(_need(args, "batch_id"), _need(args, "ops")))
        if action == "import":
            return (yield from self.sync.import_steps(_need(args, "batch_id"), _need(args, "records")))
        if action == "export":
            page = yield from self.sync.export_steps(args.get("cursor"), args.get("limit") or 100, args.get("archive") is True)
            return mcp.streamed(page)
        if action == "stats":
            return (yield from self.memory.stats_steps())
        if action == "recall":  # the memory tool's, with `until` for the host's timeline pages
            return mcp.streamed((yield from self.sync.recall_steps(args)))
        if action == "config":  # without its secrets, for `xzmem backup`; read now and then, not kept
            from memory import app, config

            out = config.public(config.load(app.CONFIG_PATH))
            forget("config")
            return out
        unix = clock.check_settable(_need(args, "unix"))
        offset = args.get("utc_offset")
        if offset is not None:
            clock.set_utc_offset(offset)
        clock.set_now(unix)
        return {"now": clock.iso_local(clock.now()), "utc_offset": clock.utc_offset()}

