// Durable usage rows (group commit: an answer is acknowledged once its row is committed) against
// the buffered ledger they replaced (rows written every 500 ms, lost by a crash), in the same
// run: the ready server around the JSON suite's fixed engine, on SQLite and on PostgreSQL.
import { fileURLToPath } from 'node:url';
import { startChild } from '../lib/child.mjs';
import { jsonRequestBody } from '../lib/fixtures.mjs';
import { pinning } from '../lib/options.mjs';
import { runPaired } from '../lib/paired.mjs';
import { startPostgres } from '../lib/postgres.mjs';

const script = fileURLToPath(new URL('../servers/ready-server.mjs', import.meta.url));
const path = '/v1/chat/completions';
/** Throughput target: durable req/s over buffered req/s. */
const groupCommitThroughputTarget = 0.9;
/** Latency target: ms the durable write adds to the p50 of a request at a moderate fixed rate. */
const groupCommitLatencyTargetMs = 2;
/** The fixed rate of the latency runs: well under either side's capacity, so that queueing does not dominate. */
const latencyRate = 200;

async function start(store, usageWrites, env) {
  const child = await startChild(script, { role: 'server', args: ['ready', 'fixed', store, usageWrites], env, stdout: 'ignore' });
  return { ...child, usageWrites, url: `http://127.0.0.1:${child.ready.port}`, key: child.ready.key };
}

const headersFor = (server) => ({ 'content-type': 'application/json', authorization: `Bearer ${server.key}` });

/**
 * Usage rows the server has written for the bench's organisation (the sum of the admin usage
 * report's `requests`), and how long it took to get the answer. The report flushes the ledger
 * first (writing every row it holds, at once rather than at its next 500 ms tick), so this is
 * also how a side is made to finish the writes of what it answered.
 */
async function writtenUsage(server) {
  const started = performance.now();
  const response = await fetch(`${server.url}/admin/v1/usage?organisation=${encodeURIComponent(server.ready.organisation)}`, {
    headers: { authorization: `Bearer ${server.ready.adminToken}` },
  });
  if (!response.ok) throw new Error(`${server.ready.port}: admin usage report answered ${response.status}: ${await response.text()}`);
  const { data } = await response.json();
  return { rows: data.reduce((sum, row) => sum + row.requests, 0), ms: performance.now() - started };
}

/**
 * The time a side needs, after its load window, to have written every usage row it answered.
 * Why this and not a longer window: under this closed loop the buffered ledger's one flush at a
 * time does not keep up (in a 5 s window at ~8,800 req/s it had written 7,000–21,600 of ~43,000
 * rows by the window's end, and past 100,000 waiting rows it drops them), so it has no steady
 * state to measure; counting its req/s over the window alone credited it with writes it did
 * after the window. So each side is charged its drain: the reports that flush the ledger until
 * the count stands still, less each report's own query (timed by the last, which wrote nothing).
 * The drain runs with no load beside it, so if anything it favours the buffered side.
 * Durable drains nothing: its rows were committed before their answers.
 */
async function drainUsage(server) {
  // Requests still in the server when the load generator closed its connections settle after
  // the first flush: report again until the count stands still (the last report wrote nothing).
  const started = performance.now();
  let previous = await writtenUsage(server);
  for (let reports = 1; ; reports++) {
    const current = await writtenUsage(server);
    // Each report's own query is taken off, at the cost of the last one (which wrote nothing).
    if (current.rows === previous.rows) return { rows: current.rows, drainMs: Math.max(0, performance.now() - started - (reports + 1) * current.ms) };
    if (reports >= 50) throw new Error(`${server.ready.port}: usage rows still being written after ${reports} flushes (${previous.rows}, then ${current.rows})`);
    previous = current;
  }
}

/**
 * req/s at 50 connections (closed loop), counted over the window plus the drain of its usage
 * rows (see drainUsage), then the p50 and p99 of a request at `latencyRate` (open loop).
 */
async function measureRun({ load, server, seconds, postgres }) {
  // Rows of earlier runs (the latency run's, the buffered side's) written before the window, uncounted.
  const before = await drainUsage(server);
  // CPU over the window and its drain: the server's (SQLite writes in its worker thread count
  // there) and the PostgreSQL cluster's, which shares the server's core; where the gap goes.
  const serverCpuBefore = await server.call('cpu');
  const postgresCpuBefore = postgres?.cpuSeconds();
  const throughput = await load.call('autocannon', { url: server.url + path, body: jsonRequestBody, headers: headersFor(server), connections: 50, seconds });
  if (throughput.non2xx > 0 || throughput.errors > 0) throw new Error(`${server.ready.port} (${server.usageWrites}): ${throughput.non2xx} non-2xx, ${throughput.errors} errors`);
  const after = await drainUsage(server);
  const serverCpuAfter = await server.call('cpu');
  const postgresCpuSeconds = postgres === undefined ? 0 : postgres.cpuSeconds() - postgresCpuBefore;
  const serverCpuSeconds = (serverCpuAfter.user - serverCpuBefore.user + (serverCpuAfter.system - serverCpuBefore.system)) / 1e6;
  const written = after.rows - before.rows;
  // autocannon counts the answers it read; the server may have answered up to one more per connection as the window closed.
  if (written < throughput.requests || written > throughput.requests + 50) {
    throw new Error(`${server.ready.port}: ${throughput.requests} answers but ${written} usage rows written`);
  }
  const url = new URL(server.url + path);
  const latency = await load.call('fixedRate', {
    target: { host: url.hostname, port: Number(url.port), path, headers: headersFor(server) },
    body: jsonRequestBody,
    rate: latencyRate,
    seconds: Math.max(1, seconds / 2),
  });
  if (latency.failures > 0) throw new Error(`${server.ready.port} (${server.usageWrites}): ${latency.failures} failed requests at ${latencyRate} req/s (by status: ${JSON.stringify(latency.failedStatuses)})`);
  return {
    reqPerSec: throughput.requests / (throughput.seconds + after.drainMs / 1000),
    windowReqPerSec: throughput.requests / throughput.seconds,
    drainMs: after.drainMs,
    serverCpuUsPerReq: (serverCpuSeconds * 1e6) / throughput.requests,
    databaseCpuUsPerReq: (postgresCpuSeconds * 1e6) / throughput.requests,
    latencyP50Ms: latency.totalP50,
    latencyP99Ms: latency.totalP99,
  };
}

/** One paired comparison per store: buffered (baseline) against durable (candidate). */
export async function runGroupCommitSuite({ load, protocol, log }) {
  const postgres = await startPostgres({ cpu: pinning?.server });
  if (postgres === undefined) log('PostgreSQL is not installed: the PostgreSQL row is skipped (apt-get install postgresql).');
  const results = [];
  try {
    // PostgreSQL twice: with its default synchronous_commit (each commit waits for its WAL fsync,
    // a floor on the added latency), and with synchronous_commit off for the connection, as an
    // operator may set it (a commit survives the instance's crash, not the database server's).
    const variants = [
      { id: 'sqlite', store: 'sqlite', label: 'SQLite, WAL, synchronous NORMAL', env: {} },
      ...(postgres
        ? [
            { id: 'postgres', store: 'postgres', label: 'PostgreSQL, synchronous_commit on', env: { DATABASE_URL: postgres.url } },
            { id: 'postgres-async', store: 'postgres', label: 'PostgreSQL, synchronous_commit off', env: { DATABASE_URL: `${postgres.url}?synchronous_commit=off` } },
          ]
        : []),
    ];
    for (const { id, store, label, env } of variants) {
      const buffered = await start(store, 'buffered', env);
      const durable = await start(store, 'durable', env);
      try {
        const title = `Ready server (${label}): durable usage rows (group commit) vs the buffered ledger`;
        log(`Group commit: ${title}`);
        const summary = await runPaired({
          label: `group-commit-${id}`,
          protocol,
          log,
          measure: (side, seconds) => measureRun({ load, server: side === 'baseline' ? buffered : durable, seconds, postgres: store === 'postgres' ? postgres : undefined }),
        });
        const throughputMet = summary.ratio.reqPerSec >= groupCommitThroughputTarget;
        const latencyMet = summary.difference.latencyP50Ms <= groupCommitLatencyTargetMs;
        log(
          `  ${id}: durable ${summary.candidate.reqPerSec.toFixed(0)} req/s vs buffered ${summary.baseline.reqPerSec.toFixed(0)} req/s with rows written = ${(summary.ratio.reqPerSec * 100).toFixed(1)} % ` +
            `(pairs ${(summary.ratioRange.reqPerSec[0] * 100).toFixed(1)}–${(summary.ratioRange.reqPerSec[1] * 100).toFixed(1)} %, target ≥ ${groupCommitThroughputTarget * 100} %: ${throughputMet ? 'met' : 'missed'}; ` +
            `window alone ${(summary.ratio.windowReqPerSec * 100).toFixed(1)} %, drain ${summary.candidate.drainMs.toFixed(0)} vs ${summary.baseline.drainMs.toFixed(0)} ms; ` +
            `CPU µs/req server ${summary.candidate.serverCpuUsPerReq.toFixed(0)} vs ${summary.baseline.serverCpuUsPerReq.toFixed(0)}, database ${summary.candidate.databaseCpuUsPerReq.toFixed(0)} vs ${summary.baseline.databaseCpuUsPerReq.toFixed(0)}); ` +
            `p50 at ${latencyRate} req/s ${summary.candidate.latencyP50Ms.toFixed(2)} ms vs ${summary.baseline.latencyP50Ms.toFixed(2)} ms, added ${summary.difference.latencyP50Ms.toFixed(2)} ms (target ≤ ${groupCommitLatencyTargetMs} ms: ${latencyMet ? 'met' : 'missed'})`,
        );
        results.push({ id: `group-commit-${id}`, title, latencyRate, summary, throughputMet, latencyMet });
      } finally {
        await durable.stop();
        await buffered.stop();
      }
    }
  } finally {
    await postgres?.stop();
  }
  return { results };
}
