"""Heap the `memory` read overview takes under real MicroPython (the WebAssembly port), every type full.

Prints one JSON object. The answer is streamed (docs/streaming.md) and driven step by step: one
response piece per step (`reply_pieces_one_per_step`), or one WebSocket frame per step as the
server link (`streamed_server_link`) and the masked outbound links (`streamed_outbound_link_masked`)
send it. For each: `live_peak_bytes`, the most live heap at any step boundary (exact: garbage is
collected there; target 16 KB), and `peak_bound_bytes`, that plus the step's own allocation,
garbage included. No string or buffer of the answer is bigger than the frame buffer
(`frame_buffer_bytes`; target under 8 KB); `largest_*_piece_bytes` are the pieces.
"""

import sys

from mpbench import run_script

if __name__ == "__main__":
    sys.exit(run_script("mp_read_heap"))
