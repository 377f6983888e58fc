// The Responses event encoder against the chat stream frame encoder (issue 25: within 1.5×):
// whole 200-token streams of the same engine events, in one process, interleaved round by
// round (ABBA), CPU time per round. Prints one JSON line; `ratio` is the Responses encoder's
// CPU time over the chat encoder's (lower is better; the target is at most 1.5). The encoders
// are internal to the core, so they are compiled from source with esbuild into .cache/, as
// `lib/frame-encoder.mjs` does; files are found by name, wherever the core's rooms put them.
//
//   node apps/bench/src/guard/responses-encoder-ratio.mjs
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { median } from '../lib/stats.mjs';

const coreSource = fileURLToPath(new URL('../../../../packages/core/src/', import.meta.url));
const outDirectory = fileURLToPath(new URL('../../.cache/', import.meta.url));
const rounds = Number(process.env.GUARD_ROUNDS ?? 21);
const streamsPerRound = 100;
const coreFiles = readdirSync(coreSource, { recursive: true }).map(String);

function coreFile(name) {
  const found = coreFiles.find((path) => path === name || path.endsWith(`/${name}`));
  if (found === undefined) throw new Error(`No ${name} in packages/core/src`);
  return coreSource + found;
}

async function loadEncoders() {
  mkdirSync(outDirectory, { recursive: true });
  const entry = `${outDirectory}responses-encoder-entry.ts`;
  const exports = {
    createStreamFrameEncoder: 'stream-frame-encoder.ts',
    toWireUsage: 'wire-usage.ts',
    createResponseEventEncoder: 'responses/response-event-encoder.ts',
    createResponseShell: 'responses/response-shell.ts',
    generateRandomResponseId: 'responses/response-ids.ts',
    validateCreateResponse: 'responses/validate-create-response.ts',
  };
  writeFileSync(entry, Object.entries(exports).map(([name, file]) => `export { ${name} } from ${JSON.stringify(coreFile(file))};`).join('\n'));
  const outfile = `${outDirectory}responses-encoder.mjs`;
  await build({ entryPoints: [entry], outfile, bundle: true, format: 'esm', platform: 'neutral', target: 'es2022', logLevel: 'error', mainFields: ['module', 'main'] });
  return import(`${pathToFileURL(outfile).href}?t=${Date.now()}`);
}

const core = await loadEncoders();
const words = 'Server-sent events are plain HTTP: one long response, café, 東京 and "quotes". '.split(/(?= )/);
const tokens = Array.from({ length: 200 }, (_, index) => words[index % words.length]);
const events = [...tokens.map((text) => ({ type: 'content', text })), { type: 'finish', reason: 'stop', usage: { promptTokens: 20, completionTokens: 200, reasoningTokens: 0 } }];
const request = core.validateCreateResponse({ model: 'quantum-flash', input: 'Hi' });

/** One chat stream as the handler writes it: a frame per content event, then finish, usage and [DONE]. */
function chatStream() {
  const encoder = core.createStreamFrameEncoder('quantum', { id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT', created: 1_767_225_600, model: 'quantum-flash' });
  let length = 0;
  for (const event of events) {
    length += (event.type === 'content' ? encoder.content(event.text) : encoder.finish('stop', core.toWireUsage(event.usage)) + encoder.done()).length;
  }
  return length;
}

/** The same run as a Responses stream: created and in_progress, the message's events, completed. */
function responsesStream() {
  const shell = core.createResponseShell(request, { id: 'resp_B9MBs8CjcvOU2jLn4n570S5q', createdAt: 1_767_225_600, model: 'quantum-flash' });
  const encoder = core.createResponseEventEncoder(shell, { generateId: core.generateRandomResponseId, showReasoning: false, showLogprobs: false, now: () => 1_767_225_601 });
  let length = encoder.start().length;
  for (const event of events) length += encoder.encode(event).length;
  return length;
}

function cpuMicros(run) {
  const start = process.cpuUsage();
  for (let index = 0; index < streamsPerRound; index++) run();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

for (let warm = 0; warm < 4; warm++) cpuMicros(warm % 2 === 0 ? chatStream : responsesStream);
const times = { chat: [], responses: [] };
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? ['chat', 'responses'] : ['responses', 'chat'];
  for (const name of order) times[name].push(cpuMicros(name === 'chat' ? chatStream : responsesStream));
}
const ratios = times.responses.map((time, round) => time / times.chat[round]);
console.log(
  JSON.stringify({
    ratio: Number(median(ratios).toFixed(2)),
    range: [Math.min(...ratios), Math.max(...ratios)].map((value) => Number(value.toFixed(2))),
    microsPerStream: { chat: Number((median(times.chat) / streamsPerRound).toFixed(1)), responses: Number((median(times.responses) / streamsPerRound).toFixed(1)) },
    bytesPerStream: { chat: chatStream(), responses: responsesStream() },
  }),
);
