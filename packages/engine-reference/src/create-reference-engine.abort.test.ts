import { createWatchedEngineContext } from '@quantum-chat/conformance';
import { describe, expect, it } from 'vitest';
import { collect, createRequest } from '../test/request-fixtures.js';
import { createReferenceEngine } from './create-reference-engine.js';

describe('createReferenceEngine and its run’s abort', () => {
  it('should answer without reading the signal when nothing aborts it', async () => {
    const context = createWatchedEngineContext();
    const events = await collect(createReferenceEngine().generate(createRequest(), context));
    expect(events.at(-1)).toMatchObject({ type: 'finish' });
    expect(context.signalReads).toBe(0);
  });

  it('should end a paced answer waiting for its first token with the abort reason, through onAbort', async () => {
    const context = createWatchedEngineContext();
    const iterator = createReferenceEngine({ firstTokenDelayMs: 60_000 }).generate(createRequest(), context)[Symbol.asyncIterator]();
    const pending = iterator.next();
    await new Promise((resolve) => setImmediate(resolve));
    const reason = new Error('client left');
    context.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});
