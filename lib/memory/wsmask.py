# WebSocket masking compiled to machine code (viper); ws.py falls back to plain Python where it cannot load.

import sys

import micropython

if sys.implementation.name != "micropython":
    raise ImportError("viper code runs only on MicroPython")


@micropython.viper
def mask_into(dst: ptr8, src: ptr8, n: int, key: ptr8):  # noqa: F821 (viper's pointer type)
    for i in range(n):
        dst[i] = src[i] ^ key[i & 3]
