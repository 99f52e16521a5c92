# memory_sync's reads for the host: recall up to a second (the dashboard's timeline pages) and the
# config without its secrets (`xzmem backup`). Loaded by the first of them; a conversation never is.

from memory import mcp


def answer_steps(memory, action, args):
    """The answer to memory_sync `recall` or `config`, as a generator of steps (memory.steps)."""
    if action == "config":
        return _public_config()
    until = args.get("until")
    if until is not None and (not isinstance(until, int) or isinstance(until, bool) or until < 0):
        raise ValueError("until must be Unix seconds, got %r" % (until,))
    kind = args.get("type")
    if not kind:
        raise ValueError("type is required")
    return mcp.streamed((yield from memory.recall_steps(kind, args.get("keyword"), args.get("start_date"),
                                                        args.get("end_date"), args.get("limit"), until)))


def _public_config():
    """The device's /config.json without its secrets (memory.config.public)."""
    from memory import app, config, forget  # a missing file gives the defaults, as at boot

    out = config.public(config.load(app.CONFIG_PATH))
    forget("config")  # read for a backup now and then: not kept in RAM
    return out
