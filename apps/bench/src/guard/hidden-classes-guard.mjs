// The hidden-class guard: the server's main paths must not make a V8 hidden class per request
// (`src/lib/hidden-classes.mjs` counts them under `--log-maps`). One per request is a cost each
// time and sends every reader of such objects megamorphic; on Node 20 an object literal that
// starts with a spread and goes on (`{ ...a, b }`) is the usual way in (docs/contributing/performance.md).
// Fails when any one site makes half a map event a request or more. About a minute.
//   node apps/bench/src/guard/hidden-classes-guard.mjs      (after `pnpm build`)
import { hiddenClassesPerRequest, totalPerRequest } from '../lib/hidden-classes.mjs';

/** A site at this many map events a request or more fails: a hidden class per request makes one or more. */
const limit = 0.5;

const cases = [
  ['relay', 'json'],
  ['relay', 'stream'],
  ['ready', 'reference', 'chat', 'resumable'],
  ['ready', 'fixed', 'responses', 'json'],
];

let failed = false;
for (const testCase of cases) {
  const rows = await hiddenClassesPerRequest(testCase);
  const over = rows.filter(([perRequest]) => perRequest >= limit);
  failed ||= over.length > 0;
  console.log(`${over.length > 0 ? 'FAIL' : 'ok  '}  ${testCase.join(' ')}: ${totalPerRequest(rows).toFixed(2)} map events a request`);
  for (const [perRequest, what] of over) console.log(`        ${perRequest.toFixed(2)} a request: ${what}`);
}
if (failed) {
  console.log(`A hot path makes a hidden class per request (limit ${limit} map events a request at one site): see the line:column of the built file above.`);
  process.exit(1);
}
