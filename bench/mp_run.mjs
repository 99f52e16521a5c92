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
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";
import fs from "node:fs";
import path from "node:path";

const args = process.argv.slice(2);
const maps = [];
const argv = [];
let script = null;
for (let i = 0; i < args.length; i += 2) {
  const [flag, value] = [args[i], args[i + 1]];
  if (flag === "--map") maps.push(value.split(":"));
  else if (flag === "--script") script = value;
  else if (flag === "--arg") argv.push(value);
  else throw new Error(`unknown flag ${flag}`);
}
if (!script) throw new Error("--script is required");

const mp = await loadMicroPython({
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});

function mkdirs(dir) {
  let cur = "";
  for (const part of dir.split("/").filter(Boolean)) {
    cur += "/" + part;
    try { mp.FS.mkdir(cur); } catch (e) { /* exists */ }
  }
}

function copyTree(src, dst) {
  mkdirs(dst);
  for (const entry of fs.readdirSync(src, { withFileTypes: true })) {
    if (entry.name === "__pycache__" || entry.name === "micropython.py") continue;
    const from = path.join(src, entry.name);
    if (entry.isDirectory()) copyTree(from, dst + "/" + entry.name);
    else mp.FS.writeFile(dst + "/" + entry.name, fs.readFileSync(from));
  }
}

for (const [src, dst] of maps) copyTree(src, dst);
mp.FS.writeFile("/argv.json", JSON.stringify(argv));
await mp.runPythonAsync(`
import sys
sys.path.insert(0, "/lib")
`);
mp.runPython(fs.readFileSync(script, "utf8"));
mp.runPython("_xz_more = 'step' in globals()");
while (mp.globals.get("_xz_more")) {
  mp.runPython("_xz_more = step()"); // each call starts after a collection
}
