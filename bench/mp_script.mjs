// Runs one MicroPython module (a script) inside the official WebAssembly port and passes its output through.
//
//   node bench/mp_script.mjs --map HOSTDIR:MPDIR ... --path MPDIR ... --module NAME [--heap BYTES]
//
// Like tests/mp/run.mjs, but the module is a program rather than tests. If it has a generator
// function main(), each step up to its next `yield` runs in a separate call into the port, and
// gc.collect() runs between steps from the top level: inside a running call the port's collector
// keeps garbage the wasm stack may still point at, so gc.mem_alloc() is only exact between calls.
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";
import fs from "node:fs";
import path from "node:path";

const args = process.argv.slice(2);
const maps = [];
const paths = [];
let moduleName = null;
let heap = 8 * 1024 * 1024;
for (let i = 0; i < args.length; i += 2) {
  const [flag, value] = [args[i], args[i + 1]];
  if (flag === "--map") maps.push(value.split(":"));
  else if (flag === "--path") paths.push(value);
  else if (flag === "--module") moduleName = value;
  else if (flag === "--heap") heap = Number(value);
  else throw new Error(`unknown flag ${flag}`);
}
if (!moduleName) throw new Error("--module is required");

const mp = await loadMicroPython({
  heapsize: heap,
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
    if (entry.name === "__pycache__" || entry.name.startsWith(".")) continue;
    const from = path.join(src, entry.name);
    const to = dst + "/" + entry.name;
    if (entry.isDirectory()) copyTree(from, to);
    // The port has its own micropython module; the CPython stand-in must not shadow it.
    else if (entry.name.endsWith(".py") && entry.name !== "micropython.py") mp.FS.writeFile(to, fs.readFileSync(from));
  }
}

for (const [src, dst] of maps) copyTree(src, dst);
const setup = paths.map((p) => `sys.path.insert(0, ${JSON.stringify(p)})`).join("\n");
mp.runPython(`
import sys
${setup}
import ${moduleName} as _program
_steps = _program.main() if hasattr(_program, "main") else iter(())
`);
for (;;) {
  mp.runPython("import gc\ngc.collect()");
  try {
    mp.runPython("next(_steps)");
  } catch (e) {
    if (e.type === "StopIteration") break;
    throw e;
  }
}
