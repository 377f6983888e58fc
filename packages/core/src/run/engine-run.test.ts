import { describe, expect, it } from 'vitest';
import { ClientClosedError, connectionFromSignal } from '../contract/client-connection.js';
import type { ChatEngineContext, ChatEngineEvent } from '../engine/chat-engine.js';
import { EngineRun } from './engine-run.js';
import type { RunSettings } from './run-settings.js';

/** An engine run whose engine hands its context out and waits; the client and shutdown are signals the test aborts. */
function startRun() {
  const client = new AbortController();
  const shutdown = new AbortController();
  let context!: ChatEngineContext;
  const settings = {
    engine: {
      async *generate(_request: unknown, given: ChatEngineContext): AsyncGenerator<ChatEngineEvent> {
        context = given;
        yield { type: 'content', text: 'hi' };
      },
    },
    request: { model: 'm', messages: [] },
    requestId: 'req_1',
    client: connectionFromSignal(client.signal, () => undefined),
    shutdownSignal: shutdown.signal,
  } as unknown as RunSettings;
  const run = new EngineRun(settings, false);
  return { run, client, shutdown, context: async () => (await run.iterator.next(), context) };
}

describe('EngineRun abort', () => {
  it('should call onAbort listeners once when the client leaves, with the reason on the signal', async () => {
    const { client, context } = startRun();
    const engineContext = await context();
    const calls: unknown[] = [];
    engineContext.onAbort!(() => calls.push(engineContext.signal.reason));
    expect(engineContext.aborted).toBe(false);
    client.abort();
    client.abort();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toBeInstanceOf(ClientClosedError);
    expect(engineContext.aborted).toBe(true);
    expect(engineContext.signal.aborted).toBe(true);
  });

  it('should not call a listener removed with offAbort', async () => {
    const { client, context } = startRun();
    const engineContext = await context();
    let called = 0;
    const listener = () => called++;
    engineContext.onAbort!(listener);
    engineContext.offAbort!(listener);
    client.abort();
    expect(called).toBe(0);
    expect(engineContext.aborted).toBe(true);
  });

  it('should call a listener at once when the client had already left', async () => {
    const { client, context } = startRun();
    const engineContext = await context();
    client.abort();
    expect(engineContext.aborted).toBe(true);
    let called = 0;
    engineContext.onAbort!(() => called++);
    expect(called).toBe(1);
    expect(engineContext.signal.reason).toBeInstanceOf(ClientClosedError);
  });

  it('should abort with the shutdown reason', async () => {
    const { shutdown, context } = startRun();
    const engineContext = await context();
    const reasons: unknown[] = [];
    engineContext.onAbort!(() => reasons.push(engineContext.signal.reason));
    const reason = new Error('shutting down');
    shutdown.abort(reason);
    expect(reasons).toEqual([reason]);
  });

  it('should abort on a stop before the finish, and not on a stop after it', async () => {
    const stoppedEarly = startRun();
    const early = await stoppedEarly.context();
    const reason = new Error('timed out');
    const reasons: unknown[] = [];
    early.onAbort!(() => reasons.push(early.signal.reason));
    stoppedEarly.run.stop(reason);
    expect(reasons).toEqual([reason]);

    const finished = startRun();
    const late = await finished.context();
    let called = 0;
    late.onAbort!(() => called++);
    finished.run.markFinished();
    finished.run.stop();
    finished.client.abort();
    expect(called).toBe(0);
    expect(late.aborted).toBe(false);
    expect(late.signal.aborted).toBe(false);
  });

  it('should give a signal read after an early stop the stop reason, without anything watching before', async () => {
    const { run, context } = startRun();
    const engineContext = await context();
    const reason = new Error('stopped');
    run.stop(reason);
    expect(engineContext.aborted).toBe(true);
    expect(engineContext.signal.reason).toBe(reason);
  });
});
