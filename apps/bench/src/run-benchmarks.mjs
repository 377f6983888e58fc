// `pnpm bench`: runs every benchmark and writes docs/benchmarks.md.
// `pnpm bench --quick` (or BENCH_QUICK=1): a smoke run that writes .cache/benchmarks-quick.md.
// `--only json,streaming,idle,decoding,client,linearity,encoding,relay,bareProxy,ready,groupCommit,resumable,relayedStreams,startMemory,concurrency` runs a subset.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeMachine, loadAverage } from './lib/machine.mjs';
import { holdCpusAwake } from './lib/cpus-awake.mjs';
import { only, pinning, protocol, quick } from './lib/options.mjs';
import { jsonRequestBody } from './lib/fixtures.mjs';
import { startLoad } from './lib/servers.mjs';
import { runCpuGroup } from './suites/cpu-suite.mjs';
import { runJsonSuite, runStreamingSuite } from './suites/http-suites.mjs';
import { runReadySuite } from './suites/ready-suite.mjs';
import { runResponsesSuite } from './suites/responses-suite.mjs';
import { runGroupCommitSuite } from './suites/group-commit-suite.mjs';
import { runIdleSuite } from './suites/idle-suite.mjs';
import { runRelaySuite } from './suites/relay-suite.mjs';
import { runBareProxySuite } from './suites/bare-proxy-suite.mjs';
import { runResumableSuite } from './suites/resumable-suite.mjs';
import { runRelayedStreamsSuite } from './suites/relayed-streams-suite.mjs';
import { runStartMemorySuite } from './suites/start-memory-suite.mjs';
import { runConcurrencySuite } from './suites/concurrency-suite.mjs';
import { evaluateTargets } from './report/evaluate-targets.mjs';
import { writeReport } from './report/write-report.mjs';

const root = new URL('../../../', import.meta.url);
// Only a full run writes docs/benchmarks.md: a smoke run or a subset (`--only`) goes to .cache/.
const partial = quick ? '-quick' : only !== undefined ? '-partial' : '';
const reportPath = fileURLToPath(partial ? new URL(`apps/bench/.cache/benchmarks${partial}.md`, root) : new URL('docs/benchmarks.md', root));
const resultsPath = fileURLToPath(new URL(`apps/bench/.cache/results${partial}.json`, root));
const findingsPath = fileURLToPath(new URL('apps/bench/findings.md', root));
const log = (line) => console.log(line);

// `--render`: writes the report again from the saved results of the last run (after editing
// findings.md, say): the figures stay those of that one run.
if (process.argv.includes('--render')) {
  const saved = JSON.parse(readFileSync(resultsPath, 'utf8'));
  mkdirSync(dirname(reportPath), { recursive: true });
  writeFileSync(reportPath, writeReport({ ...saved, findingsPath }) + '\n');
  log(`Wrote ${reportPath} from ${resultsPath}.`);
  process.exit(0);
}

const started = Date.now();
const cpusAwake = holdCpusAwake();
const machine = { ...describeMachine(), cpusAwake: cpusAwake.held ? 'held polling (PM QoS CPU latency 0 µs)' : `not held (${cpusAwake.reason})` };
const loads = [loadAverage()];
const suiteLoads = {};
const results = {};
const wanted = (name) => only === undefined || only.has(name);
log(`quantum-chat bench${quick ? ' (quick)' : ''}: commit ${machine.commit}, ${machine.nproc} cores, load average ${loads[0].join(' ')}`);

async function suite(name, run) {
  if (!wanted(name)) return;
  suiteLoads[name] = loadAverage();
  log(`\n== ${name} (load average ${suiteLoads[name].join(' ')})`);
  results[name] = await run();
}

// CPU microbenchmarks first: they need no load generator.
await suite('decodingStrings', () => runCpuGroup('decodingStrings', { quick, log }));
await suite('decodingBytes', () => runCpuGroup('decodingBytes', { quick, log }));
await suite('client', () => runCpuGroup('client', { quick, log }));
await suite('linearity', () => runCpuGroup('linearity', { quick, log }));
await suite('encoding', () => runCpuGroup('encoding', { quick, log }));

const load = await startLoad();
try {
  await suite('json', async () => ({ ...(await runJsonSuite({ load, protocol, log })), requestBytes: Buffer.byteLength(jsonRequestBody) }));
  await suite('streaming', () => runStreamingSuite({ load, protocol, log }));
  await suite('idle', () => runIdleSuite({ load, quick, log }));
  await suite('relay', () => runRelaySuite({ load, protocol, quick, log }));
  await suite('bareProxy', () => runBareProxySuite({ load, protocol, quick, log }));
  await suite('ready', () => runReadySuite({ load, protocol, log }));
  await suite('responses', () => runResponsesSuite({ load, protocol, log }));
  await suite('groupCommit', () => runGroupCommitSuite({ load, protocol, log }));
  await suite('resumable', () => runResumableSuite({ quick, log }));
  await suite('relayedStreams', () => runRelayedStreamsSuite({ load, quick, log }));
  await suite('startMemory', () => runStartMemorySuite({ quick, log }));
  await suite('concurrency', () => runConcurrencySuite({ load, quick, log }));
} finally {
  await load.stop();
}
loads.push(loadAverage());
cpusAwake.release();

const scripts = 'apps/bench/src';
const commands = [
  `pnpm bench${quick ? ' --quick' : ''}${only ? ` --only ${[...only].join(',')}` : ''}   # = turbo run build, then node ${scripts}/run-benchmarks.mjs`,
  `# servers: ${pinning ? 'taskset -c 0 ' : ''}node ${scripts}/servers/http-server.mjs <variant> <back-to-back|paced|idle>`,
  `# load:    ${pinning ? 'taskset -c 1 ' : ''}node ${scripts}/load/load-worker.mjs   (autocannon and node:http clients, driven over IPC)`,
  `# CPU:     ${pinning ? 'taskset -c 0 ' : ''}node --max-old-space-size=4096 ${scripts}/suites/cpu-worker.mjs   (one process per group)`,
  `# ready:   ${pinning ? 'taskset -c 0 ' : ''}node ${scripts}/servers/ready-server.mjs <ready|bare> <fixed|reference> [sqlite|postgres]   (PostgreSQL: a throw-away cluster, initdb + pg_ctl)`,
  `# relay:   ${pinning ? 'taskset -c 0 ' : ''}node apps/server/dist/cli.js serve --config <tmp>/quantum-chat.config.json; ${pinning ? 'taskset -c 1 ' : ''}node ${scripts}/servers/upstream-mock.mjs`,
  `# bare:    ${pinning ? 'taskset -c 0 ' : ''}node ${scripts}/servers/bare-proxy.mjs <upstream port>   (Fastify + undici, the relay's baseline)`,
];
const durationSeconds = (Date.now() - started) / 1000;
const report = writeReport({ results, machine, loads, options: { quick, protocol, pinning, suiteLoads }, commands, durationSeconds, findingsPath });
mkdirSync(fileURLToPath(new URL('apps/bench/.cache/', root)), { recursive: true });
writeFileSync(resultsPath, JSON.stringify({ results, machine, loads, options: { quick, protocol, pinning, suiteLoads }, commands, durationSeconds }, null, 2));
mkdirSync(dirname(reportPath), { recursive: true });
writeFileSync(reportPath, report + '\n');

log(`\nTargets:`);
for (const target of evaluateTargets(results)) log(`  ${target.met === undefined ? 'n/a   ' : target.met ? 'met   ' : 'MISSED'}  ${target.name}: ${target.figure}`);
log(`\nWrote ${reportPath} (${Math.round(durationSeconds)} s).`);
