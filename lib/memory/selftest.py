# Boot self-test: read-only checks that the device can answer for its memory (Wokwi CI waits for the line).

from memory import clock, mcp


def _calendar(device):
    t = clock.from_local(2028, 2, 29, 23, 59)
    return clock.local_parts(t)[:5] == (2028, 2, 29, 23, 59)


def _protocol(device):
    link = mcp.Link("self-test", trusted=True)
    reply = device.dispatcher.handle('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"withUserTools":true}}', link)
    listed = [False, False]
    for piece in (reply,) if isinstance(reply, str) else reply:  # the listing comes in pieces
        listed[0] = listed[0] or '"name":"memory"' in piece
        listed[1] = listed[1] or '"name":"memory_sync"' in piece
    return listed[0] and listed[1]


def _read(device):
    link = mcp.Link("self-test")
    link.peek = True
    reply = device.dispatcher.handle(
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory","arguments":{"action":"read"}}}', link)
    if isinstance(reply, str):
        return '"isError":false' in reply
    ok = False
    for piece in reply:  # streamed: held one piece at a time; the closing one says whether it failed
        ok = '"isError":false' in piece
    return ok


def _nvs(device):
    return not device.store.corrupt_keys


def _archive(device):
    if device.archive is None:
        return True  # no partition is reported at boot; nothing to check here
    return device.archive.count("fact") >= 0


CHECKS = (("calendar", _calendar), ("protocol", _protocol), ("read", _read), ("nvs", _nvs), ("archive", _archive))


def run(device):
    """Run every check; returns the summary line, naming any check that failed."""
    failed = []
    for name, check in CHECKS:
        try:
            ok = check(device)
        except Exception as e:  # a check that crashes has failed; say how
            print("self-test %s: %s" % (name, e))
            ok = False
        if not ok:
            failed.append(name)
    line = "xzmem self-test: %d passed, %d failed" % (len(CHECKS) - len(failed), len(failed))
    return line + (" (%s)" % ", ".join(failed) if failed else "")
