# MCP over JSON-RPC 2.0: the dispatcher every link shares (initialize, ping, tools/list, tools/call).
#
# A link (server connection, endpoint client, xiaozhi link) hands each incoming text message to
# Dispatcher.handle() and sends back what it returns: a str, or for a tool that answers with a
# Streamed result, an iterator of str pieces that ws.WebSocket.send() frames as one message.
# Tools are plain objects registered with add().

import asyncio

from micropython import const

from memory import __version__, forget, jsontext, steps

PARSE_ERROR = const(-32700)
INVALID_REQUEST = const(-32600)
METHOD_NOT_FOUND = const(-32601)
INVALID_PARAMS = const(-32602)
INTERNAL_ERROR = const(-32603)

PROTOCOL_VERSION = "2024-11-05"
SUPPORTED_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18")
PAGE_BYTES = const(8000)  # every tools/list response message stays under this many bytes
_MAX_BATCH = const(16)
MAX_NAME = const(64)
_MAX_MESSAGE_TEXT = const(400)
_NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-."
_CUT_MARK = "\n[result cut off] "
_SCAN = const(256)  # bytes of a long message searched at once for surrogate escapes
_MAX_DEPTH = const(32)  # nesting a message may have; JSON-RPC's own is 3 deep, tool arguments a few more


class ToolError(Exception):
    """A tool refused a call; the message goes back to the model with isError true."""


class Tool:
    """A tool: name, description, input_schema (JSON Schema dict), annotations, user_only, call()."""

    name = ""
    description = ""
    input_schema = {"type": "object", "properties": {}}
    annotations = None
    user_only = False  # listed only with withUserTools:true, and only usable on trusted links
    spoken = False  # its refusals may be read aloud: worded in the dispatcher's language

    def call(self, arguments, link):
        """Return a JSON-able value, a str sent as is, or a Streamed; raise ToolError or ValueError to refuse."""
        raise ToolError("%s is not implemented" % self.name)

    def call_steps(self, arguments, link):
        """call() as a generator of steps (memory.steps), which the event loop runs a slice at a time;
        a tool with long work overrides it to yield between the pieces."""
        yield
        return self.call(arguments, link)


class Streamed:
    """A tool result too big to hold at once: `pieces()` returns an iterator of str pieces of its text.

    The dispatcher escapes and sends each piece as it comes, so neither the text nor the response
    message is ever built whole. Where a whole string is needed (the serial transport, batches),
    text() joins the pieces.
    """

    def __init__(self, pieces):
        self.pieces = pieces  # a function (a generator function) called once per answer

    def text(self):
        return "".join(self.pieces())


def json_array(values):
    """A JSON array in pieces: one per element, the comma and brackets riding along."""
    sep = "["
    for value in values:
        yield sep + json_text(value)
        sep = ","
    yield "]" if sep == "," else "[]"


def json_pieces(value):
    """`value` as JSON text in pieces; the lists of a dict go one element at a time."""
    if not isinstance(value, dict):
        yield json_text(value)
        return
    sep = "{"
    for key in value:
        item = value[key]
        yield sep + json_text(key) + ":"
        if isinstance(item, list):
            yield from json_array(item)
        else:
            yield json_text(item)
        sep = ","
    yield "}" if sep == "," else "{}"


def streamed(value):
    """A tool result (a dict with long lists: recall, search, export) sent in pieces, never joined."""
    return Streamed(lambda: json_pieces(value))


class Link:
    """What a tool knows about the connection a call came from."""

    def __init__(self, name, trusted=False):
        self.name = name
        self.trusted = trusted  # token-guarded server or the host's gateway: memory_sync allowed
        self.client_info = None  # clientInfo from initialize
        self.protocol_version = None
        self.peek = False  # only looking (the boot self-test): a read leaves reminders untold
        # A voice server's link (xiaozhi, an untrusted MCP endpoint): such a server speaks an isError
        # result as a fixed error line and never shows it to its model, so refusals go back as plain
        # results there, and the model reads the sentence, tells the user and can call again.
        self.voice = False


class _ParamsError(Exception):
    pass


dumps = jsontext.dumps  # the wire's one encoder: compact, UTF-8 on both interpreters


def json_text(value):
    """dumps(); a str goes through the string encoder alone (no encoder built per call on CPython)."""
    if isinstance(value, str):
        return jsontext.string(value)
    return jsontext.dumps(value)


def message_text(msg):
    """A received WebSocket message as text for handle(): a str, or a long one's memoryview (memory.ws)
    as it is; binary is read as UTF-8, and bytes that are not UTF-8 become a string the dispatcher
    answers as a parse error."""
    if not isinstance(msg, bytes):
        return msg
    try:
        return msg.decode()
    except UnicodeError:
        return "\x00"


def notification(method, params=None):
    """A notification message from the device, e.g. notifications/message for a reminder."""
    msg = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    return dumps(msg)


def tool_result(value):
    """The tools/call result for a tool's return value: one text content, the value as JSON."""
    if isinstance(value, Streamed):
        text = value.text()
    else:
        text = value if isinstance(value, str) else dumps(value)
    return {"content": [{"type": "text", "text": text}], "isError": False}


def _result_text(value, is_error=False):
    # The tools/call result as text, written out in a fixed member order: MicroPython's dicts keep no
    # insertion order, so a dumped dict would put "text" before "type" on the board only.
    text = value if isinstance(value, str) else dumps(value)
    return '{"content":[{"type":"text","text":%s}],"isError":%s}' % (jsontext.string(text), "true" if is_error else "false")


def tool_error(message):
    """The tools/call result of a refused call: the message as its one text, nothing else."""
    return {"content": [{"type": "text", "text": message}], "isError": True}


def error_message(exc):
    if isinstance(exc, (ToolError, ValueError)):
        text = str(exc)
    else:
        from memory.space import explain  # error paths only

        text = explain(exc)  # no errno, LittleFS or Python exception text in an answer
    return text if len(text) <= _MAX_MESSAGE_TEXT else text[: _MAX_MESSAGE_TEXT - 3] + "..."


def whole_json(text):
    """Whether an object or array in `text` is closed, bracket for bracket, with nothing after it.

    MicroPython 1.23-1.25 parse a cut-off message into a partial object instead of raising, and
    no version checks that a ] closes a [; this scan refuses both before json.loads sees the text.
    A text that starts with neither { nor [ is left to json.loads.
    """
    try:
        data = memoryview(text)  # MicroPython: the str's own UTF-8 bytes, no copy
    except TypeError:
        data = text.encode()  # CPython
    closers = bytearray(_MAX_DEPTH)
    depth = 0
    in_string = escaped = closed = False
    started = False
    for b in data:
        if in_string:
            if escaped:
                escaped = False
            elif b == 0x5C:  # backslash
                escaped = True
            elif b == 0x22:
                in_string = False
            continue
        if b == 0x20 or b == 0x0A or b == 0x0D or b == 0x09:
            continue
        if closed:
            return False  # something after the closing bracket
        if b == 0x7B or b == 0x5B:  # { or [, closed by the byte two further on: } or ]
            if depth == _MAX_DEPTH:
                return False
            closers[depth] = b + 2
            depth += 1
        elif b == 0x7D or b == 0x5D:
            if not depth or closers[depth - 1] != b:
                return False
            depth -= 1
            closed = not depth
        elif not started:
            return True  # a scalar: json.loads judges it
        elif b == 0x22:
            in_string = True
        started = True
    return closed or not started


def _valid_id(rid):
    if rid is None or isinstance(rid, str):
        return True
    if rid is True or rid is False:
        return False
    if isinstance(rid, int):
        return True
    # inf and nan (from 1e400 or NaN in the text) have no JSON form to echo back
    return isinstance(rid, float) and rid == rid and rid not in (float("inf"), float("-inf"))


def _response(rid, result_text):
    return '{"jsonrpc":"2.0","id":%s,"result":%s}' % (dumps(rid), result_text)


def _error(rid, code, message):
    return '{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}' % (dumps(rid), code, dumps(message))


def _escaped(piece):
    # The piece as it reads inside a JSON string; each piece is escaped whole, so no escape is split.
    return jsontext.string(piece)[1:-1]


def _escapes_surrogate(view):
    # Whether a memoryview of UTF-8 holds \ud or \uD, looked for a copied piece at a time (a
    # memoryview has no find); the pieces overlap so that no escape is missed where one is cut.
    n = len(view)
    i = 0
    while i < n:
        piece = bytes(view[i : i + _SCAN])
        at = piece.find(b"\\u")
        while 0 <= at < len(piece) - 2:
            c = piece[at + 2]
            if c == 0x64 or c == 0x44:  # d or D
                return True
            at = piece.find(b"\\u", at + 1)
        i += _SCAN - 2
    return False


def loads(text):
    """json.loads of a str or of a long message's memoryview (memory.ws), surrogate escapes made
    plain first (memory.oversize)."""
    if isinstance(text, str):
        escaped = "\\ud" in text or "\\uD" in text
    else:
        escaped = _escapes_surrogate(text)
        if escaped:
            text = str(text, "utf-8")  # rare (clients that escape emoji): worth a copy
    if escaped:
        from memory import oversize

        forget("oversize")
        text = oversize.plain(text)
    return jsontext.loads(text)


def _parse(text):
    """(True, the message) for a complete JSON text, else (False, the parse-error response)."""
    try:
        if whole_json(text):
            return True, loads(text)
    except Exception:  # ValueError, or RecursionError for absurd nesting on CPython
        pass
    return False, _error(None, PARSE_ERROR, "parse error: the message is not complete JSON")


def _has_call(msg):
    """Whether a message (or batch) holds a tools/call."""
    for m in msg if isinstance(msg, list) else (msg,):
        if isinstance(m, dict) and m.get("method") == "tools/call":
            return True
    return False


def _first(pieces):
    for piece in pieces:
        return piece
    return ""


def _streamed_response(rid, first, pieces):
    # The tools/call response of a Streamed result, in pieces: the message the plain path sends for
    # the joined text (byte for byte on CPython), as long as the pieces come. If they fail part way,
    # the text is already half sent, so it ends with the error and the result turns isError, which
    # keeps the message valid JSON and tells the model the text is cut.
    yield '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"' % dumps(rid)
    yield _escaped(first)
    try:
        for piece in pieces:
            yield _escaped(piece)
        end = '"}],"isError":false}}'
    except Exception as e:  # a failing store read must cost this answer, never the link
        end = '%s"}],"isError":true}}' % _escaped(_CUT_MARK + error_message(e))
    yield end


def _utf8_len(text):
    return len(text.encode())


def _check(tool, args):
    # The checker is loaded for the check only, as the memory tools' definitions are (memory.tools).
    from memory import schema

    forget("schema")
    schema.check_arguments(tool.input_schema, args)


def _checked_call(tool, args, link):
    _check(tool, args)
    return tool.call(args, link)


class Dispatcher:
    """Answers JSON-RPC messages for one set of tools; links share one Dispatcher."""

    def __init__(self, name="xzmem", version=__version__, instructions=None, language="zh"):
        self.name = name
        self.version = version
        self.instructions = instructions
        self.language = language  # zh or en: how refusals of spoken tools are worded
        self.tools = []  # in registration order, which is the listing order
        self.on_close = None  # called with a link when its connection ends (the device flushes then)
        # Held by every tool call on the event loop, and by the device's own loops when they change
        # memory: a call runs in steps with turns for other tasks between them (memory.steps), and
        # no other call may see or commit what it has half done.
        self.lock = asyncio.Lock()

    def link_closed(self, link):
        """A link's connection ended: tell on_close; its failure is printed, never raised into the link."""
        if self.on_close is None:
            return
        try:
            self.on_close(link)
        except Exception as e:  # a failed flush keeps the changes in RAM and the journal
            print("%s: after the connection closed: %s" % (link.name, error_message(e)))

    def add(self, tool):
        """Register a tool; ValueError if its name is taken or malformed, or it cannot fit in a page."""
        name = tool.name
        if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME or [c for c in name if c not in _NAME_CHARS]:
            raise ValueError("tool name must be 1-%d of [A-Za-z0-9_.-], got %r" % (MAX_NAME, name))
        if self.find(name) is not None:
            raise ValueError("tool %s is already registered" % name)
        from memory import mcplist

        forget("mcplist")
        size = mcplist.entry_bytes(tool)
        limit = PAGE_BYTES - 200
        if size > limit:
            raise ValueError("tool %s lists as %d bytes, more than a %d-byte page allows" % (name, size, limit))
        self.tools.append(tool)
        return tool

    def find(self, name, link=None):
        """The tool called `name`, or None; user-only tools are hidden from untrusted links."""
        for t in self.tools:
            if t.name == name:
                if link is not None and t.user_only and not link.trusted:
                    return None
                return t
        return None

    def handle(self, text, link):
        """The response for one incoming message (or batch), or None when nothing is to be sent.

        The response is a str, except for tools/list and a tools/call whose tool returned a
        Streamed: then it is an iterator of str pieces that together make the response message.
        """
        ok, msg = _parse(text)
        return self.handle_parsed(msg, link) if ok else msg

    def handle_parsed(self, msg, link):
        """handle() for a message already parsed (the xiaozhi link's payload)."""
        return steps.finish(self._parsed_steps(msg, link))

    async def handle_async(self, text, link):
        """handle() on the event loop: a tool call takes `lock` and runs in slices (memory.steps),
        so pings and other clients are answered while it works."""
        msg = None
        try:
            ok, msg = _parse(text)
            if not ok:
                return msg
            # A long text is a view of the receive buffer, which another connection may fill once
            # this awaits: from here on only the parsed message is used.
            text = None
            return await self.handle_parsed_async(msg, link)
        except MemoryError:  # the heap ran out outside a tool call: the request still gets its answer
            from memory import lowmem

            forget("lowmem")
            return lowmem.answer(self, text, msg)

    async def handle_parsed_async(self, msg, link):
        """handle_parsed() on the event loop, as handle_async()."""
        if not _has_call(msg):
            return self.handle_parsed(msg, link)  # nothing in it works long or touches memory
        async with self.lock:
            return await steps.run(self._parsed_steps(msg, link))

    def _parsed_steps(self, msg, link):
        # A message (or batch) answered as a generator of steps: a tool call's are its tool's.
        if isinstance(msg, list):
            if not msg:
                return _error(None, INVALID_REQUEST, "empty batch")
            if len(msg) > _MAX_BATCH:
                return _error(None, INVALID_REQUEST, "batch of %d messages, at most %d" % (len(msg), _MAX_BATCH))
            out = []
            for m in msg:
                r = yield from self._one(m, link)
                if r is not None:
                    out.append(r if isinstance(r, str) else "".join(r))  # batches are rare and small
            return "[" + ",".join(out) + "]" if out else None
        return (yield from self._one(msg, link))

    def _one(self, msg, link):
        yield
        if not isinstance(msg, dict):
            return _error(None, INVALID_REQUEST, "a request must be a JSON object")
        has_id = "id" in msg
        rid = msg.get("id")
        if not _valid_id(rid):
            return _error(None, INVALID_REQUEST, "id must be a string, a number or null")
        method = msg.get("method")
        if method is None and ("result" in msg or "error" in msg):
            return None  # a response: the device sends no requests, so there is nothing to match it to
        if msg.get("jsonrpc") != "2.0":
            return _error(rid, INVALID_REQUEST, 'jsonrpc must be "2.0"')
        if not isinstance(method, str):
            return _error(rid, INVALID_REQUEST, "method must be a string")
        if not has_id:
            return None  # notifications (notifications/initialized, cancelled, ...) need nothing from us
        params = msg.get("params")
        if params is None:
            params = {}
        if not isinstance(params, dict):
            return _error(rid, INVALID_PARAMS, "params must be an object")
        try:
            if method == "tools/call":
                return (yield from self._call(rid, params, link))
            if method == "tools/list":
                from memory import mcplist  # loaded for the answer only

                forget("mcplist")
                return mcplist.page(self, rid, params, link)
            if method == "ping":
                return _response(rid, "{}")
            if method == "initialize":
                return _response(rid, dumps(self._initialize(params, link)))
        except _ParamsError as e:
            return _error(rid, INVALID_PARAMS, str(e))
        except MemoryError as e:  # short of heap around the call (its answer, say): refused in words
            return _error(rid, INTERNAL_ERROR, self.refusal_text(Tool(), e))
        except Exception as e:  # a bug must cost one answer, never the link
            return _error(rid, INTERNAL_ERROR, "internal error: " + error_message(e))
        return _error(rid, METHOD_NOT_FOUND, "method not found: %s" % method[:MAX_NAME])

    def _initialize(self, params, link):
        asked = params.get("protocolVersion")
        version = asked if asked in SUPPORTED_VERSIONS else PROTOCOL_VERSION
        info = params.get("clientInfo")
        link.client_info = info if isinstance(info, dict) else None
        link.protocol_version = version
        result = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": self.name, "version": self.version},
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result


    def too_big(self, exc):
        """The JSON-RPC error for a message ws read past (ws.MessageTooBig), with its id if the
        message's first bytes hold one, so that the client's waiting request ends (memory.oversize)."""
        from memory import oversize

        forget("oversize")
        return oversize.answer(self, exc)

    def call_local(self, name, args, link):
        """A tools/call result for a caller on the device itself (the serial transport).

        The same checks as over the wire; a streamed answer comes back joined.
        """
        tool = self.find(name, link)
        if tool is None:
            return tool_error("unknown tool %r" % name[:MAX_NAME])
        try:
            if not isinstance(args, dict):
                raise ValueError("arguments must be an object")
            return tool_result(_checked_call(tool, args, link))
        except Exception as e:  # as over the wire: every failure is a refusal the caller reads
            return tool_error(self.refusal_text(tool, e))

    def refusal_text(self, tool, exc):
        """What a refused call answers: for a spoken tool, or a call the heap could not hold, one
        sentence in the configured language."""
        if isinstance(exc, MemoryError):
            import gc

            gc.collect()  # what the failed call allocated is garbage now: room to word the refusal
        if tool.spoken or isinstance(exc, MemoryError):
            from memory import spoken  # only loaded once something is refused

            return spoken.say(exc, self.language, error_message(exc))
        return error_message(exc)

    def _call(self, rid, params, link):
        name = params.get("name")
        if not isinstance(name, str):
            raise _ParamsError("name must be a string")
        tool = self.find(name, link)
        if tool is None:
            raise _ParamsError("unknown tool %r" % name[:MAX_NAME])
        args = params.get("arguments")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise _ParamsError("arguments must be an object")
        try:
            _check(tool, args)
            value = yield from tool.call_steps(args, link)
            if isinstance(value, Streamed):
                pieces = value.pieces()
                # Running to the first piece here lets a result that fails at once be a plain refusal.
                return _streamed_response(rid, _first(pieces), pieces)
            result = _result_text(value)
        except Exception as e:  # refusals and failures alike reach the model, the link lives on
            result = _result_text(self.refusal_text(tool, e), not link.voice)
        return _response(rid, result)
