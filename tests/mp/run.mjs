// Runs one MicroPython unittest module inside the official WebAssembly port.
//
//   node tests/mp/run.mjs --map HOSTDIR:MPDIR ... --path MPDIR ... --module NAME [--heap BYTES]
//
// Each --map copies a host folder's .py files (recursively) into the port's in-memory filesystem;
// each --path is put on sys.path. Results come back on stdout as lines "@@xzmem-test {json}".
import { loadPort, parseArgs } from "./port.mjs";

const opts = parseArgs(process.argv.slice(2), ["--module"]);
const moduleName = opts.extra["--module"]?.[0];
if (!moduleName) throw new Error("--module is required");
const mp = await loadPort(opts);
await mp.runPythonAsync(`
import mp_unittest
await mp_unittest.run(${JSON.stringify(moduleName)})
`);
