# MCP endpoint link: the device dials an MCP endpoint (xiaozhi.me, mcp-endpoint-server, xzmem gateway)
# and is the MCP server on that socket: raw JSON-RPC, one message per text message (a big answer
# goes out as a text frame and continuation frames).

import asyncio

from memory import mcp, outlink, ws

REMINDER_LOGGER = "memory.reminder"
_REMINDER_FIELDS = ("content", "datetime", "priority", "urgency", "missed", "minutes", "text")


def reminder_notification(item):
    """notifications/message for a reminder; data.text is the sentence to say."""
    data = {}
    for key in _REMINDER_FIELDS:
        if key in item:
            data[key] = item[key]
    return mcp.notification("notifications/message", {"level": "info", "logger": REMINDER_LOGGER, "data": data})


def _well_formed(reply):
    # The dispatcher answers unparseable or shapeless input with an error whose id is null;
    # anything else (an answer with an id, a streamed answer, or a notification needing none) was
    # a real message.
    return not isinstance(reply, str) or '"id":null,"error"' not in reply[:40]


class EndpointLink(outlink.OutboundLink):
    """Serves the dispatcher on a connection the device opens to an MCP endpoint URL (token in the query)."""

    kind = "endpoint"

    def __init__(self, url, dispatcher, announcer=None, device_id="", **kwargs):
        super().__init__(url, dispatcher, announcer, **kwargs)
        self.device_id = device_id  # sent as Device-Id, so that xzmem gateway can tell devices apart

    def headers(self):
        return (("Device-Id", self.device_id),) if self.device_id else ()

    async def session(self, sock):
        self.attach_reminders()
        while True:
            try:
                msg = mcp.message_text(await sock.recv())
            except ws.MessageTooBig as e:  # read past: answered, and the connection goes on
                await sock.send(self.dispatcher.too_big(e))
                continue
            reply = await self.dispatcher.handle_async(msg, self.link)
            msg = None
            if _well_formed(reply):
                self.healthy = True
            if reply is not None:
                await sock.send(reply)
            reply = None  # not held while the next message is awaited (a streamed answer holds its records)
            await asyncio.sleep(0)  # a turn for the other links after each message (memory.server)

    def reminder_message(self, item):
        return reminder_notification(item)
