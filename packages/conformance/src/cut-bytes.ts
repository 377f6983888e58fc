/** One way of cutting a stream into the pieces the fixture server writes. */
export interface Cutting {
  label: string;
  pieces: Uint8Array[];
}

/** mulberry32: a tiny seeded PRNG, so every cutting is the same on every run. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of a string: the seed of a fixture's cuttings. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) value = Math.imul(value ^ text.charCodeAt(index), 0x01000193);
  return value >>> 0;
}

function cutAt(bytes: Uint8Array, positions: Iterable<number>): Uint8Array[] {
  const sorted = [...new Set(positions)].filter((position) => position > 0 && position < bytes.length).sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const position of [...sorted, bytes.length]) {
    pieces.push(bytes.subarray(start, position));
    start = position;
  }
  return pieces;
}

/** Positions inside multibyte UTF-8 sequences, right after each CR, and inside each `data:` field name. */
function awkwardPositions(bytes: Uint8Array): number[] {
  const positions: number[] = [];
  for (let index = 1; index < bytes.length; index++) {
    const byte = bytes[index]!;
    if ((byte & 0xc0) === 0x80) positions.push(index);
    if (bytes[index - 1] === 0x0d) positions.push(index);
    if (bytes[index - 1] === 0x64 && byte === 0x61) positions.push(index);
  }
  return positions;
}

/**
 * The cuttings of one fixture: whole, one byte at a time, at every awkward place (inside
 * multibyte characters, between CR and LF), and `randomCuttings` seeded random ones.
 */
export function cutStream(id: string, bytes: Uint8Array, randomCuttings = 3): Cutting[] {
  const cuttings: Cutting[] = [
    { label: 'whole', pieces: [bytes] },
    { label: 'bytewise', pieces: cutAt(bytes, Array.from({ length: bytes.length }, (_, index) => index)) },
    { label: 'awkward', pieces: cutAt(bytes, awkwardPositions(bytes)) },
  ];
  for (let round = 1; round <= randomCuttings; round++) {
    const random = createRandom(hash(`${id}#${round}`));
    const count = 1 + Math.floor(random() * Math.min(40, bytes.length));
    cuttings.push({ label: `random-${round}`, pieces: cutAt(bytes, Array.from({ length: count }, () => Math.floor(random() * bytes.length))) });
  }
  return cuttings;
}
