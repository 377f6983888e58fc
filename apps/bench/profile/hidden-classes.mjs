// Hidden classes (V8 maps) the server makes per request, by the line that makes them
// (`src/lib/hidden-classes.mjs`). Each should be 0; the guard holds the main paths there.
// node apps/bench/profile/hidden-classes.mjs ready <fixed|reference> <chat|responses> <json|stream|resumable> [sqlite|postgres]
// node apps/bench/profile/hidden-classes.mjs relay <json|stream>
// (built first: `pnpm build`). HIDDEN_CLASSES_REQUESTS=warmup,measured (400,400 by default).
import { hiddenClassesPerRequest, totalPerRequest } from '../src/lib/hidden-classes.mjs';

const testCase = process.argv.slice(2);
const [warmup, measured] = (process.env.HIDDEN_CLASSES_REQUESTS ?? '400,400').split(',').map(Number);
const rows = await hiddenClassesPerRequest(testCase.length > 0 ? testCase : ['relay', 'json'], { warmup, measured });
console.log(`${testCase.join(' ')}: ${totalPerRequest(rows).toFixed(2)} map events a request (${measured} measured after ${warmup})`);
for (const [perRequest, what] of rows.slice(0, 30)) console.log(`  ${perRequest.toFixed(2)}  ${what}`);
