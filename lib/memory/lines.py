# Streams the lines of a file through one reusable buffer, counting what it reads.

from micropython import const

from memory import fs

_START = const(512)
_NL = const(10)


class LineReader:
    """Reads files line by line into one buffer that only grows for a line longer than itself.

    `lines(path)` yields a memoryview of each complete line without its newline; the view is
    valid until the next line is asked for, and is also `buf[start:end]` (so that callers can
    search it with bytearray.find without a copy). A last line with no newline is torn (a write
    cut short): it is not yielded and `torn` says how many bytes it had.
    """

    def __init__(self, size=_START):
        self.buf = bytearray(size)
        self.start = self.end = 0
        self.bytes_read = 0
        self.lines_read = 0
        self.torn = 0

    def lines(self, path, offset=0):
        """The lines from byte `offset` on (the start of a line)."""
        f = fs.open(path, "rb")
        try:
            if offset:
                f.seek(offset)
            buf = self.buf
            mv = memoryview(buf)
            start = end = 0
            self.torn = 0
            while True:
                i = buf.find(b"\n", start, end)
                if i >= 0:
                    self.lines_read += 1
                    self.start, self.end = start, i
                    yield mv[start:i]
                    start = i + 1
                    continue
                if start:
                    n = end - start
                    mv[0:n] = mv[start:end]
                    start, end = 0, n
                if end == len(buf):
                    grown = bytearray(2 * len(buf))
                    grown[0:end] = buf
                    self.buf = buf = grown
                    mv = memoryview(buf)
                n = f.readinto(mv[end:])
                if not n:
                    break
                self.bytes_read += n
                end += n
            self.torn = end - start
        finally:
            f.close()


def ends_with_newline(path, size):
    """True when the file of `size` bytes is empty or its last byte is a newline."""
    if not size:
        return True
    f = fs.open(path, "rb")
    try:
        f.seek(size - 1)
        b = f.read(1)
    finally:
        f.close()
    return len(b) == 1 and b[0] == _NL
