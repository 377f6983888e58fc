// The ready server's own cost: apps/server (auth, limits, the daily quota in the store, the
// batched usage ledger, logs) around the JSON suite's fixed engine and around the reference
// engine, each against bare Fastify answering the same bytes; on SQLite and on PostgreSQL.
import { fileURLToPath } from 'node:url';
import { jsonRequestBody } from '../lib/fixtures.mjs';
import { startChild } from '../lib/child.mjs';
import { pinning } from '../lib/options.mjs';
import { runPaired } from '../lib/paired.mjs';
import { startPostgres } from '../lib/postgres.mjs';
import { withServerCpu } from '../lib/servers.mjs';

const script = fileURLToPath(new URL('../servers/ready-server.mjs', import.meta.url));
const path = '/v1/chat/completions';

async function start(args, env = {}) {
  // stdout on /dev/null: the ready server's logs, written by its own destination as in production.
  const child = await startChild(script, { role: 'server', args, env, stdout: 'ignore' });
  return { ...child, url: `http://127.0.0.1:${child.ready.port}`, key: child.ready.key };
}

const headersFor = (server) => ({ 'content-type': 'application/json', authorization: `Bearer ${server.key ?? 'qc_live_unused'}` });

async function check(server) {
  const response = await fetch(server.url + path, { method: 'POST', headers: headersFor(server), body: jsonRequestBody });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`ready-server ${server.ready.port}: ${response.status} ${text.slice(0, 300)}`);
  return text.length;
}

/**
 * One measured run of `server`: req/s, and what each request cost in CPU time of the server
 * process (its SQLite worker included), of the PostgreSQL cluster when `postgres` is given, and
 * of the load generator; `serverBusy` and `loadBusy` are their shares of a core during the run,
 * which show which process held the rate back.
 */
async function measureRun({ load, server, postgres, seconds }) {
  const storeBefore = postgres?.cpuSeconds();
  const { result, cpuSeconds } = await withServerCpu(server, () =>
    load.call('autocannon', { url: server.url + path, body: jsonRequestBody, headers: headersFor(server), connections: 50, seconds }),
  );
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${server.ready.port}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const figures = {
    reqPerSec: result.requests / result.seconds,
    reqPerCpuSec: result.requests / cpuSeconds,
    cpuUsPerReq: (cpuSeconds * 1e6) / result.requests,
    serverBusy: cpuSeconds / result.seconds,
    loadCpuUsPerReq: (result.loadCpuSeconds * 1e6) / result.requests,
    loadBusy: result.loadCpuSeconds / result.seconds,
  };
  if (postgres === undefined) return figures;
  const storeCpuSeconds = postgres.cpuSeconds() - storeBefore;
  return {
    ...figures,
    storeCpuUsPerReq: (storeCpuSeconds * 1e6) / result.requests,
    reqPerServiceCpuSec: result.requests / (cpuSeconds + storeCpuSeconds),
  };
}

/** The ready-server rows: four paired comparisons (fixed and reference engine × SQLite and PostgreSQL). */
export async function runReadySuite({ load, protocol, log }) {
  // On the server's core: the store's work competes with the server's, as SQLite's worker thread does.
  const postgres = await startPostgres({ cpu: pinning?.server });
  if (postgres === undefined) log('PostgreSQL is not installed: the PostgreSQL rows are skipped (apt-get install postgresql).');
  const stores = postgres ? ['sqlite', 'postgres'] : ['sqlite'];
  const results = [];
  try {
    for (const engine of ['fixed', 'reference']) {
      const bare = await start(['bare', engine]);
      try {
        for (const store of stores) {
          const ready = await start(['ready', engine, store], store === 'postgres' ? { DATABASE_URL: postgres.url } : {});
          try {
            const bytes = [await check(bare), await check(ready)];
            const comparison = {
              id: `ready-${engine}-${store}`,
              title: `Ready server (${store === 'postgres' ? 'PostgreSQL' : 'SQLite'} store) around the ${engine === 'fixed' ? "JSON suite's fixed engine" : 'reference engine'} vs bare Fastify answering the same bytes`,
              target: engine === 'fixed' ? 0.4 : 0.2,
              answerBytes: bytes[1],
            };
            log(`Ready server: ${comparison.title}`);
            const summary = await runPaired({
              label: comparison.id,
              protocol,
              log,
              measure: async (side, seconds) => {
                const figures = await measureRun({ load, server: side === 'baseline' ? bare : ready, postgres: store === 'postgres' ? postgres : undefined, seconds });
                // The bare route has no store: its CPU per request is all the service costs.
                return store === 'postgres' && side === 'baseline' ? { ...figures, storeCpuUsPerReq: 0, reqPerServiceCpuSec: figures.reqPerCpuSec } : figures;
              },
            });
            results.push({ ...comparison, summary });
          } finally {
            await ready.stop();
          }
        }
      } finally {
        await bare.stop();
      }
    }
  } finally {
    await postgres?.stop();
  }
  return { results };
}
