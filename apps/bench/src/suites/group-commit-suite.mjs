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
  return { ...child, url: `http://127.0.0.1:${child.ready.port}`, key: child.ready.key };
}

const headersFor = (server) => ({ 'content-type': 'application/json', authorization: `Bearer ${server.key}` });

/** req/s at 50 connections (closed loop), then the p50 and p99 of a request at `latencyRate` (open loop). */
async function measureRun({ load, server, seconds }) {
  const throughput = await load.call('autocannon', { url: server.url + path, body: jsonRequestBody, headers: headersFor(server), connections: 50, seconds });
  if (throughput.non2xx > 0 || throughput.errors > 0) throw new Error(`${server.ready.port}: ${throughput.non2xx} non-2xx, ${throughput.errors} errors`);
  const url = new URL(server.url + path);
  const latency = await load.call('fixedRate', {
    target: { host: url.hostname, port: Number(url.port), path, headers: headersFor(server) },
    body: jsonRequestBody,
    rate: latencyRate,
    seconds: Math.max(1, seconds / 2),
  });
  if (latency.failures > 0) throw new Error(`${server.ready.port}: ${latency.failures} failed requests at ${latencyRate} req/s`);
  return { reqPerSec: throughput.requests / throughput.seconds, latencyP50Ms: latency.totalP50, latencyP99Ms: latency.totalP99 };
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
          measure: (side, seconds) => measureRun({ load, server: side === 'baseline' ? buffered : durable, seconds }),
        });
        const throughputMet = summary.ratio.reqPerSec >= groupCommitThroughputTarget;
        const latencyMet = summary.difference.latencyP50Ms <= groupCommitLatencyTargetMs;
        log(
          `  ${id}: durable ${summary.candidate.reqPerSec.toFixed(0)} req/s vs buffered ${summary.baseline.reqPerSec.toFixed(0)} req/s = ${(summary.ratio.reqPerSec * 100).toFixed(1)} % (target ≥ ${groupCommitThroughputTarget * 100} %: ${throughputMet ? 'met' : 'missed'}); ` +
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
