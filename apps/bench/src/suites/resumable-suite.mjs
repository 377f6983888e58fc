// Resumable streams (decisions §4.7) through the ready server: the server CPU of a resumable
// stream against a plain one (same request, same run, rounds alternated), and how soon a
// resume's first replayed frame arrives (idle machine, one request at a time).
import { fileURLToPath } from 'node:url';
import { startChild } from '../lib/child.mjs';
import { requestObject } from '../lib/fixtures.mjs';
import { withServerCpu } from '../lib/servers.mjs';
import { median, percentile } from '../lib/stats.mjs';

const script = fileURLToPath(new URL('../servers/ready-server.mjs', import.meta.url));

/** The stream of the reference engine's answer to the bench request, plain or resumable. */
const bodyOf = (resumable) => JSON.stringify({ ...requestObject, stream: true, ...(resumable ? { stream_options: { resumable: true } } : {}) });

/** `count` streams of the bench request, plain or resumable, `concurrency` at a time; resolves with a stream's characters. */
export async function streamAll(server, resumable, count, concurrency) {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${server.key}` };
  const body = bodyOf(resumable);
  let next = 0;
  let bytes = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const response = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers, body });
      const text = await response.text();
      if (response.status !== 200 || !text.endsWith('data: [DONE]\n\n')) throw new Error(`resumable bench: ${response.status} ${text.slice(0, 200)}`);
      bytes += text.length;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return bytes / count;
}

/** Milliseconds from sending a resume to its first bytes, `samples` times, one at a time. */
async function resumeLatencies(server, samples) {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${server.key}` };
  const started = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers, body: bodyOf(true) });
  const id = started.headers.get('x-quantum-stream-id');
  await started.text();
  const latencies = [];
  for (let sample = 0; sample < samples; sample++) {
    const sentAt = performance.now();
    const response = await fetch(`${server.url}/v1/chat/completions/${id}/stream`, { headers: { authorization: `Bearer ${server.key}`, 'last-event-id': '1' } });
    const reader = response.body.getReader();
    await reader.read();
    latencies.push(performance.now() - sentAt);
    await reader.cancel();
  }
  return latencies;
}

export async function runResumableSuite({ quick, log }) {
  const child = await startChild(script, { role: 'server', args: ['ready', 'reference', 'sqlite'], stdout: 'ignore' });
  const server = { ...child, url: `http://127.0.0.1:${child.ready.port}`, key: child.ready.key };
  const count = quick ? 100 : 400;
  const rounds = quick ? 2 : 5;
  try {
    await streamAll(server, false, 50, 5);
    await streamAll(server, true, 50, 5);
    const plain = [];
    const resumable = [];
    let streamBytes = 0;
    for (let round = 0; round < rounds; round++) {
      for (const [kind, into] of [[false, plain], [true, resumable]]) {
        const { result, cpuSeconds } = await withServerCpu(server, () => streamAll(server, kind, count, 8));
        streamBytes = result;
        into.push((cpuSeconds * 1e6) / count);
      }
    }
    const latencies = await resumeLatencies(server, quick ? 100 : 400);
    const figures = {
      streamBytes: Math.round(streamBytes),
      plainCpuUsPerStream: median(plain),
      resumableCpuUsPerStream: median(resumable),
      cpuRatio: median(resumable) / median(plain),
      cpuTarget: 1.15,
      resumeFirstFrameP50Ms: percentile(latencies, 50),
      resumeFirstFrameP95Ms: percentile(latencies, 95),
      resumeTargetMs: 5,
    };
    log(
      `Resumable streams: server CPU per stream ${figures.plainCpuUsPerStream.toFixed(0)} µs plain, ${figures.resumableCpuUsPerStream.toFixed(0)} µs resumable (×${figures.cpuRatio.toFixed(3)}, target ≤ ×1.15), ` +
        `${figures.streamBytes} bytes a stream; a resume's first frame p50 ${figures.resumeFirstFrameP50Ms.toFixed(2)} ms, p95 ${figures.resumeFirstFrameP95Ms.toFixed(2)} ms (target p50 ≤ 5 ms)`,
    );
    return figures;
  } finally {
    await server.stop();
  }
}
