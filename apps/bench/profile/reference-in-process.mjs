// handler.handle() around the reference engine or the fixed one, in process: µs of CPU per
// JSON request, both interleaved, 5 rounds. The reference engine's own cost is the difference.
// taskset -c 0 node [--cpu-prof --cpu-prof-dir=/tmp/prof] apps/bench/profile/reference-in-process.mjs [reference-only]
import { createChatHandler, insecureAcceptAnyApiKey } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { createFixedEngine, jsonRequestBody } from '../src/lib/fixtures.mjs';
import { InProcessRequest } from '../src/lib/in-process-request.mjs';

const handlers = {
  reference: createChatHandler({ engine: createReferenceEngine(), accessControl: insecureAcceptAnyApiKey() }),
  fixed: createChatHandler({ engine: createFixedEngine(), accessControl: insecureAcceptAnyApiKey() }),
};
if (process.argv[2] === 'reference-only') delete handlers.fixed;
const bytes = Buffer.from(jsonRequestBody);
async function once(handler) {
  const response = await handler.handle(new InProcessRequest(bytes));
  if (response.status !== 200) throw new Error(response.body);
}
for (const handler of Object.values(handlers)) for (let i = 0; i < 3000; i++) await once(handler);
for (let round = 0; round < 5; round++) {
  const figures = [];
  for (const [name, handler] of Object.entries(handlers)) {
    const n = 5000;
    const start = process.cpuUsage();
    for (let i = 0; i < n; i++) await once(handler);
    const used = process.cpuUsage(start);
    figures.push(`${name} ${((used.user + used.system) / n).toFixed(1)} µs`);
  }
  console.log(`handle() CPU per JSON request: ${figures.join(', ')}`);
}
