// handler.handle() alone, in process: µs of CPU per JSON request, 5 rounds of 50,000.
// taskset -c 0 node --cpu-prof --cpu-prof-dir=/tmp/prof apps/bench/profile/handler-in-process.mjs
import { createChatHandler, insecureAcceptAnyApiKey } from '@quantum-chat/core';
import { createFixedEngine, jsonRequestBody } from '../src/lib/fixtures.mjs';
import { InProcessRequest } from '../src/lib/in-process-request.mjs';
const handler = createChatHandler({ engine: createFixedEngine(), accessControl: insecureAcceptAnyApiKey() });
const bytes = Buffer.from(jsonRequestBody);
async function once() {
  const r = await handler.handle(new InProcessRequest(bytes));
  if (r.status !== 200) throw new Error(r.body);
}
for (let i = 0; i < 20000; i++) await once();
for (let round = 0; round < 5; round++) {
  const n = 50000; const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await once();
  const c = process.cpuUsage(c0); console.log('handle() µs CPU per request:', ((c.user + c.system) / n).toFixed(2));
}
