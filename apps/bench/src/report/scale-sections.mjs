// The report's sections on the relay at scale and on memory: CPU per request as concurrency
// grows, the tail at one connection, relayed streams held by the thousand, memory at start,
// and resumable streams. Each reads one suite's results as the suite returns them.
import { median, range } from '../lib/stats.mjs';
import { fixed, integer, kib, mebibytes, microseconds, percent, spread, table } from './format.mjs';

const mibRange = (values) => (values.length > 1 ? range(values).map(mebibytes).join('–') : '');
const workloadNames = { json: 'JSON (700 bytes)', stream: '20-chunk stream' };

function concurrencyRows(curve) {
  return Object.entries(curve).flatMap(([workload, points]) =>
    points.map((point) => [
      workloadNames[workload] ?? workload,
      integer(point.connections),
      microseconds(point.bare.serverCpuUsPerReq),
      microseconds(point.ready.serverCpuUsPerReq),
      fixed(point.readyOverBareCpu.median),
      spread(point.readyOverBareCpu.range),
      integer(point.bare.reqPerSec),
      integer(point.ready.reqPerSec),
      `${percent(point.bare.serverBusy)} / ${percent(point.ready.serverBusy)}`,
    ]),
  );
}

function oneConnectionRows({ p50Ms, p99Ms, addedP99Ms, addedP50Ratio, addedP99Ratio }) {
  // The suite reports the p99 added; the p50 added is the medians' difference.
  const addedP50 = (side) => fixed(p50Ms[side] - p50Ms.direct, 3);
  return [
    ['p50 (ms)', fixed(p50Ms.direct, 3), fixed(p50Ms.bare, 3), fixed(p50Ms.ready, 3), '', ''],
    ['p50 added over direct (ms)', '', addedP50('bare'), addedP50('ready'), fixed(addedP50Ratio.median), spread(addedP50Ratio.range)],
    ['p99 (ms)', fixed(p99Ms.direct, 3), fixed(p99Ms.bare, 3), fixed(p99Ms.ready, 3), '', ''],
    ['p99 added over direct (ms)', '', fixed(addedP99Ms.bare, 3), fixed(addedP99Ms.ready, 3), fixed(addedP99Ratio.median), spread(addedP99Ratio.range)],
  ];
}

export function concurrencySection({ seconds, rounds, curve, oneConnection }) {
  return [
    '## CPU per request against concurrency',
    'The ready server and the bare proxy (both on core 0) relaying to one stand-in upstream (core 1, beside the load generator), closed loop with autocannon at each number of connections, ' +
      `${rounds} rounds of ${seconds} s per side and point, the sides alternating. Server CPU per request is the median over the rounds; the ratio is the median of the rounds' ratios, with its range.`,
    table(['workload', 'connections', 'bare proxy CPU per request', 'ready server CPU per request', 'ready / bare', 'range', 'bare req/s', 'ready req/s', 'busy (bare / ready)'], concurrencyRows(curve)),
    '### The tail at one connection (JSON, one request at a time)',
    table(['metric', 'stand-in direct', 'bare proxy', 'ready server', 'ready added / bare added (median of rounds)', 'range'], oneConnectionRows(oneConnection)),
  ];
}

function relayedStreamRows(samples) {
  return Object.entries(samples).flatMap(([side, rounds]) =>
    rounds.map((sample, round) => [
      `${side === 'ready' ? 'ready server' : 'bare proxy'} (round ${round + 1})`,
      integer(sample.count),
      kib(sample.rssPerStream),
      kib(sample.heapPerStream),
      `${fixed(sample.rssMiB.before, 1)} / ${fixed(sample.rssMiB.held, 1)} / ${fixed(sample.rssMiB.afterIdle, 1)}`,
      `${fixed(sample.heapMiB.before, 1)} / ${fixed(sample.heapMiB.held, 1)} / ${fixed(sample.heapMiB.afterIdle, 1)}`,
      fixed(sample.openSeconds, 1),
    ]),
  );
}

export function relayedStreamsSection({ count, wanted, samples, ratios }) {
  const limited = count < wanted ? ` (${integer(wanted)} wanted: the open-file limit allowed no more, at two sockets per stream in the server)` : '';
  return [
    '## Relayed streams held open',
    `${integer(count)} streams${limited} opened at once through each server to a stand-in upstream that answers their headers and holds their first token, then released (each runs its 20 chunks and ends) and closed. ` +
      'Memory of the server process after a forced GC: per stream = (with all held − before) / streams; "after" is once every stream ended and the stand-in closed its connections. ' +
      `Ready / bare RSS per stream: ${ratios.map((ratio) => fixed(ratio)).join(', ')}.`,
    table(['side', 'streams held', 'RSS per stream', 'heap per stream', 'RSS before / held / after (MiB)', 'heap before / held / after (MiB)', 'time to open all (s)'], relayedStreamRows(samples)),
  ];
}

export function startMemorySection({ rounds, samples, readyOverBare }) {
  const names = { node: 'idle `node`', bare: 'bare proxy', ready: 'ready server (`serve`, embedded defaults)', baseline: 'baseline build' };
  // Runs before the idle reading was added have none.
  const idleMeasured = samples.ready.every((sample) => sample.rssIdle !== undefined);
  const rows = Object.entries(samples).map(([side, list]) => {
    const rss = list.map((sample) => sample.rss);
    const idle = list.map((sample) => sample.rssIdle);
    const afterFirst = list.map((sample) => sample.rssAfterFirstAnswer).filter((value) => value !== undefined);
    const idleCells = idleMeasured ? [mebibytes(median(idle)), mibRange(idle)] : [];
    return [names[side] ?? side, mebibytes(median(rss)), mibRange(rss), ...idleCells, mebibytes(median(list.map((sample) => sample.heapUsed))), afterFirst.length ? mebibytes(median(afterFirst)) : ''];
  });
  return [
    '## Memory at start',
    `Each side a fresh process on core 0, ${rounds} rounds: RSS once listening and its start's work done (2 s), ` +
      (idleMeasured ? 'again once idle for 30 s (V8 gives back the young generation that start-up grew only after several idle seconds), ' : '') +
      `the heap in use after a GC, and the ready server's RSS after its first answer. Ready / bare RSS at 2 s: ${readyOverBare.map((ratio) => fixed(ratio)).join(', ')}.`,
    table(['process', 'RSS at 2 s (MiB, median)', 'range', ...(idleMeasured ? ['RSS idle at 30 s (MiB, median)', 'range'] : []), 'heap used (MiB)', 'RSS after the first answer (MiB)'], rows),
  ];
}

export function resumableSection(resumable) {
  return [
    '## Resumable streams',
    `The ready server around the reference engine (SQLite store), 8 streams at a time: server CPU per stream of a resumable stream against the same stream plain, rounds alternated (${integer(resumable.streamBytes)} bytes a stream); ` +
      'then, one request at a time on an idle machine, the time from sending a resume to its first replayed bytes.',
    table(
      ['metric', 'plain', 'resumable', 'ratio'],
      [
        ['server CPU per stream', microseconds(resumable.plainCpuUsPerStream), microseconds(resumable.resumableCpuUsPerStream), `${fixed(resumable.cpuRatio)}×`],
        ["a resume's first frame, p50 / p95 (ms)", '', `${fixed(resumable.resumeFirstFrameP50Ms)} / ${fixed(resumable.resumeFirstFrameP95Ms)}`, ''],
      ],
    ),
  ];
}
