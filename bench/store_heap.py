"""Heap the hot store takes under real MicroPython (the WebAssembly port) with every type full.

Prints one JSON object. `store_loaded_full_bytes` is gc.mem_alloc() growth from constructing a
Store over an NVS holding every type at capacity (target 24 KB). Module bytecode is reported
apart: on a board the modules are frozen into flash and cost no heap.
"""

import sys

from mpbench import run_script

if __name__ == "__main__":
    sys.exit(run_script("mp_store_heap"))
