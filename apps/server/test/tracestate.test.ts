// A client's W3C `tracestate` reaches the upstream only with traces on, and only with the
// trace it belongs to (the client's valid `traceparent`, which we continue); a stand-in
// upstream records what it got. Over real HTTP against the ready server.
import { randomBytes } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { adminTokens } from './admin-fixture-runner.js';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import { startInProcessServer, type InProcessServer } from './in-process-server.js';
import { startOtlpReceiver } from './otlp-receiver.js';

const clientState = 'vendor1=opaque-value,rojo=00f067aa0ba902b7';

async function startWithUpstream(env: Record<string, string>): Promise<{ server: InProcessServer; upstream: FakeUpstream; liveKey: string }> {
  const upstream = await startFakeUpstream('Hello from upstream.');
  onTestFinished(() => upstream.close());
  const server = await startInProcessServer({ adminTokens, models: { 'quantum-flash': { engine: 'upstream', baseUrl: upstream.baseUrl, model: 'llama3.2' } } }, env);
  onTestFinished(() => server.close());
  const created = await fetch(`${server.origin}/admin/v1/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminTokens[0]!.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ organisation: 'default', kind: 'live' }),
  });
  return { server, upstream, liveKey: ((await created.json()) as { secret: string }).secret };
}

/** One chat request with these trace headers; what the upstream received for it. */
async function relayed(setup: { server: InProcessServer; upstream: FakeUpstream; liveKey: string }, headers: Record<string, string>) {
  const before = setup.upstream.requests.length;
  const response = await fetch(`${setup.server.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${setup.liveKey}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'quantum-flash', messages: [{ role: 'user', content: 'Say hello.' }] }),
  });
  expect(response.status).toBe(200);
  await response.json();
  expect(setup.upstream.requests).toHaveLength(before + 1);
  return setup.upstream.requests.at(-1)!;
}

describe('a client\'s tracestate and the upstream', () => {
  it('with traces on: forwarded with the client\'s trace, never on its own or with a traceparent we did not continue', async () => {
    const receiver = await startOtlpReceiver();
    onTestFinished(() => receiver.close());
    const setup = await startWithUpstream({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
    const traceId = randomBytes(16).toString('hex');
    const parent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;

    const continued = await relayed(setup, { traceparent: parent, tracestate: clientState });
    expect(continued.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect(continued.tracestate).toBe(clientState);

    // A trace the client does not sample is still its trace: continued, unsampled, with its state.
    const unsampledParent = `00-${traceId}-${randomBytes(8).toString('hex')}-00`;
    const unsampled = await relayed(setup, { traceparent: unsampledParent, tracestate: clientState });
    expect(unsampled.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-00$`));
    expect(unsampled.tracestate).toBe(clientState);

    const alone = await relayed(setup, { tracestate: clientState });
    expect(alone.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    expect(alone.tracestate).toBeUndefined();

    const brokenParent = await relayed(setup, { traceparent: `00-${'0'.repeat(32)}-${randomBytes(8).toString('hex')}-01`, tracestate: clientState });
    expect(brokenParent.traceparent).not.toContain('0'.repeat(32));
    expect(brokenParent.tracestate).toBeUndefined();

    // Not a list-member the W3C format allows: not relayed as it came.
    const junk = await relayed(setup, { traceparent: parent, tracestate: `ok=1,${'x'.repeat(300)}` });
    expect(junk.tracestate ?? '').not.toContain('x'.repeat(300));
  }, 60_000);

  it('with traces off: neither traceparent nor tracestate reaches the upstream', async () => {
    const setup = await startWithUpstream({});
    const sent = await relayed(setup, { traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`, tracestate: clientState });
    expect(sent.traceparent).toBeUndefined();
    expect(sent.tracestate).toBeUndefined();
  });
});
