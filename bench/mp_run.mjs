// Runs one MicroPython script inside the WebAssembly port, with host folders copied in.
//
//   node bench/mp_run.mjs --map HOSTDIR:MPDIR ... --script FILE.py [--arg VALUE ...]
//
// Every file of each mapped folder is copied (not only .py: benchmarks bring their data), the
// CPython stand-in micropython.py excepted. The --arg values are in /argv.json (a JSON list),
// since the port's sys has no argv.
//
// This port collects garbage only between calls from JavaScript (gc.collect() inside a call just
// schedules it). A script that needs collections while it works defines step(): the runner calls
// it from the top level, again and again, until it returns something false.
import fs from "node:fs";
import { loadPort, parseArgs } from "../tests/mp/port.mjs";

const opts = parseArgs(process.argv.slice(2), ["--script", "--arg"]);
const script = opts.extra["--script"]?.[0];
const argv = opts.extra["--arg"] ?? [];
if (!script) throw new Error("--script is required");
opts.paths.push("/lib");
const mp = await loadPort(opts, { allFiles: true });
mp.FS.writeFile("/argv.json", JSON.stringify(argv));
mp.runPython(fs.readFileSync(script, "utf8"));
mp.runPython("_xz_more = 'step' in globals()");
while (mp.globals.get("_xz_more")) {
  mp.runPython("_xz_more = step()"); // each call starts after a collection
}
