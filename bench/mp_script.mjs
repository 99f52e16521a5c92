// Runs one MicroPython module (a script) inside the official WebAssembly port and passes its output through.
//
//   node bench/mp_script.mjs --map HOSTDIR:MPDIR ... --path MPDIR ... --module NAME [--heap BYTES]
//
// Like tests/mp/run.mjs, but the module is a program rather than tests. If it has a generator
// function main(), each step up to its next `yield` runs in a separate call into the port, and
// gc.collect() runs between steps from the top level: inside a running call the port's collector
// keeps garbage the wasm stack may still point at, so gc.mem_alloc() is only exact between calls.
import { loadPort, parseArgs } from "../tests/mp/port.mjs";

const opts = parseArgs(process.argv.slice(2), ["--module"]);
const moduleName = opts.extra["--module"]?.[0];
if (!moduleName) throw new Error("--module is required");
const mp = await loadPort(opts);
mp.runPython(`
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
