// The core's rooms and their floors (docs/architecture.md), as ESLint rules: a room imports
// only from rooms on its own floor or below, never from a package entry, and only the Node
// bridge imports `node:`. One `no-restricted-imports` block per room, so the linter names the
// boundary a change crosses. Tests are exempt: they drive a room through the handler above it.

/** Bottom to top. Rooms on one floor may import each other (without a cycle). */
const coreFloors = [
  ['contract', 'sse', 'schemas', 'json-schema', 'ids'],
  ['dialect', 'wire'],
  ['auth', 'models', 'errors', 'engine', 'tools'],
  ['request', 'run'],
  ['streams', 'openapi'],
  ['http', 'node'],
];

const entries = ['index', 'host', 'node', 'dialect', 'json-schema', 'schemas', 'sse', 'responses'];
const source = 'packages/core/src';

/** The rooms above `floor`: what a room on it may not import. */
function roomsAbove(floor) {
  return coreFloors.slice(floor + 1).flat();
}

function roomBlock(room, floor) {
  const isFile = room === 'ids';
  // A file sits in its room or up to two folders below it (`run/responses/x.ts`).
  const ups = isFile ? ['./'] : ['../', '../../', '../../../'];
  const above = roomsAbove(floor);
  const patterns = [];
  if (above.length > 0) {
    patterns.push({
      group: ups.flatMap((up) => above.flatMap((name) => (name === 'ids' ? [`${up}ids.js`] : [`${up}${name}/*`, `${up}${name}/**`]))),
      message: `core/${room} sits on floor ${floor} (docs/architecture.md): it may not import a room above it (${above.join(', ')}).`,
    });
  }
  patterns.push({
    group: ups.flatMap((up) => entries.map((name) => `${up}${name}.js`)),
    message: 'A room imports the file it needs, never a package entry (entries only re-export).',
  });
  if (room !== 'node') patterns.push({ group: ['node:*'], message: 'Only the Node bridge (core/node) imports `node:`: the core is runtime-neutral.' });
  return {
    name: `core-rooms/${room}`,
    files: [isFile ? `${source}/${room}.ts` : `${source}/${room}/**/*.ts`],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns }] },
  };
}

/** One config block per room of the core. */
export const coreRoomRules = coreFloors.flatMap((rooms, floor) => rooms.map((room) => roomBlock(room, floor)));
