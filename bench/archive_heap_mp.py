# MicroPython side of bench/archive.py: peak heap of keyword recalls over the whole archive.
#
# Runs in the WebAssembly port through bench/mp_run.mjs, which calls step() from the top level so
# that the heap is collected between steps. Each step advances a recall by one line (or one
# month of segment probes) via Archive.recall_steps. Before a step the heap holds only live
# objects (L); during the step nothing is freed, so the step's peak is at most L plus what it
# allocates (A). The figure is max(L + A) over all steps, above the heap in use before the
# Archive was created (so the archive object and its buffers count). Prints one JSON object.

import gc
import json
import sys

from memory.archive import Archive

with open("/argv.json") as _f:
    _root, _queries = json.load(_f)
_queries = json.loads(_queries)
_out = {"interpreter": "MicroPython {} ({})".format(".".join(str(v) for v in sys.implementation.version[:3]),
                                              sys.implementation._machine),
        "method": "max over recall steps of (live heap before the step + bytes allocated in it), "
                  "above the heap before Archive()"}
_state = {"i": -1, "steps": None}


def _start_next():
    _state["i"] += 1
    if _state["i"] >= len(_queries):
        print(json.dumps(_out))
        return False
    name, kind, keyword, limit = _queries[_state["i"]]
    _state["base"] = gc.mem_alloc()
    _state["peak"] = 0
    _state["archive"] = a = Archive(_root)
    _state["steps"] = a.recall_steps(kind, keyword, None, None, limit)
    _state["count"] = 0
    return True


def step():
    gc.collect()  # takes effect when this call returns: the next one starts collected
    if _state["steps"] is None:
        return _start_next()
    live = gc.mem_alloc()
    try:
        next(_state["steps"])
        _state["count"] += 1
        done = None
    except StopIteration as e:
        done = e.value
    peak = gc.mem_alloc() - _state["base"]
    if peak > _state["peak"]:
        _state["peak"] = peak
    if done is not None:
        a = _state["archive"]
        name = _queries[_state["i"]][0]
        _out[name] = {"peak_heap_bytes": _state["peak"], "live_after_bytes": live - _state["base"],
                      "items": done["count"], "steps": _state["count"],
                      "bytes_read": a.last["bytes_read"], "lines_read": a.last["lines_read"],
                      "lines_parsed": a.last["lines_parsed"]}
        _state["steps"] = _state["archive"] = done = None
        try:  # the VM keeps the last StopIteration value (the reply) reachable: replace it
            next(_spent())
        except StopIteration:
            pass
    return True


def _spent():
    return
    yield
