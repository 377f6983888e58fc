// The HTTP suites: the JSON path, the streaming path and first-chunk latency, each as paired
// comparisons of a candidate (our adapter) against a bare route of the same framework.
import { jsonRequestBody, requestHeaders, streamChunkCount, streamRequestBody } from '../lib/fixtures.mjs';
import { runPaired } from '../lib/paired.mjs';
import { startServer, withServerCpu } from '../lib/servers.mjs';

const path = '/v1/chat/completions';

/** One request to check a server answers 200 with the expected shape before it is measured. */
async function checkServer(server, body, expect) {
  const response = await fetch(server.url + path, { method: 'POST', headers: requestHeaders, body });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${server.variant} answered ${response.status}: ${text.slice(0, 300)}`);
  expect(text, server);
  return text;
}

async function withServers(variants, mode, run) {
  const servers = {};
  try {
    for (const variant of new Set(variants)) servers[variant] = await startServer(variant, mode);
    return await run(servers);
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
  }
}

/** JSON path: autocannon, 50 connections, req/s and requests per second of server CPU time. */
export async function runJsonSuite({ load, protocol, log }) {
  const comparisons = [
    { id: 'json-fastify', title: 'Fastify adapter vs bare Fastify', baseline: 'fastify-bare', candidate: 'fastify-adapter', target: 0.9 },
    { id: 'json-express', title: 'Express adapter vs bare Express', baseline: 'express-bare', candidate: 'express-adapter', target: 0.9 },
    { id: 'json-fastify-stub', title: 'Fastify adapter around a stub handler vs bare Fastify (informational: the adapter alone, without the core)', baseline: 'fastify-bare', candidate: 'fastify-adapter-stub' },
    { id: 'json-node', title: 'Core Node bridge vs raw node:http', baseline: 'node-bare', candidate: 'node-bridge' },
    { id: 'json-fastify-schema', title: 'Bare Fastify with a response schema vs bare Fastify (informational)', baseline: 'fastify-bare', candidate: 'fastify-bare-schema' },
    { id: 'json-node-vs-fastify', title: 'Raw node:http vs bare Fastify (informational: the floor)', baseline: 'fastify-bare', candidate: 'node-bare' },
  ];
  const variants = comparisons.flatMap((comparison) => [comparison.baseline, comparison.candidate]);
  return withServers(variants, 'back-to-back', async (servers) => {
    let reference;
    for (const server of Object.values(servers)) {
      await checkServer(server, jsonRequestBody, (text) => {
        const answer = JSON.parse(text);
        reference ??= text.length;
        if (answer.choices?.[0]?.message?.content === undefined) throw new Error(`${server.variant}: not a completion`);
        if (Math.abs(text.length - reference) > 16) throw new Error(`${server.variant}: ${text.length} bytes, expected about ${reference}`);
      });
    }
    const results = [];
    for (const comparison of comparisons) {
      log(`JSON path: ${comparison.title}`);
      const summary = await runPaired({
        label: comparison.id,
        protocol,
        log,
        measure: async (side, seconds) => {
          const server = servers[comparison[side]];
          const { result, cpuSeconds } = await withServerCpu(server, () =>
            load.call('autocannon', { url: server.url + path, body: jsonRequestBody, headers: requestHeaders, connections: 50, seconds }),
          );
          if (result.non2xx > 0 || result.errors > 0) throw new Error(`${server.variant}: ${result.non2xx} non-2xx, ${result.errors} errors`);
          return { reqPerSec: result.requests / result.seconds, reqPerCpuSec: result.requests / cpuSeconds };
        },
      });
      results.push({ ...comparison, summary });
    }
    return { answerBytes: reference, results };
  });
}

function streamTarget(server) {
  return { host: '127.0.0.1', port: server.port, path, headers: requestHeaders };
}

function checkStream(text, server) {
  const frames = text.split('\n\n').filter(Boolean);
  // 200 content chunks, the finish chunk, [DONE].
  if (frames.length !== streamChunkCount + 2 || frames.at(-1) !== 'data: [DONE]') {
    throw new Error(`${server.variant}: ${frames.length} frames, last ${JSON.stringify(frames.at(-1))}`);
  }
}

/**
 * Streaming path: 200-chunk streams under 50 concurrent streams, chunks/s and streams/s, for
 * the engine yielding back to back and one chunk per event-loop turn; then the first chunk's
 * latency at one connection.
 */
export async function runStreamingSuite({ load, protocol, log }) {
  const frameworks = [
    { name: 'Fastify', baseline: 'fastify-bare', candidate: 'fastify-adapter' },
    { name: 'Express', baseline: 'express-bare', candidate: 'express-adapter' },
  ];
  const modes = [
    { mode: 'back-to-back', target: 0.85 },
    { mode: 'paced', target: 0.9 },
  ];
  const throughput = [];
  const firstChunk = [];
  for (const { mode, target } of modes) {
    await withServers(
      frameworks.flatMap((framework) => [framework.baseline, framework.candidate]),
      mode,
      async (servers) => {
        for (const server of Object.values(servers)) await checkServer(server, streamRequestBody, checkStream);
        for (const framework of frameworks) {
          log(`Streaming (${mode}): ${framework.name} adapter vs bare ${framework.name}`);
          const summary = await runPaired({
            label: `stream-${mode}-${framework.name}`,
            protocol,
            log,
            measure: async (side, seconds) => {
              const server = servers[framework[side]];
              const { result, cpuSeconds } = await withServerCpu(server, () =>
                load.call('streams', { target: streamTarget(server), body: streamRequestBody, concurrency: 50, seconds }),
              );
              if (result.failures > 0) throw new Error(`${server.variant}: ${result.failures} failed streams`);
              return {
                chunksPerSec: result.frames / result.seconds,
                streamsPerSec: result.streams / result.seconds,
                streamsPerCpuSec: result.streams / cpuSeconds,
              };
            },
          });
          throughput.push({ id: `stream-${mode}-${framework.name.toLowerCase()}`, framework: framework.name, mode, target, summary });
        }
        if (mode !== 'paced') return;
        for (const framework of frameworks) {
          log(`First chunk at one connection: ${framework.name} adapter vs bare ${framework.name}`);
          const summary = await runPaired({
            label: `first-chunk-${framework.name}`,
            protocol,
            log,
            measure: async (side, seconds) => {
              const server = servers[framework[side]];
              const result = await load.call('firstChunk', { target: streamTarget(server), body: streamRequestBody, seconds: Math.min(seconds, 3) });
              if (result.failures > 0) throw new Error(`${server.variant}: ${result.failures} failed streams`);
              return { firstChunkP50Ms: result.p50, firstChunkP90Ms: result.p90 };
            },
          });
          firstChunk.push({ id: `first-chunk-${framework.name.toLowerCase()}`, framework: framework.name, target: 1.25, summary });
        }
      },
    );
  }
  return { chunksPerStream: streamChunkCount, throughput, firstChunk };
}
