// Drives bench/mp_firmware_heap.py inside the WebAssembly port, one step per call, and prints JSON.
//
//   node bench/mp_firmware.mjs --map HOSTDIR:MPDIR ... --path MPDIR ... [--mode firmware|code]
//
// firmware: the device program from app.main() with one MCP client; after every step the heap is
// read (gc.mem_alloc: everything allocated since the last collection, garbage included, because
// the bench turns automatic collection off), the new blocks are found in the collector's block
// map (micropython.mem_info(1)), then garbage is collected and the live heap read again. Steps
// are calls from JavaScript: only between calls does the port's collector see no stale pointers.
// code: what each loaded module's code costs on the heap as .mpy (its import less the objects its
// body makes), the part a frozen build keeps in flash; the modules come from /bench/args.json.
import fs from "node:fs";
import { loadPort, parseArgs } from "../tests/mp/port.mjs";
import { BLOCK, newRuns, parseBlockMap } from "./heapmap.mjs";

const opts = parseArgs(process.argv.slice(2), ["--mode"]);
const mode = opts.extra["--mode"]?.[0] ?? "firmware";
let capture = null;
const mp = await loadPort(opts, {
  allFiles: true,
  stdout: (line) => (capture ? capture.push(line) : process.stderr.write(line + "\n")),
});
const gc = mp.pyimport("gc");
const micropython = mp.pyimport("micropython");

// The heap's block map now (see heapmap.mjs).
function blockMap() {
  capture = [];
  micropython.mem_info(1);
  const lines = capture;
  capture = null;
  return parseBlockMap(lines);
}

// The interpreter's qstr (name) table: [pools, bytes], from micropython.qstr_info().
function qstrs() {
  capture = [];
  micropython.qstr_info();
  const text = capture.join(" ");
  capture = null;
  return [Number(text.match(/n_pool=(\d+)/)[1]), Number(text.match(/n_total_bytes=(\d+)/)[1])];
}

// Bytes of a qstr pool of `alloc` names: a 6-word header, then a pointer, a 2-byte hash and a
// 1-byte length per name (py/qstr.c), in whole blocks. Each new pool holds twice the last one's
// names, from 10. Loading code grows the table; a frozen build keeps the code's names in flash.
const POOL_SIZES = new Set(Array.from({ length: 16 }, (_, j) => Math.ceil((24 + 7 * 10 * 2 ** j) / BLOCK) * BLOCK));

// The biggest block in `after` that was not in `before` and is not one of the `pools` new qstr
// pools: [bytes, the map's letter for its kind].
function largestNew(before, after, pools) {
  for (const run of newRuns(before, after)) {
    if (pools > 0 && run.kind === "h" && POOL_SIZES.has(run.n * BLOCK)) {
      pools--;
      continue;
    }
    return [run.n * BLOCK, run.kind];
  }
  return [0, ""];
}

if (mode === "code") {
  // Every module the firmware run loaded, from its .mpy; then, one at a time, the module loaded
  // again (everything it imports is already there: its code and its objects) and its body run
  // again from source into fresh globals (its objects alone, as a frozen import makes them).
  const args = JSON.parse(fs.readFileSync(opts.maps.find(([, d]) => d === "/bench")[0] + "/args.json", "utf8"));
  const B = mp.pyimport("mp_firmware_heap");
  B.prepare();
  B.import_all(JSON.stringify(args.modules.map(([name]) => name)));
  const out = {};
  for (const [name, path] of args.modules) {
    const again = name === "memory" ? 0 : measuredOnce(() => B.reimport(name));
    B.compile_body(path);
    const body = measuredOnce(() => B.run_body(name));
    out[name] = { mpy_import: again, objects: body, code: Math.max(0, again - body) };
  }
  console.log("@@json " + JSON.stringify({ modules: out }));
  process.exit(0);
}

// What one call leaves on the heap once garbage is collected.
function measuredOnce(fn) {
  gc.collect();
  const before = gc.mem_alloc();
  fn();
  gc.collect();
  return gc.mem_alloc() - before;
}

const B = mp.pyimport("mp_firmware_heap");
B.prepare();
gc.collect();

// What the fake NVS holds on the heap now: a board keeps it in flash, so it is left out of every
// figure. Weighed by taking it off the heap, collecting, and putting it back.
function nvsWeight() {
  gc.collect();
  const held = gc.mem_alloc();
  B.nvs_park();
  gc.collect();
  const without = gc.mem_alloc();
  B.nvs_unpark();
  gc.collect();
  return held - without;
}

const nvsBase = nvsWeight();
let nvsNow = nvsBase;
const base = gc.mem_alloc() - nvsBase;
const result = { base_bytes: base, fake_nvs_bytes: nvsBase, base_qstr_bytes: qstrs()[1], actions: {}, largest_allocation: { bytes: 0, during: "" },
  largest_after_start: { bytes: 0, during: "" } };

// One call into the port, measured: allocated bytes, the largest new block, the live heap after.
function measured(label, fn) {
  gc.collect();
  const before = gc.mem_alloc();
  const map0 = blockMap();
  const [pools0] = qstrs();
  const value = fn();
  const allocated = gc.mem_alloc() - before;
  const [pools1] = qstrs();
  const [largest, kind] = largestNew(map0, blockMap(), pools1 - pools0);
  gc.collect();
  if (largest > result.largest_allocation.bytes) result.largest_allocation = { bytes: largest, during: label, kind };
  nvsNow = nvsWeight();
  return { value, allocated, largest, live: gc.mem_alloc() - nvsNow - base };
}

// Run an action's steps until nothing is pending; record its figures under `label`.
function action(label, first) {
  const stats = { steps: 0, allocated_bytes: 0, largest_step_allocation_bytes: 0, peak_bound_bytes: 0, largest_allocation_bytes: 0 };
  let step = first;
  for (;;) {
    gc.collect();
    const liveBefore = gc.mem_alloc() - nvsNow - base;
    const m = measured(label, step);
    stats.steps++;
    stats.allocated_bytes += m.allocated;
    stats.largest_step_allocation_bytes = Math.max(stats.largest_step_allocation_bytes, m.allocated);
    stats.peak_bound_bytes = Math.max(stats.peak_bound_bytes, liveBefore + m.allocated);
    stats.largest_allocation_bytes = Math.max(stats.largest_allocation_bytes, m.largest);
    stats.live_after_bytes = m.live;
    if (!m.value) break;
    step = () => B.step();
  }
  stats.modules = JSON.parse(B.loaded_modules());
  result.actions[label] = stats;
  if (label !== "start" && stats.largest_allocation_bytes > result.largest_after_start.bytes)
    result.largest_after_start = { bytes: stats.largest_allocation_bytes, during: label };
  return stats;
}

action("start", () => (B.start(), B.step()));
action("client_connected", () => (B.connect(), B.step()));
for (const kind of ["tools_list", "read", "recall_10", "recall_50", "sync_apply_20"]) {
  const answered = B.answered();
  // The request arrives before the step that reads it: its bytes are the peer's (lwIP's on a
  // board), so building and feeding them is left out of the device's figures.
  B.send(kind);
  action(kind, () => B.step());
  result.actions[kind].request_bytes = B.request_bytes();
  if (B.answered() !== answered + 1) throw new Error(`${kind}: no answer came back`);
}
result.modules = JSON.parse(B.loaded_modules());
// The interpreter's table of names (qstrs): a frozen build keeps the code's names in flash.
result.qstr_bytes = qstrs()[1] - result.base_qstr_bytes;

// The WebSocket alone: 1 KB frames sent (server and client role) and received.
const frames = {};
for (const [role, client] of [["server", false], ["client_masked", true]]) {
  B.frame_socket(client);
  measured("frames", () => B.send_frame()); // the first frame pays for the task machinery once
  let sent = 0;
  let largest = 0;
  for (let i = 0; i < 8; i++) {
    const m = measured("frames", () => B.send_frame());
    sent += m.allocated;
    largest = Math.max(largest, m.largest);
  }
  frames[`sent_1k_${role}`] = { allocated_per_frame_bytes: Math.round(sent / 8), largest_allocation_bytes: largest };
  B.release();
}
B.frame_socket(false);
B.start_receiver();
measured("frames", () => B.feed_frame());
measured("frames", () => B.recv_frame()); // the first frame pays for the receiver's start once
let received = 0;
let largestRecv = 0;
let length = 0;
for (let i = 0; i < 8; i++) {
  measured("frames", () => B.feed_frame());
  const m = measured("frames", () => B.recv_frame());
  received += m.allocated;
  largestRecv = Math.max(largestRecv, m.largest);
  length = m.value;
}
frames.received_1k_text = {
  allocated_per_frame_bytes: Math.round(received / 8),
  message_chars: length,
  largest_allocation_bytes: largestRecv,
};
B.release();
result.frames = frames;
console.log("@@json " + JSON.stringify(result));
process.exit(0);
