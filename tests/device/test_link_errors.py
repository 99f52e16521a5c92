# How an outbound link names what went wrong (memory.outlink.link_error): a refused connection is
# the network's failure, never "the memory storage failed".

import asyncio
import unittest

from memory import outlink, ws


class LinkErrors(unittest.TestCase):
    def test_socket_errors_are_network_errors(self):
        self.assertEqual(outlink.link_error(OSError(111)), "network error: connection refused (errno 111)")
        self.assertEqual(outlink.link_error(OSError(113)), "network error: no route to host (errno 113)")
        self.assertEqual(outlink.link_error(OSError(-202)), "network error: socket error (errno -202)")
        # MicroPython's asyncio.TimeoutError is not the builtin one: the link catches the asyncio one
        self.assertEqual(outlink.link_error(asyncio.TimeoutError()), "network error: timed out")  # noqa: UP041
        self.assertEqual(outlink.link_error(OSError("bad address")), "network error: bad address")

    def test_other_failures_keep_their_words(self):
        said = outlink.link_error(ws.ConnectionClosed(4001, "bad token"))
        self.assertTrue("4001" in said and "bad token" in said, said)
        self.assertEqual(outlink.link_error(ValueError("no such host")), "no such host")

    async def test_the_reconnect_log_says_connection_refused(self):
        logged = []
        link = outlink.OutboundLink("ws://127.0.0.1:9/x", None, log=logged.append)

        async def refused():
            raise OSError(111)

        async def stop(delay):
            raise asyncio.CancelledError

        link.run_once = refused
        link.sleep = stop
        try:
            await link.run()
        except asyncio.CancelledError:
            pass
        self.assertTrue(any("connection refused" in line for line in logged), logged)
        self.assertFalse(any("storage" in line for line in logged), logged)


if __name__ == "__main__":
    unittest.main()
