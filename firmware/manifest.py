# Frozen MicroPython build with the xzmem device package compiled into the firmware (docs/firmware.md).
#
# Build from the MicroPython tree:
#   make -C ports/esp32 BOARD=ESP32_GENERIC FROZEN_MANIFEST=/path/to/xzmem/firmware/manifest.py
# Relative paths below are relative to this file. boot.py, main.py and /config.json stay on the
# `vfs` filesystem, where `xzmem deploy` or `xzmem image` put them.

# Everything the stock firmware freezes (asyncio, the port's _boot.py, mip, ...).
include("$(PORT_DIR)/boards/manifest.py")

# lib/memory as the package `memory`, precompiled to bytecode and run from flash.
package("memory", base_path="../lib")
