// Turns one run's results into docs/benchmarks.md: every figure and ratio, the verdict of each
// target, the machine, the commit and the exact commands.
import { existsSync, readFileSync } from 'node:fs';

const integer = (value) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a');
const fixed = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const percent = (value) => (Number.isFinite(value) ? `${(value * 100).toFixed(1)} %` : 'n/a');
const kib = (bytes) => (Number.isFinite(bytes) ? `${(bytes / 1024).toFixed(1)} KiB` : 'n/a');
const spread = (range) => (range ? `${fixed(range[0], 3)}–${fixed(range[1], 3)}` : '');
const verdict = (met) => (met === undefined ? 'not run' : met ? '**met**' : '**missed**');
const pieceName = (size) => (size === 'random' ? 'random (1 B–8 KiB)' : size >= 1024 ? `${size / 1024} KiB` : `${size} B`);

function table(header, rows) {
  return [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

/** A ready-server row's ratio per CPU-second: of the server and its PostgreSQL cluster together when there is one. */
function readyCpuRatio(summary) {
  return summary.ratio.reqPerServiceCpuSec ?? summary.ratio.reqPerCpuSec;
}

/** Every speed and memory target with its measured figure and verdict. */
export function evaluateTargets(results) {
  const targets = [];
  const add = (name, figure, met) => targets.push({ name, figure, met });
  for (const item of results.json?.results ?? []) {
    if (item.target === undefined) continue;
    const { ratio } = item.summary;
    add(`JSON: ${item.title} ≥ ${percent(item.target)} of req/s and of req per CPU-second`, `${percent(ratio.reqPerSec)} req/s, ${percent(ratio.reqPerCpuSec)} req/CPU-s`, ratio.reqPerSec >= item.target && ratio.reqPerCpuSec >= item.target);
  }
  for (const item of results.ready?.results ?? []) {
    const { ratio } = item.summary;
    const perCpu = readyCpuRatio(item.summary);
    add(
      `Ready server: ${item.title} ≥ ${percent(item.target)} of req/s and of req per CPU-second${ratio.reqPerServiceCpuSec !== undefined ? ' (server + PostgreSQL)' : ''}`,
      `${percent(ratio.reqPerSec)} req/s, ${percent(perCpu)} req/CPU-s`,
      ratio.reqPerSec >= item.target && perCpu >= item.target,
    );
  }
  for (const item of results.groupCommit?.results ?? []) {
    const { ratio, difference } = item.summary;
    add(`Group commit: ${item.title} ≥ 90.0 % of req/s`, percent(ratio.reqPerSec), ratio.reqPerSec >= 0.9);
    add(`Group commit: ${item.title}, p50 added at ${item.latencyRate} req/s ≤ 2 ms`, `${fixed(difference.latencyP50Ms)} ms`, difference.latencyP50Ms <= 2);
  }
  for (const item of results.streaming?.throughput ?? []) {
    const { ratio } = item.summary;
    add(
      `Streaming (${item.mode}): ${item.framework} adapter ≥ ${percent(item.target)} of the bare route's chunks/s (and streams per CPU-s)`,
      `${percent(ratio.chunksPerSec)} chunks/s, ${percent(ratio.streamsPerCpuSec)} streams/CPU-s`,
      ratio.chunksPerSec >= item.target && ratio.streamsPerCpuSec >= item.target,
    );
  }
  for (const item of results.streaming?.firstChunk ?? []) {
    add(`First chunk at one connection: ${item.framework} adapter within ${item.target}× of the bare route (p50)`, `${fixed(item.summary.ratio.firstChunkP50Ms)}×`, item.summary.ratio.firstChunkP50Ms <= item.target);
  }
  if (results.idle) {
    const adapter = results.idle.results.find((result) => result.id === 'fastify-adapter');
    add(`Idle streams: ≤ ${kib(results.idle.target)} RSS per stream through the Fastify adapter`, kib(adapter.rssPerStream), adapter.rssPerStream <= results.idle.target);
    const heldAll = results.idle.results.every((result) => result.held === results.idle.count);
    add(`Idle streams: ${integer(results.idle.count)} concurrent streams held`, results.idle.results.map((result) => `${result.title}: ${integer(result.held)}`).join(', '), heldAll && results.idle.count >= 10_000 ? true : heldAll ? undefined : false);
  }
  if (results.decodingStrings) {
    for (const item of results.decodingStrings.results) {
      add(`SSE decoding, ${pieceName(item.pieceSize)} pieces: core feed() ≥ 1.2× eventsource-parser 3`, `${fixed(item.figures.core.speedup)}×`, item.figures.core.speedup >= 1.2);
    }
  }
  if (results.client) {
    const ours = results.client.figures['@quantum-chat/client chat.completions.stream()'];
    add('Client stream iteration (bytes → typed events) ≥ 5× the openai package', `${fixed(ours.speedup)}×`, ours.speedup >= 5);
  }
  if (results.linearity) {
    const core = results.linearity.results.find((result) => result.decoder.startsWith('core'));
    add(`One long event: ${results.linearity.sizeRatio}× the size costs ≤ 6× (core decoder)`, `${fixed(core.growth)}×`, core.growth <= 6);
  }
  if (results.encoding) {
    const ours = results.encoding.figures['core frame encoder'];
    add('Encoding: frame encoder ≥ 2× JSON.stringify per chunk', `${fixed(ours.speedup)}×`, ours.speedup >= 2);
  }
  if (results.relay) {
    const { latency, chunkRate } = results.relay;
    add('Upstream relay: p50 overhead ≤ 1 ms (first chunk)', `${fixed(latency.difference.firstChunkP50Ms)} ms (total: ${fixed(latency.difference.totalP50Ms)} ms)`, latency.difference.firstChunkP50Ms <= 1);
    add('Upstream relay: ≥ 80 % of the direct chunk rate', percent(chunkRate.ratio.chunksPerSec), chunkRate.ratio.chunksPerSec >= 0.8);
  }
  return targets;
}

function pairedRows(summary, metrics) {
  return metrics.map(([key, label, format]) => [label, format(summary.baseline[key]), format(summary.candidate[key]), fixed(summary.ratio[key], 3), spread(summary.ratioRange[key])]);
}

export function writeReport({ results, machine, loads, options, commands, durationSeconds, findingsPath }) {
  const out = [];
  // Every block is followed by a blank line, so that a table never runs into a paragraph.
  const push = (...blocks) => {
    for (const block of blocks) out.push(block, '');
  };
  // The benchmark itself keeps about two processes busy; more than one more means other work.
  const heavy = loads.some((load) => load[0] > Number(machine.nproc) + 1);
  push(
    '# Benchmarks',
    `Generated by \`pnpm bench${options.quick ? ' --quick' : ''}\` on ${machine.date} in ${Math.round(durationSeconds / 60)} min, from commit \`${machine.commit}\`${machine.dirty ? ' (with uncommitted changes in the work tree)' : ''}. ` +
      'Every figure below comes from this one run: rerun the command rather than editing the tables. ' +
      'The "Findings" section at the end is written by hand from `node --cpu-prof` profiles (`apps/bench/findings.md`).',
  );
  if (options.quick) push('> **Smoke run** (`--quick`): runs are too short and too few to mean anything; this only shows the machinery works.');
  if (heavy) {
    push(
      `> **The machine was shared during this run**: load average up to ${Math.max(...Object.values(options.suiteLoads).concat(loads).map((load) => load[0])).toFixed(1)} on ${machine.nproc} cores, of which the benchmark itself (with the build step that starts it) accounts for about 2 and other engineers' builds and test runs for the rest. ` +
        'Absolute req/s figures are then depressed and noisy; the ratios come from pairs measured back to back, and the figures per second of *server CPU time* are the ones to trust.',
    );
  }

  push('## Machine and commands');
  push(
    table(
      ['what', 'value'],
      [
        ['`nproc`', machine.nproc],
        ['CPU', machine.cpuModel],
        ['memory', `${machine.memoryGiB} GiB`],
        ['node', machine.node],
        ['kernel', machine.platform],
        ['`ulimit -n`', machine.fileDescriptorLimit],
        ['pinning', options.pinning ? `server \`taskset -c ${options.pinning.server}\`, load generator \`taskset -c ${options.pinning.load}\`` : 'none (taskset missing or one core)'],
        ['load average (1/5/15 min) at start', loads[0].join(' / ')],
        ['load average at the end', loads.at(-1).join(' / ')],
        ['load average per suite (1 min, at its start)', Object.entries(options.suiteLoads).map(([suite, load]) => `${suite} ${load[0]}`).join(', ')],
        ['commit', `\`${machine.commit}\`${machine.dirty ? ' + uncommitted changes' : ''}`],
      ],
    ),
  );
  push('Commands of this run:', '```sh', ...commands, '```');
  push(
    '**Protocol.** Each comparison starts the baseline and the candidate as separate server processes pinned to core 0, ' +
      'and drives them from one load-generator process pinned to core 1 (autocannon for JSON, a node:http client for streams). ' +
      `After a warm-up of ${options.protocol.warmupSeconds} s each, ${options.protocol.pairs} pairs of ${options.protocol.seconds} s runs alternate in ABBA order. ` +
      'A figure is the median over the pairs; a ratio is the median of the per-pair ratios candidate / baseline (its min–max over the pairs is shown). ' +
      'Server CPU time is `process.cpuUsage()` of the server process (user + system), asked for over IPC right before and after each run; ' +
      'the relay\'s ready server is read from `/proc/<pid>/stat`. CPU microbenchmarks run in their own process per group, pinned to core 0, and count process CPU time.',
  );

  const targets = evaluateTargets(results);
  push('## Targets', table(['target', 'measured', 'verdict'], targets.map((target) => [target.name, target.figure, verdict(target.met)])));

  if (results.json) {
    push(
      '## JSON path',
      `\`POST /v1/chat/completions\`, non-streaming, a ${results.json.requestBytes}-byte request and a ${results.json.answerBytes}-byte answer, 50 connections (autocannon). ` +
        'The candidate runs the whole handler: body rules, JSON parsing, zod validation, API-key check, admission, engine run and serialisation. ' +
        'The engine is a fixed one that answers at once with the same content (one content event and a finish event). ' +
        'The bare routes parse the JSON body with their framework\'s own parser and answer the handler\'s bytes, precomputed: the cheapest a route can be.',
    );
    for (const item of results.json.results) {
      push(
        `### ${item.title}`,
        `Baseline \`${item.baseline}\`, candidate \`${item.candidate}\`${item.target ? `; target ≥ ${percent(item.target)}` : ''}.`,
        table(
          ['metric', 'baseline', 'candidate', 'ratio (median of pairs)', 'ratio range'],
          pairedRows(item.summary, [
            ['reqPerSec', 'req/s', integer],
            ['reqPerCpuSec', 'requests per second of server CPU time', integer],
          ]),
        ),
      );
    }
  }

  if (results.ready) {
    push(
      '## Ready server',
      'apps/server\'s `createQuantumServer` as it runs in production (logs at info through its own batched destination, to stdout on /dev/null), with a live key of an organisation on the `free` plan whose limits are far off but all counted: ' +
        'requests and tokens per minute in memory, the day\'s tokens in the store (see the findings for how often the store is asked), and one usage row per request written in batches. ' +
        'The same JSON request as the JSON path, 50 connections (autocannon). Baseline: bare Fastify answering the bytes the ready server answers with the same engine, precomputed. ' +
        'The fixed engine is the JSON path\'s (the service\'s own cost); the reference engine is the deterministic one test keys get (tokenizer included). ' +
        `PostgreSQL runs in a throw-away cluster on this machine, ${options.pinning ? `pinned to the server's core (\`taskset -c ${options.pinning.server}\`), so that its work competes with the server's as SQLite's worker thread does` : 'unpinned'}; its CPU time (postmaster and backends, from \`/proc\`) is counted with the server's in the per-CPU ratio. ` +
        'CPU per request is the server process\'s (all its threads); "busy" is a process\'s CPU time over the run\'s wall time, a share of one core: a server well below 100 % was held back by the load generator or by other work on the machine, and its req/s ratio then means less than its CPU ratio.',
    );
    const usPerReq = (value) => (Number.isFinite(value) ? `${value.toFixed(1)} µs` : 'n/a');
    for (const item of results.ready.results) {
      const postgres = item.summary.ratio.reqPerServiceCpuSec !== undefined;
      const rows = [
        ['reqPerSec', 'req/s', integer],
        ['reqPerCpuSec', 'requests per second of server CPU time', integer],
        ...(postgres ? [['reqPerServiceCpuSec', 'requests per second of server + PostgreSQL CPU time', integer]] : []),
      ];
      const sideRows = [
        ['cpuUsPerReq', 'server CPU per request', usPerReq],
        ...(postgres ? [['storeCpuUsPerReq', 'PostgreSQL CPU per request', usPerReq]] : []),
        ['serverBusy', 'server busy (share of a core)', percent],
        ['loadCpuUsPerReq', 'load generator CPU per request', usPerReq],
        ['loadBusy', 'load generator busy (share of a core)', percent],
      ].filter(([key]) => item.summary.baseline[key] !== undefined);
      push(
        `### ${item.title}`,
        `A ${item.answerBytes}-byte answer; target ≥ ${percent(item.target)} of req/s and of requests per CPU-second${postgres ? ' (server + PostgreSQL)' : ''}.`,
        table(['metric', 'bare Fastify', 'ready server', 'ratio (median of pairs)', 'ratio range'], pairedRows(item.summary, rows)),
        ...(sideRows.length > 0 ? [table(['per run (median)', 'bare Fastify', 'ready server'], sideRows.map(([key, label, format]) => [label, format(item.summary.baseline[key]), format(item.summary.candidate[key])]))] : []),
      );
    }
  }

  if (results.groupCommit) {
    push(
      '## Durable usage rows (group commit)',
      'The ready server around the fixed engine, as in the ready-server rows, with `store.usageWrites: "durable"` (an answer is sent only once its usage row is committed; rows finishing together share one transaction) ' +
        'against `"buffered"` (the earlier ledger: rows written every 500 ms, lost in a crash), both running, measured in alternation. req/s: 50 connections (autocannon). ' +
        'Latency: an open-loop run at a fixed rate well under either side\'s capacity, the p50 from sending to the end of the answer; "added" is the median over pairs of durable − buffered.',
    );
    for (const item of results.groupCommit.results) {
      push(
        `### ${item.title}`,
        table(
          ['metric', 'buffered', 'durable', 'ratio (median of pairs)', 'ratio range'],
          pairedRows(item.summary, [
            ['reqPerSec', 'req/s', integer],
            ['latencyP50Ms', `p50 at ${item.latencyRate} req/s (ms)`, fixed],
            ['latencyP99Ms', `p99 at ${item.latencyRate} req/s (ms)`, fixed],
          ]),
        ),
        `p50 added: ${fixed(item.summary.difference.latencyP50Ms)} ms (target ≤ 2 ms).`,
      );
    }
  }

  if (results.streaming) {
    push(
      '## Streaming path',
      `${results.streaming.chunksPerStream}-chunk streams (the quantum format: 200 \`event: message\` chunks, the finish chunk, \`[DONE]\`), 50 concurrent streams, each connection starting its next stream when one ends. ` +
        'Back to back: the engine yields every chunk at once; paced: one chunk per event-loop turn (`setImmediate`). ' +
        'The bare routes write the same frames (same bytes, a per-stream template and `JSON.stringify` of each piece) with `res.write`, waiting for `drain`, and pace the same way. ' +
        'chunks/s counts every frame the client received.',
    );
    for (const item of results.streaming.throughput) {
      push(
        `### ${item.framework}, ${item.mode} (target ≥ ${percent(item.target)})`,
        table(
          ['metric', `bare ${item.framework}`, `${item.framework} adapter`, 'ratio (median of pairs)', 'ratio range'],
          pairedRows(item.summary, [
            ['chunksPerSec', 'chunks/s', integer],
            ['streamsPerSec', 'streams/s', fixed],
            ['streamsPerCpuSec', 'streams per second of server CPU time', fixed],
          ]),
        ),
      );
    }
    push(
      '### First chunk at one connection',
      'One keep-alive connection, one paced stream at a time for 3 s per run: the time from sending the request to the first body bytes. Target: the adapter within 1.25× of the bare route.',
      table(
        ['framework', 'bare p50 (ms)', 'adapter p50 (ms)', 'ratio p50', 'bare p90 (ms)', 'adapter p90 (ms)', 'ratio p90', 'p50 ratio range'],
        results.streaming.firstChunk.map((item) => [
          item.framework,
          fixed(item.summary.baseline.firstChunkP50Ms, 3),
          fixed(item.summary.candidate.firstChunkP50Ms, 3),
          fixed(item.summary.ratio.firstChunkP50Ms, 3),
          fixed(item.summary.baseline.firstChunkP90Ms, 3),
          fixed(item.summary.candidate.firstChunkP90Ms, 3),
          fixed(item.summary.ratio.firstChunkP90Ms, 3),
          spread(item.summary.ratioRange.firstChunkP50Ms),
        ]),
      ),
    );
  }

  if (results.idle) {
    push(
      '## Idle streams',
      `${integer(results.idle.count)} streaming requests held open at once, each waiting for a first token that never comes (the engine, or the bare route, waits for the client to leave). ` +
        `Each variant runs in a fresh server (\`--expose-gc\`), ${results.idle.rounds} rounds alternating, medians. Per stream = (RSS with all streams open − RSS before, both after a forced GC) / streams; ` +
        'the heap column is `heapUsed + external` the same way. The clients are raw sockets from the load-generator process on 127.0.0.1.',
      table(
        ['variant', 'streams held', 'connect failures', 'RSS per stream', 'heap per stream', 'time to open all (s)'],
        results.idle.results.map((result) => [result.title, integer(result.held), integer(result.failures), kib(result.rssPerStream), kib(result.heapPerStream), fixed(result.openSeconds, 1)]),
      ),
    );
  }

  if (results.decodingStrings || results.decodingBytes) {
    push('## SSE decoding');
    if (results.decodingStrings) {
      const data = results.decodingStrings;
      push(
        `A realistic ${(data.bytes / 2 ** 20).toFixed(1)} MiB chat stream (${integer(data.events)} events: thought traces, then message chunks with token-sized pieces, some non-ASCII), ` +
          'made by the core\'s frame encoder. Strings in (flat strings, as a TextDecoder produces them): the synchronous `feed()` of each. Speed-up = eventsource-parser\'s CPU time / the decoder\'s, median of 7 alternating rounds.',
        table(
          ['pieces', 'count', 'eventsource-parser 3 (MB/s)', 'core (MB/s)', 'core speed-up'],
          data.results.map((item) => [
            pieceName(item.pieceSize),
            integer(item.pieces),
            integer(data.bytes / 1e6 / item.figures['eventsource-parser'].seconds),
            integer(data.bytes / 1e6 / item.figures.core.seconds),
            `${fixed(item.figures.core.speedup)}×`,
          ]),
        ),
      );
    }
    if (results.decodingBytes) {
      const data = results.decodingBytes;
      push(
        'Bytes in (`Uint8Array` pieces, which may end inside a UTF-8 character): the core decoder\'s `feed(bytes)`, eventsource-parser behind a streaming `TextDecoder`, and the `openai` package\'s decoder (`_iterSSEMessages` from `openai/core/streaming` over a `ReadableStream`, which is how the SDK reads a response). Speed-up relative to eventsource-parser + TextDecoder.',
        table(
          ['pieces', 'eventsource-parser + TextDecoder (MB/s)', 'core bytes (MB/s)', 'openai (MB/s)', 'core speed-up', 'openai speed-up', 'core vs openai'],
          data.results.map((item) => {
            const parser = item.figures['eventsource-parser + TextDecoder'];
            const core = item.figures.core;
            const openai = item.figures['openai _iterSSEMessages'];
            return [
              pieceName(item.pieceSize),
              integer(data.bytes / 1e6 / parser.seconds),
              integer(data.bytes / 1e6 / core.seconds),
              integer(data.bytes / 1e6 / openai.seconds),
              `${fixed(core.speedup)}×`,
              `${fixed(openai.speedup, 3)}×`,
              `${fixed(openai.seconds / core.seconds, 1)}×`,
            ];
          }),
        ),
      );
    }
  }
  if (results.client) {
    const data = results.client;
    const ours = data.figures['@quantum-chat/client chat.completions.stream()'];
    const theirs = data.figures['openai chat.completions.create({ stream: true })'];
    push(
      '## Client stream iteration',
      `The same stream (${(data.bytes / 2 ** 20).toFixed(1)} MiB, ${integer(data.events)} events) served by a stub \`fetch\` in ${data.pieceSize / 1024} KiB pieces; each client is iterated to the end: bytes → SSE → JSON → typed events (ours also accumulates the message). Process CPU time, median of 7 alternating rounds.`,
      table(
        ['client', 'CPU time (ms)', 'MB/s', 'speed-up over openai'],
        [
          ['`openai` 6 `chat.completions.create({ stream: true })`', fixed(theirs.seconds * 1000, 1), integer(data.bytes / 1e6 / theirs.seconds), '1.00×'],
          ['`@quantum-chat/client` `chat.completions.stream()`', fixed(ours.seconds * 1000, 1), integer(data.bytes / 1e6 / ours.seconds), `${fixed(ours.speedup)}×`],
        ],
      ),
    );
  }
  if (results.linearity) {
    const data = results.linearity;
    push(
      '## One long event (linearity)',
      `One event whose single data line is ${data.results[0].sizes.map((size) => `${size / 2 ** 20} MiB`).join(' or ')}, fed in small pieces. A linear decoder costs about ${data.sizeRatio}× as much for the larger one; a quadratic one about ${data.sizeRatio ** 2}×.`,
      table(
        ['decoder', 'pieces', ...data.results[0].sizes.map((size) => `${size / 2 ** 20} MiB (ms)`), 'growth'],
        data.results.map((item) => [item.decoder, pieceName(item.pieceSize), ...item.seconds.map((seconds) => fixed(seconds * 1000, 2)), `${fixed(item.growth)}×`]),
      ),
      'The `openai` decoder is fed 16 KiB pieces: it re-copies and re-scans its whole buffer for every piece, so 1 KiB pieces of a 4 MiB line would take minutes.',
    );
  }
  if (results.encoding) {
    const data = results.encoding;
    push(
      '## Encoding',
      `${integer(data.events)} content chunks per run, each serialised to a complete \`event: message\` frame; all three write the same bytes (checked). ` +
        '"JSON.stringify" and "fast-json-stringify" build the chunk object per event and serialise all of it; the core\'s frame encoder builds the envelope\'s JSON once per stream and serialises only the delta text.',
      table(
        ['encoder', 'ns per chunk', 'speed-up over JSON.stringify'],
        Object.entries(data.figures).map(([name, figure]) => [name, fixed((figure.seconds / data.events) * 1e9, 0), `${fixed(figure.speedup)}×`]),
      ),
    );
  }
  if (results.relay) {
    const { latency, chunkRate, rate, shortChunks, longChunks } = results.relay;
    push(
      '## Upstream relay',
      'The ready server (`node apps/server/dist/cli.js serve`, pinned to core 0, logs at `info` to a file, SQLite key store, a live key of an organisation without limits) with `quantum-flash` mapped to the upstream engine, ' +
        'in front of a stand-in OpenAI-compatible upstream (core 1, beside the load generator) that streams its chunks back to back. "Direct" sends the same request to that upstream.',
      `### Latency at a fixed rate (${rate} req/s, ${shortChunks}-chunk streams, open loop)`,
      table(
        ['metric', 'direct', 'through the relay', 'difference (median of pairs)', 'ratio'],
        [
          ['first chunk p50 (ms)', fixed(latency.baseline.firstChunkP50Ms, 3), fixed(latency.candidate.firstChunkP50Ms, 3), fixed(latency.difference.firstChunkP50Ms, 3), fixed(latency.ratio.firstChunkP50Ms, 2)],
          ['first chunk p99 (ms)', fixed(latency.baseline.firstChunkP99Ms, 3), fixed(latency.candidate.firstChunkP99Ms, 3), fixed(latency.difference.firstChunkP99Ms, 3), fixed(latency.ratio.firstChunkP99Ms, 2)],
          ['whole stream p50 (ms)', fixed(latency.baseline.totalP50Ms, 3), fixed(latency.candidate.totalP50Ms, 3), fixed(latency.difference.totalP50Ms, 3), fixed(latency.ratio.totalP50Ms, 2)],
          ['whole stream p99 (ms)', fixed(latency.baseline.totalP99Ms, 3), fixed(latency.candidate.totalP99Ms, 3), fixed(latency.difference.totalP99Ms, 3), fixed(latency.ratio.totalP99Ms, 2)],
          ['achieved rate (req/s)', fixed(latency.baseline.achievedRate, 1), fixed(latency.candidate.achievedRate, 1), '', ''],
          ['relay CPU use (share of one core)', '', percent(latency.candidate.relayCpuShare), '', ''],
        ],
      ),
      `### Chunk rate (${longChunks}-chunk streams, 4 at a time)`,
      table(['metric', 'direct', 'through the relay', 'ratio (median of pairs)', 'ratio range'], [
        ...pairedRows(chunkRate, [['chunksPerSec', 'chunks/s', integer], ['streamsPerSec', 'streams/s', fixed]]),
        ['relay CPU use (share of one core)', '', percent(chunkRate.candidate.relayCpuShare), '', ''],
      ]),
    );
  }
  if (findingsPath && existsSync(findingsPath)) push(readFileSync(findingsPath, 'utf8').trim());
  return out.join('\n');
}
