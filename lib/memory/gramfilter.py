# Per-segment keyword filter: a Bloom filter over the character 1- and 2-grams of a segment's text.
#
# A keyword can only occur in a segment whose filter holds every gram of the keyword, so recall
# probes a few bits per segment instead of reading it. The hash uses only small-int arithmetic
# so that MicroPython and CPython set the same bits: an image built on a host works on a board.

from micropython import const

_P1 = const(1048573)
_P2 = const(1048571)
_NONE = const(0x110000)  # second "character" of a unigram: beyond every code point
HASHES = const(6)


def fold(text):
    """ASCII letters to lower case, everything else unchanged (the same on both interpreters)."""
    return text.encode().lower().decode()


def _positions(a, b, bits, out):
    h1 = (a * 937 + b) % _P1
    h2 = (b * 941 + a) % _P2
    h1 = h1 * 1021 % _P1
    step = h2 % (bits - 1) + 1
    for i in range(HASHES):
        out[i] = (h1 + i * step) % bits


class GramFilter:
    """Bloom filter bits in a bytearray: the whole filter, or one window of it.

    A window (`bits` the whole filter's size, `first` the window's first bit) keeps only the bits
    that fall inside it, so a 4 KB filter can be built 1 KB at a time: writers on a small heap
    never need the whole block at once.
    """

    def __init__(self, bits_buf, bits=0, first=0):
        self.buf = bits_buf
        self.width = len(bits_buf) * 8
        self.bits = bits or self.width
        self.first = first
        self._pos = [0] * HASHES

    def add_text(self, text):
        """Add every 1-gram and 2-gram of the folded `text`."""
        prev = -1
        for ch in text:
            c = ord(ch)
            self._set(c, _NONE)
            if prev >= 0:
                self._set(prev, c)
            prev = c

    def _set(self, a, b):
        buf, pos, first, width = self.buf, self._pos, self.first, self.width
        _positions(a, b, self.bits, pos)
        for p in pos:
            p -= first
            if 0 <= p < width:
                buf[p >> 3] |= 1 << (p & 7)


def keyword_positions(keyword, bits):
    """Bit positions that must all be set for the folded `keyword` to be in a segment.

    A one-character keyword needs its unigram, a longer one each of its bigrams.
    """
    out = []
    pos = [0] * HASHES
    prev = -1
    for ch in keyword:
        c = ord(ch)
        if prev >= 0:
            _positions(prev, c, bits, pos)
            out.extend(pos)
        prev = c
    if not out and prev >= 0:
        _positions(prev, _NONE, bits, pos)
        out.extend(pos)
    out.sort()
    return out
