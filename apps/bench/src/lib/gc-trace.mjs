// Lines printed by `node --trace-gc-nvp`, one per collection: which are young-generation
// collections (scavenges), whose isolate they are, and their figures.

/** A figure of one trace line (`pause`, `promoted`, `new_space_survived`, `allocated`, ...); 0 when absent. */
export function gcFigure(line, name) {
  return Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
}

/** The scavenges among `lines`. */
export function scavengeLines(lines) {
  return lines.filter((line) => /gc=s\b/.test(line));
}

/** The full collections among `lines`. */
export function majorGcLines(lines) {
  return lines.filter((line) => /gc=(ms|mc|mmc)\b/.test(line));
}

/** The trace lines of the isolate with the most of them (`[pid:0x…]`): the main thread's, not a worker thread's. */
export function mainIsolateLines(lines) {
  const isolateOf = (line) => /^\[\d+:(0x[0-9a-f]+)\]/.exec(line)?.[1];
  const counts = new Map();
  for (const line of lines) {
    const isolate = isolateOf(line);
    if (isolate !== undefined) counts.set(isolate, (counts.get(isolate) ?? 0) + 1);
  }
  const main = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
  return lines.filter((line) => isolateOf(line) === main);
}
