import { errorEnvelopeSchema } from '@quantum-chat/core/schemas';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startSplitRequest } from './raw-request.js';
import { startServerProcess } from './server-process.js';
import { decodeSse, openStream } from './sse.js';

const question = { messages: [{ role: 'user', content: 'Tell me about the history of quantum computing in detail.' }] };
/** Slow enough that streams are still open when the signal arrives. */
const pacing = { reference: { tokensPerSecond: 20 } };

function envelopeOf(rawResponse: string): unknown {
  return JSON.parse(rawResponse.slice(rawResponse.indexOf('\r\n\r\n') + 4));
}

describe('quantum-chat serve on SIGTERM', () => {
  it('should let open streams finish within the grace period, refuse new requests with 503 shutting_down, and exit 0', async () => {
    // A grace period longer than the test's timeout: exiting at all proves it did not wait it out.
    const server = await startServerProcess({ ...pacing, shutdownGraceMs: 600_000 });
    onTestFinished(() => server.dispose());
    const testKey = server.firstStartKey!;

    const stream = await openStream(`${server.origin}/v1/chat/completions`, testKey, { model: 'quantum-lite', ...question, max_tokens: 12 });
    expect(stream.status).toBe(200);
    await stream.firstBytes;
    const health = await startSplitRequest(server.origin, 'GET', '/healthz');
    const chat = await startSplitRequest(
      server.origin,
      'POST',
      '/v1/chat/completions',
      { authorization: `Bearer ${testKey}`, 'content-type': 'application/json' },
      JSON.stringify({ model: 'quantum-lite', ...question }),
    );
    expect(stream.text()).not.toContain('[DONE]');

    server.child.kill('SIGTERM');
    await server.waitForStdout(/shutting down/);

    const healthResponse = await health.finish();
    expect(healthResponse).toMatch(/^HTTP\/1\.1 503 /);
    expect(errorEnvelopeSchema.parse(envelopeOf(healthResponse)).error).toMatchObject({ type: 'server_error', code: 'shutting_down' });
    const chatResponse = await chat.finish();
    expect(chatResponse).toMatch(/^HTTP\/1\.1 503 /);
    expect(errorEnvelopeSchema.parse(envelopeOf(chatResponse)).error.code).toBe('shutting_down');
    // The listening socket is closed: no new connections.
    await expect(fetch(`${server.origin}/healthz`)).rejects.toThrow();

    const body = await stream.body;
    expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(body).not.toContain('event: error');
    // It exits once the stream is done, without waiting out the grace period.
    expect(await server.exited).toBe(0);
  }, 45_000);

  it('should end streams still open after the grace period with a shutting_down error frame and no [DONE], and exit 0', async () => {
    const server = await startServerProcess({ ...pacing, shutdownGraceMs: 300 });
    onTestFinished(() => server.dispose());
    const testKey = server.firstStartKey!;

    const buffered = fetch(`${server.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${testKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'quantum-lite', ...question }),
    });
    const quantum = await openStream(`${server.origin}/v1/chat/completions`, testKey, { model: 'quantum-reasoner', ...question });
    const openai = await openStream(`${server.origin}/compat/v1/chat/completions`, testKey, { model: 'quantum-reasoner', ...question });
    await Promise.all([quantum.firstBytes, openai.firstBytes]);

    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    const [quantumBody, openaiBody] = await Promise.all([quantum.body, openai.body]);
    // The streams were given the grace period (a timer never fires early, so this lower bound
    // holds however busy the machine is), then cut: an error frame, no [DONE] (below).
    expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(250);

    // The spec's format: a named error event, then the end, without [DONE].
    expect(quantumBody).not.toContain('[DONE]');
    const quantumLast = decodeSse(quantumBody).at(-1)!;
    expect(quantumLast.event).toBe('error');
    expect(errorEnvelopeSchema.parse(JSON.parse(quantumLast.data)).error).toMatchObject({ type: 'server_error', code: 'shutting_down' });
    expect(quantumBody.endsWith('\n\n')).toBe(true);

    // The OpenAI format: the same error as an unnamed data line.
    expect(openaiBody).not.toContain('[DONE]');
    expect(openaiBody).not.toMatch(/^event:/m);
    const openaiLast = decodeSse(openaiBody).at(-1)!;
    expect(openaiLast.event).toBeUndefined();
    expect(errorEnvelopeSchema.parse(JSON.parse(openaiLast.data)).error.code).toBe('shutting_down');

    // A non-streaming request still running at the end of the grace gets 503 shutting_down.
    const response = await buffered;
    expect(response.status).toBe(503);
    expect(errorEnvelopeSchema.parse(await response.json()).error.code).toBe('shutting_down');

    expect(await server.exited).toBe(0);
  }, 45_000);
});
