# SHA-1 in plain Python for ports built without hashlib.sha1 (the WebAssembly port): the WebSocket
# handshake needs it. Imports nothing of the firmware, so a benchmark can load it before measuring.

import struct


def _rol(x, n):
    return ((x << n) | (x >> (32 - n))) & 0xFFFFFFFF


class Sha1:
    """SHA-1 (FIPS 180-4) for ports built without hashlib.sha1; the handshake needs only digest()."""

    def __init__(self, data=b""):
        self.data = bytes(data)

    def digest(self):
        data = self.data
        h = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0]
        msg = data + b"\x80" + bytes((55 - len(data)) % 64) + struct.pack(">Q", len(data) * 8)
        for off in range(0, len(msg), 64):
            w = list(struct.unpack(">16I", msg[off : off + 64]))
            for t in range(16, 80):
                w.append(_rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1))
            a, b, c, d, e = h
            for t in range(80):
                if t < 20:
                    f, k = (b & c) | (~b & d), 0x5A827999
                elif t < 40:
                    f, k = b ^ c ^ d, 0x6ED9EBA1
                elif t < 60:
                    f, k = (b & c) | (b & d) | (c & d), 0x8F1BBCDC
                else:
                    f, k = b ^ c ^ d, 0xCA62C1D6
                a, b, c, d, e = (_rol(a, 5) + (f & 0xFFFFFFFF) + e + k + w[t]) & 0xFFFFFFFF, a, _rol(b, 30), c, d
            v = (a, b, c, d, e)
            h = [(h[j] + v[j]) & 0xFFFFFFFF for j in range(5)]
        return struct.pack(">5I", *h)
