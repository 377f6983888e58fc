// Tokens per second of a local GGUF model through `quantum-chat serve --model` (streamed over
// HTTP, a live key, the whole request path) against node-llama-cpp called directly in its own
// process, same model, settings and prompt, paired in the same run (ABBA). Target: ≥ 95 %.
//
//   node apps/bench/src/llama-bench.mjs                         # a synthetic model (random weights) sized like a small real one
//   BENCH_LLAMA_MODEL=./qwen2.5-0.5b-instruct-q4_k_m.gguf node apps/bench/src/llama-bench.mjs
//
// Knobs: BENCH_LLAMA_THREADS (1), BENCH_LLAMA_TOKENS (128 per answer), BENCH_PAIRS, BENCH_SECONDS.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeTinyGguf } from '@quantum-chat/engine-llama/testing';
import { procCpuSeconds, startChild } from './lib/child.mjs';
import { describeMachine, loadAverage } from './lib/machine.mjs';
import { pinned, protocol } from './lib/options.mjs';
import { runPaired } from './lib/paired.mjs';

const cli = fileURLToPath(new URL('../../server/dist/cli.js', import.meta.url));
const directScript = fileURLToPath(new URL('./servers/llama-direct.mjs', import.meta.url));
const threads = Number(process.env.BENCH_LLAMA_THREADS ?? 1);
const maxTokens = Number(process.env.BENCH_LLAMA_TOKENS ?? 128);
const contextSize = 1024;
const prompt = 'Write a long story about a lighthouse keeper.';

const directory = mkdtempSync(join(tmpdir(), 'llama-bench-'));
// Random weights at 512 wide × 8 blocks (~100 MB of f32): a token costs about what a
// 0.5B-parameter quantized model's does on one core, so per-token overheads show as they would.
const modelPath = process.env.BENCH_LLAMA_MODEL ?? (await writeTinyGguf(join(directory, 'synthetic.gguf'), { embedding: 512, layers: 8, heads: 8 }));

/** Starts the ready server on the model and returns its origin, a live key and a stop function. */
async function startServer() {
  const models = Object.fromEntries(['quantum-lite', 'quantum-flash', 'quantum-pro', 'quantum-reasoner'].map((id) => [id, { engine: 'llama', file: modelPath, contextSize, threads, parallel: 1 }]));
  const configPath = join(directory, 'config.json');
  writeFileSync(configPath, JSON.stringify({ dataDir: join(directory, 'data'), models, overload: false, logLevel: 'warn' }));
  const { command, args } = pinned('server', process.execPath, [cli, 'serve', '--config', configPath]);
  const child = spawn(command, args, { env: { ...process.env, HOST: '127.0.0.1', PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  await new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (text) => {
      stdout += text;
      if (/Model loaded in (\d+) ms/.test(stdout)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${stdout}`)));
  });
  const loaded = /Model loaded in (\d+) ms: (.*)/.exec(stdout);
  const origin = /listening on (http:\/\/[\d.:]+)/.exec(stdout)[1];
  const key = execFileSync(process.execPath, [cli, 'keys', 'create', '--org', 'default', '--kind', 'live', '--data-dir', join(directory, 'data')]).toString().trim().split('\n').at(-1);
  return { origin, key, pid: child.pid, loadMs: Number(loaded[1]), banner: loaded[2], stop: () => child.kill('SIGTERM') };
}

/** One streamed answer through the server: the completion tokens its usage reports. */
async function answerThroughServer(server) {
  const response = await fetch(`${server.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'quantum-flash', messages: [{ role: 'user', content: prompt }], max_tokens: maxTokens, temperature: 0, stream: true, stream_options: { include_usage: true } }),
  });
  const text = await response.text();
  const usage = [...text.matchAll(/"completion_tokens":(\d+)/g)].at(-1);
  if (usage === undefined) throw new Error(`no usage in the stream: ${text.slice(0, 300)}`);
  return Number(usage[1]);
}

const server = await startServer();
const direct = await startChild(directScript, { role: 'server', args: [modelPath, String(contextSize), String(threads)], readyTimeoutMs: 120_000 });
try {
  const result = await runPaired({
    label: 'llama tokens/s',
    protocol,
    async measure(side, seconds) {
      // Tokens per second of wall time, and per second of the generating process's CPU time
      // (the figure to trust on a contended machine: it leaves out time the process waited for a core).
      if (side === 'baseline') {
        const cpuBefore = procCpuSeconds(direct.pid);
        const { tokens, ms } = await direct.call('run', { seconds, prompt, maxTokens });
        return { tokensPerSecond: (tokens / ms) * 1000, tokensPerCpuSecond: tokens / (procCpuSeconds(direct.pid) - cpuBefore) };
      }
      let tokens = 0;
      const cpuBefore = procCpuSeconds(server.pid);
      const started = performance.now();
      while (performance.now() - started < seconds * 1000) tokens += await answerThroughServer(server);
      return { tokensPerSecond: (tokens / (performance.now() - started)) * 1000, tokensPerCpuSecond: tokens / (procCpuSeconds(server.pid) - cpuBefore) };
    },
  });
  const machine = describeMachine();
  const ratio = result.ratio.tokensPerSecond;
  console.log('');
  const cpuRatio = result.ratio.tokensPerCpuSecond;
  console.log(`| machine | model | threads | direct tokens/s | server tokens/s | ratio | tokens per CPU-second, direct / server (ratio) | model load |`);
  console.log(`|---|---|---|---|---|---|---|---|`);
  console.log(
    `| ${machine.cpuModel}, ${machine.nproc} cores, ${direct.ready.gpu === false ? 'CPU' : direct.ready.gpu} | ${process.env.BENCH_LLAMA_MODEL ? modelPath : 'synthetic 512×8 f32'} (${(statSync(modelPath).size / 2 ** 20).toFixed(1)} MiB) | ${threads} | ${result.baseline.tokensPerSecond.toFixed(1)} | ${result.candidate.tokensPerSecond.toFixed(1)} | ${(ratio * 100).toFixed(1)} % (pairs ${result.ratioRange.tokensPerSecond.map((value) => value.toFixed(2)).join('–')}) | ${result.baseline.tokensPerCpuSecond.toFixed(1)} / ${result.candidate.tokensPerCpuSecond.toFixed(1)} (${(cpuRatio * 100).toFixed(1)} %) | ${server.loadMs} ms |`,
  );
  console.log(`Load average during the run: ${loadAverage().join(', ')}.`);
  console.log(ratio >= 0.95 ? 'Target met: ≥ 95 % of direct node-llama-cpp.' : 'Target MISSED: below 95 % of direct node-llama-cpp.');
} finally {
  server.stop();
  await direct.stop();
  rmSync(directory, { recursive: true, force: true });
}
