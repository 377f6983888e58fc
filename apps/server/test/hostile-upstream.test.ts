import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startHostileUpstream, type HostileAnswer } from '../../../packages/engine-upstream/test/helpers/hostile-upstream.js';
import { createLiveKey } from './create-live-key.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { decodeSse } from './sse.js';

const mebibyte = 1024 * 1024;

/** The hostile answers an upstream was seen to send, each behind a model of its own. */
const hostileModels: Record<string, HostileAnswer> = {
  'hostile-gzip-stream': { kind: 'gzip-stream', mib: 400 },
  'hostile-gzip-json': { kind: 'gzip-json', mib: 400 },
  'hostile-json': { kind: 'json', mib: 300 },
  'hostile-error-body': { kind: 'error-body', mib: 300 },
  'hostile-endless-line': { kind: 'endless-line', mib: 800 },
  'hostile-tool-arguments': { kind: 'tool-arguments', mib: 10 },
  'hostile-under-reported': { kind: 'under-reported', mib: 300 },
};

/** The server process's resident set (Linux), in MB. */
function rssMb(server: ServerProcess): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) / 1024;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One `GET /healthz`: its latency in milliseconds. */
function probe(origin: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(`${origin}/healthz`, { agent, timeout: 30_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - started));
    });
    req.on('timeout', () => req.destroy(new Error('healthz timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** What the client got: the status, the size of the body and its first 256 KiB (a regression must not fill this process). */
interface Answer {
  status: number;
  bytes: number;
  head: string;
}

async function ask(server: ServerProcess, key: string, body: Record<string, unknown>): Promise<Answer> {
  const response = await fetch(`${server.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'Hi' }], ...body }),
    signal: AbortSignal.timeout(60_000),
  });
  let bytes = 0;
  let head = '';
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    if (head.length < 256 * 1024) head += decoder.decode(chunk, { stream: true });
  }
  return { status: response.status, bytes, head };
}

/** Sends one request while sampling the server's RSS and probing /healthz; prints the figures. */
async function measured(server: ServerProcess, key: string, body: Record<string, unknown>) {
  const rssBefore = rssMb(server);
  let rssPeak = rssBefore;
  const latencies: number[] = [];
  let running = true;
  const sampler = (async () => {
    while (running) {
      rssPeak = Math.max(rssPeak, rssMb(server));
      latencies.push(await probe(server.origin));
      rssPeak = Math.max(rssPeak, rssMb(server));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  const answer = await ask(server, key, body);
  running = false;
  await sampler;
  const worstHealthz = Math.max(...latencies);
  console.log(
    `${body.model as string} (stream ${body.stream === true}, max_tokens ${(body.max_tokens as number | undefined) ?? 'default'}): ` +
      `server RSS ${rssBefore.toFixed(0)} -> peak ${rssPeak.toFixed(0)} MB (+${(rssPeak - rssBefore).toFixed(0)}), ` +
      `/healthz worst ${worstHealthz.toFixed(1)} ms over ${latencies.length} probes; client got ${answer.status}, ${answer.bytes} bytes`,
  );
  return { answer, rssGrowthMb: rssPeak - rssBefore };
}

describe('quantum-chat serve in front of a hostile or broken upstream', () => {
  it('should answer each hostile answer with a clear error or a length-cut answer, its RSS bounded', async () => {
    const upstreams = await Promise.all(Object.values(hostileModels).map((hostile) => startHostileUpstream(hostile)));
    onTestFinished(() => Promise.all(upstreams.map((upstream) => upstream.close())).then(() => undefined));
    const models = Object.fromEntries(Object.keys(hostileModels).map((id, index) => [id, { engine: 'upstream', baseUrl: upstreams[index]!.baseUrl, model: 'hostile' }]));
    const server = await startServerProcess({ models });
    onTestFinished(() => server.dispose());
    const key = await createLiveKey(server.dataDir);

    const errorOf = (answer: Answer) => (JSON.parse(answer.head) as { error: { code: string; message: string } }).error;
    const completionOf = (answer: Answer) =>
      JSON.parse(answer.head) as { choices: { finish_reason: string; message: { content: string | null; tool_calls?: { function: { arguments: string } }[] } }[]; usage: { completion_tokens: number } };

    // A gzip stream inflating to 400 MiB: cut at max_tokens, streamed or not.
    for (const stream of [false, true]) {
      const { answer, rssGrowthMb } = await measured(server, key, { model: 'hostile-gzip-stream', stream, stream_options: stream ? { include_usage: true } : undefined });
      expect(answer.status).toBe(200);
      expect(answer.bytes).toBeLessThan(mebibyte);
      expect(rssGrowthMb).toBeLessThan(200);
      if (stream) {
        const chunks = decodeSse(answer.head).filter((event) => event.data !== '[DONE]').map((event) => JSON.parse(event.data) as { choices: { finish_reason: string | null }[]; usage?: { completion_tokens: number } });
        expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason === 'length')).toBe(true);
        expect(chunks.at(-1)?.usage?.completion_tokens).toBe(4096);
      } else {
        expect(completionOf(answer)).toMatchObject({ choices: [{ finish_reason: 'length' }], usage: { completion_tokens: 4096 } });
      }
    }

    for (const model of ['hostile-gzip-json', 'hostile-json']) {
      const { answer, rssGrowthMb } = await measured(server, key, { model });
      expect(answer.status).toBe(502);
      expect(errorOf(answer)).toMatchObject({ code: 'upstream_error', message: 'The model server sent more than 33554432 bytes (decoded) for one answer.' });
      expect(rssGrowthMb).toBeLessThan(200);
    }

    const failed = await measured(server, key, { model: 'hostile-error-body' });
    expect(failed.answer.status).toBe(502);
    expect(errorOf(failed.answer)).toMatchObject({ code: 'upstream_error', message: 'The model server failed (HTTP 500)' });
    expect(failed.rssGrowthMb).toBeLessThan(200);

    const endless = await measured(server, key, { model: 'hostile-endless-line' });
    expect(endless.answer.status).toBe(502);
    expect(errorOf(endless.answer).message).toBe('The model server sent a line longer than 4194304 characters.');
    expect(endless.rssGrowthMb).toBeLessThan(200);

    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
    const toolCall = await measured(server, key, { model: 'hostile-tool-arguments', max_tokens: 100, tools });
    expect(toolCall.answer.status).toBe(200);
    const cut = completionOf(toolCall.answer);
    expect(cut).toMatchObject({ choices: [{ finish_reason: 'length' }], usage: { completion_tokens: 100 } });
    expect(cut.choices[0]!.message.tool_calls![0]!.function.arguments.length).toBeLessThanOrEqual((100 * 4 + 64) * 4);

    const underReported = await measured(server, key, { model: 'hostile-under-reported' });
    expect(underReported.answer.status).toBe(200);
    expect(completionOf(underReported.answer)).toMatchObject({ choices: [{ finish_reason: 'length' }], usage: { completion_tokens: 4096 } });
    expect(underReported.rssGrowthMb).toBeLessThan(200);
  }, 240_000);
});
