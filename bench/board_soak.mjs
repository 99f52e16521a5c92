// Runs bench/board_soak_mp.py inside the WebAssembly port on a fixed heap, and prints JSON.
//
//   node bench/board_soak.mjs --map HOSTDIR:MPDIR ... --path MPDIR ... --heap BYTES --calls N --seed S
//
// On this port the collector runs only when control is back in JavaScript (between the event
// loop's turns), never in the middle of a call as on a board. So the firmware starts on a large
// heap (start-up alone allocates about 1 MB in one turn); then memory is made unable to grow,
// malloc's free space is taken but for one 256 KB piece and pieces under 32 KB, which the port's
// file layer and JavaScript bridge need (py/gc.c asks for at least the heap's present size when
// it adds an area, so it can add none),
// and ballast takes the heap's free space down to what BYTES leaves beside the started firmware.
// The soak's zero sleeps are made 1 ms (board_soak_mp._turn_sleep) so that turns end often, and the
// firmware's step slices end early once the heap runs low (board_soak_mp._turns_end_when_low, which
// says why: a MemoryError escaping the port's event loop made node spin for good in the port's
// nlr_jump_fail).
//
// The fake NVS keeps its contents on the Python heap, where a board keeps them in flash: they are
// weighed as they load and left out of the budget.
import fs from "node:fs";
import { loadPort, parseArgs } from "../tests/mp/port.mjs";
import { BLOCK, newRuns, parseBlockMap } from "./heapmap.mjs";

const opts = parseArgs(process.argv.slice(2), ["--calls", "--seed"]);
const calls = Number(opts.extra["--calls"]?.[0] ?? 1000);
const seed = Number(opts.extra["--seed"]?.[0] ?? 1);
const boardHeap = opts.heap;
const nvsItems = fs
  .readFileSync(opts.maps.find(([, d]) => d === "/bench")[0] + "/nvs.lines", "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => line.split("\t"));

const quietError = console.error;
console.error = (...a) => {
  if (!String(a[0]).includes("growMemory")) quietError(...a); // a refused growth, as the loader reports it
};

// Loads the NVS items one call at a time: the port collects garbage only between calls from here.
function loadNvs(mp) {
  const B = mp.pyimport("board_soak_mp");
  B.prepare();
  for (const [ns, key, kind, value] of nvsItems) B.add_item(ns, key, kind, value);
}

function collected(mp) {
  const gc = mp.pyimport("gc");
  gc.collect(); // only marks a collection as due: it runs when this call returns
  return gc.mem_alloc();
}

// Start-up and the client's connection, then the heap held to BYTES, then the soak.
let capture = null;
let maps = null; // {before: the map before a call, largest: the biggest run a call added}
const mp = await loadPort(
  { ...opts, heap: 1536 * 1024 },
  {
    allFiles: true,
    stdout: (line) => {
      if (line === "@@map") capture = [];
      else if (line === "@@end") {
        const now = parseBlockMap(capture);
        capture = null;
        if (maps.before) {
          const [run] = newRuns(maps.before, now);
          if (run && run.n * BLOCK > maps.largest) maps.largest = run.n * BLOCK;
          maps.before = null;
        } else maps.before = now;
      } else if (capture) capture.push(line);
      else process.stderr.write(line + "\n");
    },
  },
);
collected(mp);
const empty = collected(mp);
loadNvs(mp);
collected(mp);
const nvsBytes = collected(mp) - empty;
await mp.runPythonAsync(`
import board_soak_mp
await board_soak_mp.boot(${calls}, ${seed})
`);
WebAssembly.Memory.prototype.grow = () => {
  throw new RangeError("the soak's memory is fixed");
};
let taken = 0;
const spare = mp._module._malloc(256 * 1024); // kept free for the port's file reads and writes
for (let size = 16 * 1024 * 1024; size >= 32 * 1024; size >>= 1) {
  while (mp._module._malloc(size)) taken += size;
}
mp._module._free(spare);
const B = mp.pyimport("board_soak_mp");
const started_live = collected(mp) - nvsBytes;
collected(mp);
if (started_live >= boardHeap) {
  console.log("@@json " + JSON.stringify({ error: `the started firmware holds ${started_live} bytes, more than --heap ${boardHeap}` }));
  process.exit(0);
}
const free = B.clamp(boardHeap - started_live);
maps = { before: null, largest: 0 };
const started = Date.now();
const revive = setInterval(() => B.revive(), 50); // the event loop again, after it failed (loop_faults)
// A soak that stops answering (a task ended by the heap running out, and a peer waiting on it for
// good) is reported, not waited on: no call moved on for STALL_SECONDS.
const STALL_SECONDS = 120;
let last = null;
let still = 0;
const watch = setInterval(() => {
  const now = String(B.progress());
  still = now === last ? still + 5 : 0;
  last = now;
  if (still >= STALL_SECONDS) {
    const [call, faults] = now.split(" ");
    const error = `the soak stopped answering at call ${call} for ${STALL_SECONDS} s (loop_faults ${faults})`;
    console.log("@@json " + JSON.stringify({ error }));
    process.exit(0);
  }
}, 5000);
await mp.runPythonAsync(`
board_soak_mp.RESULT = await board_soak_mp.soak()
`);
clearInterval(revive);
clearInterval(watch);
const result = JSON.parse(mp.pyimport("board_soak_mp").RESULT);
const out = {
  memory_errors: result.memory_errors,
  sessions_lost: result.sessions_lost,
  leaked_sockets: result.leaked_sockets,
  live_max: result.live_max - nvsBytes - Number(mp.pyimport("board_soak_mp").BALLAST),
  largest_alloc: maps.largest,
  heap: boardHeap,
  calls,
  seconds: Math.round((Date.now() - started) / 100) / 10,
  seed,
  answered: result.answered,
  tool_errors: result.errors,
  refused_full: result.full,
  reconnects: result.reconnects,
  sockets_opened: result.sockets_opened,
  loop_faults: result.loop_faults,
  low_turns: result.low_turns,
  fake_nvs_bytes: nvsBytes,
  live_after_start: started_live,
  free_at_start: free,
  malloc_taken: taken,
  first_problems: result.first_problems,
};
console.log("@@json " + JSON.stringify(out));
process.exit(0);
