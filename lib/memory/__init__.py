# xzmem device package: long-term memory for an ESP32 AI companion.

__version__ = "0.1.0"


def forget(name):
    """Unload memory.`name` (a module used once, or only now and then) so the collector takes its code back."""
    import sys

    sys.modules.pop("memory." + name, None)
    globals().pop(name, None)
