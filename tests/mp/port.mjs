// The MicroPython WebAssembly port with host folders copied into its in-memory filesystem.
//
// Shared by the test runner (tests/mp/run.mjs) and the benchmark runners (bench/*.mjs).
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";
import fs from "node:fs";
import path from "node:path";

// Flags every runner takes: --map HOSTDIR:MPDIR (repeatable), --path MPDIR (repeatable), --heap BYTES.
// Runner-specific flags are collected into `extra` as {flag: [values]}.
export function parseArgs(argv, known) {
  const opts = { maps: [], paths: [], heap: 8 * 1024 * 1024, extra: {} };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === "--map") opts.maps.push(value.split(":"));
    else if (flag === "--path") opts.paths.push(value);
    else if (flag === "--heap") opts.heap = Number(value);
    else if (known.includes(flag)) (opts.extra[flag] ??= []).push(value);
    else throw new Error(`unknown flag ${flag}`);
  }
  return opts;
}

// Load the port and copy each mapped folder in: only .py files, or every file with allFiles
// (benchmarks bring data and .mpy files). The CPython stand-in micropython.py never goes in: the
// port has its own. `stdout` takes each line the port prints (default: this process's stdout).
export async function loadPort({ maps, paths, heap }, { allFiles = false, stdout = null } = {}) {
  const mp = await loadMicroPython({
    heapsize: heap,
    stdout: stdout ?? ((line) => process.stdout.write(line + "\n")),
    stderr: (line) => process.stderr.write(line + "\n"),
  });
  const mkdirs = (dir) => {
    let cur = "";
    for (const part of dir.split("/").filter(Boolean)) {
      cur += "/" + part;
      try { mp.FS.mkdir(cur); } catch (e) { /* exists */ }
    }
  };
  const copyTree = (src, dst) => {
    mkdirs(dst);
    for (const entry of fs.readdirSync(src, { withFileTypes: true })) {
      if (entry.name === "__pycache__" || entry.name.startsWith(".") || entry.name === "micropython.py") continue;
      const from = path.join(src, entry.name);
      const to = dst + "/" + entry.name;
      if (entry.isDirectory()) copyTree(from, to);
      else if (allFiles || entry.name.endsWith(".py")) mp.FS.writeFile(to, fs.readFileSync(from));
    }
  };
  for (const [src, dst] of maps) copyTree(src, dst);
  mp.runPython("import sys\n" + paths.map((p) => `sys.path.insert(0, ${JSON.stringify(p)})`).join("\n"));
  return mp;
}
