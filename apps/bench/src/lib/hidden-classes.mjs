// Hidden classes (V8 maps) a server makes per request: a server of the case under `--log-maps`
// is sent `warmup` requests, a fresh one `warmup + measured` (four at a time, each answered 200);
// the map events that grow with the requests are counted per measured request, by type,
// reason, property and script position (line:column of the built file). A hot path should make
// none: one hidden class a request costs its making each time and sends its readers megamorphic.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReadyServer } from '../suites/relay-suite.mjs';
import { startChild } from './child.mjs';
import { requestObject, streamRequestBody } from './fixtures.mjs';
import { startPostgres } from './postgres.mjs';

/**
 * A case: `['relay', 'json' | 'stream']`, or
 * `['ready', 'fixed' | 'reference', 'chat' | 'responses', 'json' | 'stream' | 'resumable', 'sqlite' | 'postgres']`.
 */
function requestOf([side, ...rest]) {
  if (side === 'relay') return { path: '/v1/chat/completions', body: JSON.stringify({ ...requestObject, ...(rest[0] === 'stream' ? { max_tokens: 20, stream: true } : { max_tokens: 62 }) }) };
  const [, api = 'chat', kind = 'json'] = rest;
  // The fixed engine streams for the stream fixture's user.
  const streamed = kind === 'json' ? {} : { user: JSON.parse(streamRequestBody).user, stream: true };
  const chat = { ...requestObject, ...streamed, ...(kind === 'resumable' ? { stream_options: { resumable: true } } : {}) };
  if (api === 'chat') return { path: '/v1/chat/completions', body: JSON.stringify(chat) };
  const input = chat.messages.map(({ role, content }) => ({ role, content }));
  return { path: '/v1/responses', body: JSON.stringify({ model: chat.model, input, max_output_tokens: chat.max_tokens, user: chat.user, stream: kind !== 'json', store: false }) };
}

const mapFlags = (file) => ['--log-maps', `--logfile=${file}`, '--no-logfile-per-isolate'];

/** A server of the case under `--log-maps`: its port, key and stop. */
async function startServer([side, ...rest], directory, file, postgres) {
  if (side === 'relay') {
    const upstream = await startChild(fileURLToPath(new URL('../servers/upstream-mock.mjs', import.meta.url)), { role: 'load' });
    const server = await startReadyServer(upstream.ready.port, mkdtempSync(join(directory, 'relay-')), { nodeFlags: mapFlags(file) });
    return { port: server.port, key: server.key, stop: async () => (await server.stop(), await upstream.stop()) };
  }
  const [engine = 'fixed', , , store = 'sqlite'] = rest;
  const child = await startChild(fileURLToPath(new URL('../servers/ready-server.mjs', import.meta.url)), {
    role: 'server',
    args: ['ready', engine, store],
    stdout: 'ignore',
    nodeFlags: mapFlags(file),
    env: postgres ? { DATABASE_URL: postgres.url } : {},
  });
  return { port: child.ready.port, key: child.ready.key, stop: () => child.stop() };
}

/** Map events of a log, counted by type, reason, property and position. */
function mapEvents(file) {
  const counts = new Map();
  for (const line of readFileSync(file, 'latin1').split('\n')) {
    if (!line.startsWith('map,')) continue;
    // map,<type>,<time>,<from>,<to>,<code>,<line>,<column>,<reason>,<name>
    const [, type, , , , , lineNumber, column, reason, name] = line.split(',');
    if (type === 'Create') continue;
    const key = `${type} ${reason || '-'} ${name || '-'} at ${lineNumber}:${column}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** The map events a request of `rows` (as `hiddenClassesPerRequest` answers them), all sites together. */
export const totalPerRequest = (rows) => rows.reduce((sum, [perRequest]) => sum + perRequest, 0);

/** Map events per measured request of a case, largest first: `[perRequest, what]`, those of at least 0.1. */
export async function hiddenClassesPerRequest(testCase, { warmup = 400, measured = 400 } = {}) {
  const directory = mkdtempSync(join(tmpdir(), 'hidden-classes-'));
  const { path, body } = requestOf(testCase);
  const postgres = testCase[0] === 'ready' && testCase[4] === 'postgres' ? await startPostgres({}) : undefined;
  async function serve(requests, file) {
    const server = await startServer(testCase, directory, file, postgres);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${server.key}` };
    try {
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          for (let index = 0; index < requests / 4; index++) {
            const response = await fetch(`http://127.0.0.1:${server.port}${path}`, { method: 'POST', body, headers });
            const text = await response.text();
            if (response.status !== 200) throw new Error(`${testCase.join(' ')}: ${response.status} ${text.slice(0, 200)}`);
          }
        }),
      );
    } finally {
      await server.stop();
    }
    return mapEvents(file);
  }
  try {
    const before = await serve(warmup, join(directory, 'warmup.log'));
    const after = await serve(warmup + measured, join(directory, 'measured.log'));
    const rows = [...after].map(([key, count]) => [(count - (before.get(key) ?? 0)) / measured, key]).filter(([perRequest]) => perRequest >= 0.1);
    return rows.sort((a, b) => b[0] - a[0]);
  } finally {
    await postgres?.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}
