// The report's section on the gateway-cost targets' baseline: the ready server's relay against a bare proxy.
import { fixed, integer, microseconds, percent, spread, table } from './format.mjs';

const sideNames = { direct: 'stand-in direct', bare: 'bare proxy', ready: 'ready server' };

function throughputRows({ median, ratio }) {
  const row = (label, key, format, ratioKey) => [label, ...Object.keys(sideNames).map((side) => format(median[side][key])), ratioKey ? fixed(ratio[ratioKey].median) : '', ratioKey ? spread(ratio[ratioKey].range) : ''];
  return [
    row('req/s', 'reqPerSec', integer, 'reqPerSec'),
    row('requests per second of server CPU time', 'reqPerCpuSec', integer, 'reqPerCpuSec'),
    row('server CPU per request', 'serverCpuUsPerReq', microseconds),
    row('… of it the main thread (the event loop)', 'mainThreadCpuUsPerReq', microseconds),
    row("… of it the other threads (V8's helpers, libuv's pool; the ready server's SQLite worker)", 'otherThreadsCpuUsPerReq', microseconds),
    row('server busy (share of one core)', 'serverBusy', percent),
    row('load generator busy (share of one core)', 'loadBusy', percent),
  ];
}

/** The ready server with its usage rows written in batches: the durable commit's share of the added p50. */
function bufferedLatency(latency) {
  if (latency.bufferedAddedRatio === undefined) return [];
  return [
    'The same ready server with `store.usageWrites: "buffered"` (usage rows written in batches, not committed before each answer): ' +
      `p50 ${fixed(latency.p50Ms.buffered, 3)} ms, ${fixed(latency.addedMs.buffered, 3)} ms added over direct, ` +
      `${fixed(latency.bufferedAddedRatio.median)}× the bare proxy's added (range ${spread(latency.bufferedAddedRatio.range)}). Not a target: the target is on the durable default.`,
  ];
}

export function bareProxySection({ connections, rounds, seconds, throughput, latency, targets }) {
  const header = ['metric', ...Object.values(sideNames), 'ready / bare (median of rounds)', 'range'];
  return [
    '## The relay against a bare proxy',
    'Three servers in one run, same stand-in upstream (core 1, beside the load generator), same load: the stand-in called directly; ' +
      '`src/servers/bare-proxy.mjs`, one Fastify route forwarding the body with undici over kept-alive connections, answering JSON whole or piping the stream, nothing else (core 0); ' +
      'and the ready server (`cli.js serve`, core 0, SQLite store with its durable usage ledger, access log at `info` to a file, a live key of an organisation without limits) relaying to the stand-in. ' +
      `Closed loop with autocannon at ${connections} connections, ${rounds} rounds of ${seconds} s, the sides in alternating order. ` +
      'The stand-in\'s "server CPU" is its own process, on the load core. ' +
      'A side\'s main thread is read from `/proc/<pid>/task/<pid>/stat`, its other threads are the rest of its process. ' +
      `Targets: ready / bare ≥ ${fixed(targets.jsonRatio)} on JSON and ≥ ${fixed(targets.streamRatio)} on streams (req/s and req per CPU-second); added p50 at one connection ≤ ${fixed(targets.addedLatencyRatio, 1)}× the bare proxy's.`,
    '### JSON (a 700-byte chat completion)',
    table(header, throughputRows(throughput.json)),
    '### 20-chunk streams',
    table(header, throughputRows(throughput.stream)),
    '### p50 at one connection (JSON, one request at a time)',
    table(
      ['metric', ...Object.values(sideNames), 'ready added / bare added (median of rounds)', 'range'],
      [
        ['p50 (ms)', ...Object.keys(sideNames).map((side) => fixed(latency.p50Ms[side], 3)), '', ''],
        ['added over direct (ms)', '', fixed(latency.addedMs.bare, 3), fixed(latency.addedMs.ready, 3), fixed(latency.addedRatio.median), spread(latency.addedRatio.range)],
      ],
    ),
    ...bufferedLatency(latency),
  ];
}
