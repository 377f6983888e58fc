import { describe, expect, it, onTestFinished } from 'vitest';
import { startInProcessServer } from './in-process-server.js';

describe('a resumable run without its client, past streams.runTimeoutSeconds', { timeout: 60_000 }, () => {
  it('should end with an upstream_timeout error frame, its result being that 504', async () => {
    // Paced so that the answer asked for would take minutes: only the run timeout ends it.
    const server = await startInProcessServer({ reference: { tokensPerSecond: 5 }, streams: { runTimeoutSeconds: 1 } });
    onTestFinished(() => server.close());
    const headers = { authorization: `Bearer ${server.testKey}` };
    const controller = new AbortController();
    const started = await fetch(`${server.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content: 'Write a long essay about rivers.' }], max_tokens: 4000, stream: true, stream_options: { resumable: true } }),
      signal: controller.signal,
    });
    expect(started.status).toBe(200);
    const id = started.headers.get('x-quantum-stream-id')!;
    // The client reads the first frame, then leaves.
    const reader = started.body!.getReader();
    let first = '';
    while (!first.includes('\n\n')) first += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await reader.cancel().catch(() => undefined);

    // Nobody reads it now (a resume would be a reader, which keeps a run going): wait for its end.
    let result: Response;
    for (;;) {
      result = await fetch(`${server.origin}/v1/chat/completions/${id}`, { headers });
      if (result.status !== 409) break;
      await result.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(result.status).toBe(504);
    expect((await result.json()).error).toMatchObject({ type: 'server_error', code: 'upstream_timeout' });
    const rest = await (await fetch(`${server.origin}/v1/chat/completions/${id}/stream`, { headers: { ...headers, 'last-event-id': '1' } })).text();
    expect(rest).toMatch(/^id: \d+\nevent: error\ndata: \{"error":\{[^\n]*"code":"upstream_timeout"[^\n]*\}\}\n\n$/m);
    expect(rest).not.toContain('[DONE]');
  });
});
