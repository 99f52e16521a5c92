# xzmem device package: long-term memory for an ESP32 AI companion.

__version__ = "0.1.0"
