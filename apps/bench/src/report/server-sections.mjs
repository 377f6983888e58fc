// The report's sections on the servers under load: each takes its suite's results and returns
// the section's Markdown blocks (headings, paragraphs, tables), in order.
import { fixed, integer, kib, microseconds, pairedRows, percent, spread, table } from './format.mjs';

const pairedHeader = (baseline, candidate) => ['metric', baseline, candidate, 'ratio (median of pairs)', 'ratio range'];

export function jsonSection(json) {
  const intro =
    `\`POST /v1/chat/completions\`, non-streaming, a ${json.requestBytes}-byte request and a ${json.answerBytes}-byte answer, 50 connections (autocannon). ` +
    'The candidate runs the whole handler: body rules, JSON parsing, zod validation, API-key check, admission, engine run and serialisation. ' +
    'The engine is a fixed one that answers at once with the same content (one content event and a finish event). ' +
    'The bare routes parse the JSON body with their framework\'s own parser and answer the handler\'s bytes, precomputed: the cheapest a route can be.';
  const comparison = (item) => [
    `### ${item.title}`,
    `Baseline \`${item.baseline}\`, candidate \`${item.candidate}\`${item.target ? `; target ≥ ${percent(item.target)}` : ''}.`,
    table(
      pairedHeader('baseline', 'candidate'),
      pairedRows(item.summary, [
        ['reqPerSec', 'req/s', integer],
        ['reqPerCpuSec', 'requests per second of server CPU time', integer],
      ]),
    ),
  ];
  return ['## JSON path', intro, ...json.results.flatMap(comparison)];
}

function readyIntro(pinning) {
  return (
    'apps/server\'s `createQuantumServer` as it runs in production (logs at info through its own batched destination, to stdout on /dev/null), with a live key of an organisation on the `free` plan whose limits are far off but all counted: ' +
    'requests and tokens per minute in memory, the day\'s tokens in the store (see the findings for how often the store is asked), and one usage row per request written in batches. ' +
    'The same JSON request as the JSON path, 50 connections (autocannon). Baseline: bare Fastify answering the bytes the ready server answers with the same engine, precomputed. ' +
    'The fixed engine is the JSON path\'s (the service\'s own cost); the reference engine is the deterministic one test keys get (tokenizer included). ' +
    `PostgreSQL runs in a throw-away cluster on this machine, ${pinning ? `pinned to the server's core (\`taskset -c ${pinning.server}\`), so that its work competes with the server's as SQLite's worker thread does` : 'unpinned'}; its CPU time (postmaster and backends, from \`/proc\`) is counted with the server's in the per-CPU ratio. ` +
    'CPU per request is the server process\'s (all its threads); "busy" is a process\'s CPU time over the run\'s wall time, a share of one core: a server well below 100 % was held back by the load generator or by other work on the machine, and its req/s ratio then means less than its CPU ratio.'
  );
}

/** One ready-server comparison: the paired figures, then the per-run CPU and busy figures the run recorded. */
function readyComparison(item) {
  const { summary } = item;
  const postgres = summary.ratio.reqPerServiceCpuSec !== undefined;
  const rows = [
    ['reqPerSec', 'req/s', integer],
    ['reqPerCpuSec', 'requests per second of server CPU time', integer],
    ...(postgres ? [['reqPerServiceCpuSec', 'requests per second of server + PostgreSQL CPU time', integer]] : []),
  ];
  const sideRows = [
    ['cpuUsPerReq', 'server CPU per request', microseconds],
    ...(postgres ? [['storeCpuUsPerReq', 'PostgreSQL CPU per request', microseconds]] : []),
    ['serverBusy', 'server busy (share of a core)', percent],
    ['loadCpuUsPerReq', 'load generator CPU per request', microseconds],
    ['loadBusy', 'load generator busy (share of a core)', percent],
  ].filter(([key]) => summary.baseline[key] !== undefined);
  const sideTable = table(['per run (median)', 'bare Fastify', 'ready server'], sideRows.map(([key, label, format]) => [label, format(summary.baseline[key]), format(summary.candidate[key])]));
  return [
    `### ${item.title}`,
    `A ${item.answerBytes}-byte answer; target ≥ ${percent(item.target)} of req/s and of requests per CPU-second${postgres ? ' (server + PostgreSQL)' : ''}.`,
    table(pairedHeader('bare Fastify', 'ready server'), pairedRows(summary, rows)),
    ...(sideRows.length > 0 ? [sideTable] : []),
  ];
}

export function readySection(ready, pinning) {
  return ['## Ready server', readyIntro(pinning), ...ready.results.flatMap(readyComparison)];
}

export function responsesSection(responses) {
  const intro =
    'The ready server as in the ready-server rows (fixed engine, SQLite store), one server answering both: a chat completion (baseline) and the same request on the Responses API ' +
    '(`input` items for the messages, `max_output_tokens`, `store: false`, so nothing more is kept), JSON and streamed, 50 connections (autocannon), measured in alternation. ' +
    'The target: a Responses request costs at most 1.2× the server CPU of the chat completion.';
  const comparison = (item) => [
    `### ${item.title}`,
    `Answers of ${item.answerBytes.chat} bytes (chat) and ${item.answerBytes.responses} bytes (Responses); target ≤ ${fixed(item.maxCpuRatio)}× the server CPU per request.`,
    table(
      pairedHeader('chat completion', 'Responses'),
      pairedRows(item.summary, [
        ['cpuUsPerReq', 'server CPU per request (µs)', integer],
        ['reqPerSec', 'req/s', integer],
        ['serverBusy', 'server busy (share of a core)', percent],
      ]),
    ),
  ];
  return ['## Responses API through the ready server', intro, ...responses.results.flatMap(comparison)];
}

export function groupCommitSection(groupCommit) {
  const intro =
    'The ready server around the fixed engine, as in the ready-server rows, with `store.usageWrites: "durable"` (an answer is sent only once its usage row is committed; rows finishing together share one transaction) ' +
    'against `"buffered"` (the earlier ledger: rows written every 500 ms, lost in a crash), both running, measured in alternation. req/s: 50 connections (autocannon), answers over the window plus the drain: the time, after the window, until every answered row is written (the admin usage report flushes the ledger; its own query time is taken off). ' +
    'Why: the buffered ledger does not keep up with this load (it has written a fraction of the window\'s rows when the window ends, and drops rows past 100,000 waiting), so req/s over the window alone credited it with writes done after it; durable rows are written before their answers and drain nothing. ' +
    'Latency: an open-loop run at a fixed rate well under either side\'s capacity, the p50 from sending to the end of the answer; "added" is the median over pairs of durable − buffered.';
  const comparison = (item) => [
    `### ${item.title}`,
    table(
      pairedHeader('buffered', 'durable'),
      pairedRows(item.summary, [
        ['reqPerSec', 'req/s, rows written (window + drain)', integer],
        ['windowReqPerSec', 'req/s over the window alone', integer],
        ['drainMs', 'drain after the window (ms)', integer],
        ['serverCpuUsPerReq', 'server CPU per request, window + drain (µs)', integer],
        ['databaseCpuUsPerReq', 'PostgreSQL cluster CPU per request, same core (µs)', integer],
        ['latencyP50Ms', `p50 at ${item.latencyRate} req/s (ms)`, fixed],
        ['latencyP99Ms', `p99 at ${item.latencyRate} req/s (ms)`, fixed],
      ]),
    ),
    `p50 added: ${fixed(item.summary.difference.latencyP50Ms)} ms (target ≤ 2 ms).`,
  ];
  return ['## Durable usage rows (group commit)', intro, ...groupCommit.results.flatMap(comparison)];
}

function firstChunkBlocks(firstChunk) {
  const row = ({ framework, summary }) => [
    framework,
    fixed(summary.baseline.firstChunkP50Ms, 3),
    fixed(summary.candidate.firstChunkP50Ms, 3),
    fixed(summary.ratio.firstChunkP50Ms, 3),
    fixed(summary.baseline.firstChunkP90Ms, 3),
    fixed(summary.candidate.firstChunkP90Ms, 3),
    fixed(summary.ratio.firstChunkP90Ms, 3),
    spread(summary.ratioRange.firstChunkP50Ms),
  ];
  return [
    '### First chunk at one connection',
    'One keep-alive connection, one paced stream at a time for 3 s per run: the time from sending the request to the first body bytes. Target: the adapter within 1.25× of the bare route.',
    table(['framework', 'bare p50 (ms)', 'adapter p50 (ms)', 'ratio p50', 'bare p90 (ms)', 'adapter p90 (ms)', 'ratio p90', 'p50 ratio range'], firstChunk.map(row)),
  ];
}

export function streamingSection(streaming) {
  const intro =
    `${streaming.chunksPerStream}-chunk streams (the quantum format: 200 \`event: message\` chunks, the finish chunk, \`[DONE]\`), 50 concurrent streams, each connection starting its next stream when one ends. ` +
    'Back to back: the engine yields every chunk at once; paced: one chunk per event-loop turn (`setImmediate`). ' +
    'The bare routes write the same frames (same bytes, a per-stream template and `JSON.stringify` of each piece) with `res.write`, waiting for `drain`, and pace the same way. ' +
    'chunks/s counts every frame the client received.';
  const throughput = (item) => [
    `### ${item.framework}, ${item.mode} (target ≥ ${percent(item.target)})`,
    table(
      pairedHeader(`bare ${item.framework}`, `${item.framework} adapter`),
      pairedRows(item.summary, [
        ['chunksPerSec', 'chunks/s', integer],
        ['streamsPerSec', 'streams/s', fixed],
        ['streamsPerCpuSec', 'streams per second of server CPU time', fixed],
      ]),
    ),
  ];
  return ['## Streaming path', intro, ...streaming.throughput.flatMap(throughput), ...firstChunkBlocks(streaming.firstChunk)];
}

export function idleSection(idle) {
  return [
    '## Idle streams',
    `${integer(idle.count)} streaming requests held open at once, each waiting for a first token that never comes (the engine, or the bare route, waits for the client to leave). ` +
      `Each variant runs in a fresh server (\`--expose-gc\`), ${idle.rounds} rounds alternating, medians. Per stream = (RSS with all streams open − RSS before, both after a forced GC) / streams; ` +
      'the heap column is `heapUsed + external` the same way. The clients are raw sockets from the load-generator process on 127.0.0.1.',
    table(
      ['variant', 'streams held', 'connect failures', 'RSS per stream', 'heap per stream', 'time to open all (s)'],
      idle.results.map((result) => [result.title, integer(result.held), integer(result.failures), kib(result.rssPerStream), kib(result.heapPerStream), fixed(result.openSeconds, 1)]),
    ),
  ];
}

function relayLatencyRows(latency) {
  const row = (label, key, digits) => [label, fixed(latency.baseline[key], 3), fixed(latency.candidate[key], 3), fixed(latency.difference[key], 3), fixed(latency.ratio[key], digits)];
  return [
    row('first chunk p50 (ms)', 'firstChunkP50Ms', 2),
    row('first chunk p99 (ms)', 'firstChunkP99Ms', 2),
    row('whole stream p50 (ms)', 'totalP50Ms', 2),
    row('whole stream p99 (ms)', 'totalP99Ms', 2),
    ['achieved rate (req/s)', fixed(latency.baseline.achievedRate, 1), fixed(latency.candidate.achievedRate, 1), '', ''],
    ['relay CPU use (share of one core)', '', percent(latency.candidate.relayCpuShare), '', ''],
  ];
}

export function relaySection({ latency, chunkRate, rate, shortChunks, longChunks }) {
  return [
    '## Upstream relay',
    'The ready server (`node apps/server/dist/cli.js serve`, pinned to core 0, logs at `info` to a file, SQLite key store, a live key of an organisation without limits) with `quantum-flash` mapped to the upstream engine, ' +
      'in front of a stand-in OpenAI-compatible upstream (core 1, beside the load generator) that streams its chunks back to back. "Direct" sends the same request to that upstream.',
    `### Latency at a fixed rate (${rate} req/s, ${shortChunks}-chunk streams, open loop)`,
    table(['metric', 'direct', 'through the relay', 'difference (median of pairs)', 'ratio'], relayLatencyRows(latency)),
    `### Chunk rate (${longChunks}-chunk streams, 4 at a time)`,
    table(pairedHeader('direct', 'through the relay'), [
      ...pairedRows(chunkRate, [['chunksPerSec', 'chunks/s', integer], ['streamsPerSec', 'streams/s', fixed]]),
      ['relay CPU use (share of one core)', '', percent(chunkRate.candidate.relayCpuShare), '', ''],
    ]),
  ];
}
