// handler.handle() in process: µs of CPU per JSON request, a chat completion against the same
// request on the Responses API (`store: false`, as the bench's responses suite sends it), 7
// interleaved rounds of N (20,000 by default). `node apps/bench/profile/responses-in-process.mjs [chat|responses]`
// measures one side alone, for a profile:
// node --cpu-prof --cpu-prof-dir=/tmp/prof apps/bench/profile/responses-in-process.mjs responses
import { createChatHandler, insecureAcceptAnyApiKey } from '@quantum-chat/core';
import { createFixedEngine, requestObject } from '../src/lib/fixtures.mjs';
import { InProcessRequest } from '../src/lib/in-process-request.mjs';

const handler = createChatHandler({ engine: createFixedEngine(), accessControl: insecureAcceptAnyApiKey() });
const encode = (value) => Buffer.from(JSON.stringify(value));
const sides = {
  chat: { path: '/chat/completions', bytes: encode(requestObject) },
  responses: {
    path: '/responses',
    bytes: encode({
      model: requestObject.model,
      input: requestObject.messages.map((message) => ({ role: message.role, content: message.content })),
      temperature: requestObject.temperature,
      max_output_tokens: requestObject.max_tokens,
      user: requestObject.user,
      stream: false,
      store: false,
    }),
  },
};
async function run(side, count) {
  for (let index = 0; index < count; index++) {
    const response = await handler.handle(new InProcessRequest(side.bytes, side.path));
    if (response.status !== 200) throw new Error(`${side.path}: ${response.status} ${response.body}`);
  }
}
const only = process.argv[2];
const names = Object.keys(sides).filter((name) => only === undefined || name === only);
const count = Number(process.env.N ?? 20_000);
for (const name of names) await run(sides[name], 10_000);
const micros = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < 7; round++) {
  for (const name of round % 2 === 0 ? names : [...names].reverse()) {
    const start = process.cpuUsage();
    await run(sides[name], count);
    const used = process.cpuUsage(start);
    micros[name].push((used.user + used.system) / count);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
for (const name of names) console.log(`${name}: ${median(micros[name]).toFixed(2)} µs per request`);
if (names.length === 2) console.log(`responses / chat: ${median(micros.responses.map((value, round) => value / micros.chat[round])).toFixed(2)}× (rounds ${micros.responses.map((value, round) => (value / micros.chat[round]).toFixed(2)).join(' ')})`);
