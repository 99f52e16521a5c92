# Runs under MicroPython (bench/store_heap.py starts it): heap taken by the hot store with every type full.
#
# main() yields between measurements; bench/mp_script.mjs collects garbage from the top level at
# each yield, where the port's collector is exact. Work happens in helper functions so that no
# temporary stays reachable from the generator's frame.

import gc
import json

_held = {}


def _imports():
    import esp32  # noqa: F401 - measured: the modules a board would freeze into flash
    import store_helpers  # noqa: F401
    from memory import store  # noqa: F401


def _fill():
    import esp32
    from memory.store import Store
    from store_helpers import Clock, FakeArchive, fill_every_type

    esp32.configure_nvs(None, reserve=200)
    filler = Store(archiver=FakeArchive(), now=Clock())
    fill_every_type(filler)
    filler.flush()


def _load():
    from memory.store import Store
    from store_helpers import T0, Clock

    _held["store"] = Store(now=Clock(T0))


def _overview():
    _held["overview"] = _held["store"].overview()


def _write():
    _held.pop("overview")
    _held["store"].write("chat", {"role": "user", "content": "one more"})
    _held["store"].flush()


def main():
    base = gc.mem_alloc()
    _imports()
    yield
    imported = gc.mem_alloc()
    _fill()
    yield
    yield
    before = gc.mem_alloc()  # the simulated partition's contents are in RAM here too: not ours
    _load()
    yield
    loaded = gc.mem_alloc()
    _overview()
    yield
    with_overview = gc.mem_alloc()
    _write()
    yield
    after_write = gc.mem_alloc()
    print("@@json " + json.dumps({
        "interpreter": "micropython-webassembly",
        "store_loaded_full_bytes": loaded - before,
        "target_bytes": 24 * 1024,
        "modules_imported_bytes": imported - base,
        "overview_result_bytes": with_overview - loaded,
        "after_write_and_flush_bytes": after_write - before,
        "records": _held["store"].stats()["records"],
    }))
