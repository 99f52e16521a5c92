# tools/list answered in pages (memory.mcp), and the size check a tool passes when it is registered.
#
# Loaded for each listing and unloaded after: clients list the tools once per connection.

from micropython import const

from memory.mcp import MAX_NAME, PAGE_BYTES, _escaped, _ParamsError, _response, _utf8_len, dumps

_CURSOR_RESERVE = const(16)  # bytes of ',"nextCursor":""' around the next tool's name
# The schema keys every model API takes: the Gemini library xiaozhi-esp32-server uses
# (google-generativeai 0.8.5) refuses a tool with minimum, maximum or additionalProperties in it.
# The device still checks those (memory.schema); a range is told in the description instead.
_LISTED = ("type", "description", "enum", "items", "properties", "required")


def listed(schema):
    """The part of a JSON schema a tools/list shows: _LISTED keys, a range moved into the description."""
    out = {}
    for key in _LISTED:
        if key in schema:
            value = schema[key]
            if key == "properties":
                value = {name: listed(spec) for name, spec in value.items()}
            elif key == "items" and isinstance(value, dict):
                value = listed(value)
            out[key] = value
    lo = schema.get("minimum")
    hi = schema.get("maximum")
    if lo is not None or hi is not None:
        span = "%s-%s" % (lo, hi) if lo is not None and hi is not None else (">=%s" % lo if hi is None else "<=%s" % hi)
        out["description"] = out["description"] + " (" + span + ")" if "description" in out else span
    return out


def entry_pieces(tool):
    """The tools/list entry of `tool` as JSON text in pieces: a description given as a tuple of
    sentences is escaped one at a time, the schema's properties one at a time, so no piece nears 1 KB."""
    yield '{"name":%s,"description":"' % dumps(tool.name)
    description = tool.description
    for part in description if isinstance(description, tuple) else (description,):
        yield _escaped(part)
    yield '","inputSchema":'
    yield from _schema_pieces(listed(tool.input_schema))
    annotations = tool.annotations
    if tool.user_only:
        annotations = dict(annotations or {})
        annotations["audience"] = ["user"]
    if annotations:
        yield ',"annotations":' + dumps(annotations)
    yield "}"


def _schema_pieces(schema):
    properties = schema.get("properties")
    if not properties:
        yield dumps(schema)
        return
    sep = "{"
    for key, value in schema.items():
        if key != "properties":
            yield sep + dumps(key) + ":" + dumps(value)
            sep = ","
    yield sep + '"properties":'
    sep = "{"
    for name, spec in properties.items():
        yield sep + dumps(name) + ":" + dumps(spec)
        sep = ","
    yield "}}"


def entry_bytes(tool):
    """Bytes of the entry as UTF-8, counted a piece at a time."""
    return sum(_utf8_len(piece) for piece in entry_pieces(tool))


def page(dispatcher, rid, params, link):
    """The tools/list response from `params['cursor']` on, as many entries as fit in PAGE_BYTES, as an
    iterator of pieces (the links send those as they come, memory.ws)."""
    cursor = params.get("cursor")
    if cursor is not None and not isinstance(cursor, str):
        raise _ParamsError("cursor must be a string")
    with_user = params.get("withUserTools") is True and link.trusted
    visible = [t for t in dispatcher.tools if with_user or not t.user_only]
    start = 0
    if cursor:
        while start < len(visible) and visible[start].name != cursor:
            start += 1
        if start == len(visible):
            raise _ParamsError("unknown cursor %r" % cursor[:MAX_NAME])
    # Bytes left for entries: the envelope with this id, room for a nextCursor, the commas.
    budget = PAGE_BYTES - 1 - _utf8_len(_response(rid, '{"tools":[]}')) - _CURSOR_RESERVE - MAX_NAME
    end = start
    while end < len(visible):
        cost = entry_bytes(visible[end]) + (1 if end > start else 0)
        if end > start and cost > budget:
            break
        budget -= cost
        end += 1
    return _pieces(rid, visible, start, end)


def _pieces(rid, visible, start, end):
    yield '{"jsonrpc":"2.0","id":%s,"result":{"tools":[' % dumps(rid)
    for i in range(start, end):
        if i > start:
            yield ","
        yield from entry_pieces(visible[i])
    yield "]"
    if end < len(visible):
        yield ',"nextCursor":%s' % dumps(visible[end].name)
    yield "}}"
