import { describe, expect, it } from 'vitest';
import { collect, createRequest } from '../test/request-fixtures.js';
import { createReferenceEngine } from './create-reference-engine.js';

/** The core's shape of context: `onAbort`, `offAbort` and `aborted`, and a `signal` made only when read (counted). */
function watchedContext() {
  const controller = new AbortController();
  const listeners = new Set<() => void>();
  const context = {
    requestId: 'req_abort',
    signalReads: 0,
    get signal() {
      context.signalReads++;
      return controller.signal;
    },
    get aborted() {
      return controller.signal.aborted;
    },
    onAbort: (listener: () => void) => void listeners.add(listener),
    offAbort: (listener: () => void) => void listeners.delete(listener),
    abort(reason: unknown) {
      controller.abort(reason);
      for (const listener of [...listeners]) listener();
    },
  };
  return context;
}

describe('createReferenceEngine and its run’s abort', () => {
  it('should answer without reading the signal when nothing aborts it', async () => {
    const context = watchedContext();
    const events = await collect(createReferenceEngine().generate(createRequest(), context));
    expect(events.at(-1)).toMatchObject({ type: 'finish' });
    expect(context.signalReads).toBe(0);
  });

  it('should end a paced answer waiting for its first token with the abort reason, through onAbort', async () => {
    const context = watchedContext();
    const iterator = createReferenceEngine({ firstTokenDelayMs: 60_000 }).generate(createRequest(), context)[Symbol.asyncIterator]();
    const pending = iterator.next();
    await new Promise((resolve) => setImmediate(resolve));
    const reason = new Error('client left');
    context.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});
