// What the objects new between two heap snapshots of one process are held by: for each new
// object, the kind of the object and edge that retain it (its first retainer that is not a weak
// or internal bookkeeping edge), summed by kind, largest first. Snapshot ids are stable within a
// process, so "new" is an id the first snapshot lacks.
// `node apps/bench/profile/heap-retainers.mjs before.heapsnapshot after.heapsnapshot [per=1000] [rows=40]`
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

function load(path) {
  const raw = JSON.parse(readFileSync(path, 'utf8'));
  const meta = raw.snapshot.meta;
  return { meta, nodes: raw.nodes, edges: raw.edges, strings: raw.strings };
}

/** Bytes and counts of the objects new in `after` (not in `before`), by `kind ← retainer.edge`. */
export function newObjectsByRetainer(beforePath, afterPath) {
  const before = load(beforePath);
  const beforeIds = new Set();
  {
    const width = before.meta.node_fields.length;
    const idAt = before.meta.node_fields.indexOf('id');
    for (let index = 0; index < before.nodes.length; index += width) beforeIds.add(before.nodes[index + idAt]);
  }
  const { meta, nodes, edges, strings } = load(afterPath);
  const fields = meta.node_fields;
  const width = fields.length;
  const [typeAt, nameAt, idAt, sizeAt, edgeCountAt] = ['type', 'name', 'id', 'self_size', 'edge_count'].map((field) => fields.indexOf(field));
  const nodeTypes = meta.node_types[0];
  const edgeFields = meta.edge_fields;
  const edgeWidth = edgeFields.length;
  const [edgeTypeAt, edgeNameAt, toAt] = ['type', 'name_or_index', 'to_node'].map((field) => edgeFields.indexOf(field));
  const edgeTypes = meta.edge_types[0];
  const count = nodes.length / width;
  const kindOf = (node) => {
    const type = nodeTypes[nodes[node * width + typeAt]];
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string' || type === 'number') return `(${type})`;
    return `${type} ${strings[nodes[node * width + nameAt]]}`.slice(0, 60);
  };
  // First strong retainer of each node.
  const retainer = new Int32Array(count).fill(-1);
  const retainerEdge = new Array(count);
  let edgeIndex = 0;
  for (let node = 0; node < count; node++) {
    const edgeCount = nodes[node * width + edgeCountAt];
    for (let e = 0; e < edgeCount; e++, edgeIndex += edgeWidth) {
      const edgeType = edgeTypes[edges[edgeIndex + edgeTypeAt]];
      if (edgeType === 'weak' || edgeType === 'shortcut') continue;
      const to = edges[edgeIndex + toAt] / width;
      if (retainer[to] !== -1) continue;
      const ownerType = nodeTypes[nodes[node * width + typeAt]];
      if (ownerType === 'synthetic' || ownerType === 'hidden' && edgeType === 'weak') continue;
      retainer[to] = node;
      const name = edgeType === 'element' || edgeType === 'hidden' ? `[${edges[edgeIndex + edgeNameAt]}]` : String(strings[edges[edgeIndex + edgeNameAt]]);
      retainerEdge[to] = name.slice(0, 40);
    }
  }
  const kinds = new Map();
  for (let node = 0; node < count; node++) {
    if (beforeIds.has(nodes[node * width + idAt])) continue;
    const owner = retainer[node];
    const key = `${kindOf(node)}  ←  ${owner === -1 ? '(none)' : `${kindOf(owner)} .${retainerEdge[node]}`}`;
    const kind = kinds.get(key) ?? { size: 0, count: 0 };
    kind.size += nodes[node * width + sizeAt];
    kind.count++;
    kinds.set(key, kind);
  }
  return kinds;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [beforePath, afterPath, per = '1000', rows = '40'] = process.argv.slice(2);
  const kinds = newObjectsByRetainer(beforePath, afterPath);
  const sorted = [...kinds].sort((a, b) => b[1].size - a[1].size);
  const total = sorted.reduce((sum, [, kind]) => sum + kind.size, 0);
  console.log(`New objects: ${(total / Number(per) / 1024).toFixed(1)} KiB per unit (${per} units)`);
  for (const [key, kind] of sorted.slice(0, Number(rows))) console.log(`${(kind.size / Number(per)).toFixed(0).padStart(6)} B ${(kind.count / Number(per)).toFixed(2).padStart(6)} × ${key}`);
}
