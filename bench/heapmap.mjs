// The collector's block map as micropython.mem_info(1) prints it, shared by the heap benchmarks.

export const BLOCK = 16; // bytes per heap block on the 32-bit port

// Every allocated block run in the printed map, as "area:offset" -> {n: length in blocks, kind}.
export function parseBlockMap(lines) {
  const runs = new Map();
  let area = "";
  let cells = "";
  const flush = () => {
    for (let i = 0; i < cells.length; i++) {
      const c = cells[i];
      if (c === "." || c === "=") continue;
      let n = 1;
      while (i + n < cells.length && cells[i + n] === "=") n++;
      runs.set(`${area}:${i}`, { n, kind: c });
    }
  };
  for (const raw of lines) {
    const line = raw.replace(/\r$/, "");
    const from = line.match(/^GC memory layout; from ([0-9a-fx]+):/);
    const row = line.match(/^([0-9a-f]{8}): (.*)$/);
    const free = line.match(/^\s+\((\d+) lines all free\)/);
    if (from) {
      flush();
      area = from[1];
      cells = "";
    } else if (row) {
      cells += row[2];
    } else if (free) {
      cells += ".".repeat(64 * Number(free[1]));
    }
  }
  flush();
  return runs;
}

// The runs of `after` that were not in `before` (new or changed), biggest first.
export function newRuns(before, after) {
  const fresh = [];
  for (const [key, run] of after) {
    const old = before.get(key);
    if (!old || old.n !== run.n || old.kind !== run.kind) fresh.push(run);
  }
  return fresh.sort((a, b) => b.n - a.n);
}
