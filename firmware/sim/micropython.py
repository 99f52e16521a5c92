# Simulated micropython module for CPython: const() and the few helpers the firmware uses.


def const(value):
    return value


def native(func):
    return func


def viper(func):
    return func


def mem_info(*args):
    pass


def alloc_emergency_exception_buf(size):
    pass


def schedule(func, arg):
    func(arg)
