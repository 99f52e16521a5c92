"""`xzmem sim`: the device firmware run on CPython with the firmware/sim fakes."""
