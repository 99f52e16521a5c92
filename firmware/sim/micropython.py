# Simulated micropython module for CPython: const(), the one helper the firmware uses.


def const(value):
    return value
