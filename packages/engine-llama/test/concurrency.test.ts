import { QuantumChatError } from '@quantum-chat/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlamaEngine, type LlamaEngine } from '../src/index.js';
import { collect, engineRequest } from './helpers/engine-request.js';
import { tinyModelFile } from './helpers/tiny-model.js';

let model: Awaited<ReturnType<typeof tinyModelFile>>;
/** One sequence, one waiting place: the third request at once is one too many. */
let engine: LlamaEngine;

beforeAll(async () => {
  model = await tinyModelFile();
  engine = createLlamaEngine({ modelPath: model.path, contextSize: 1024, parallel: 1, maxQueue: 1, threads: 1 });
  await engine.ready;
});

afterAll(async () => {
  await engine?.dispose();
  await model?.remove();
});

/** A long answer started and held after its first event; `abort` ends it. */
async function startHeldAnswer() {
  const controller = new AbortController();
  const iterator = engine.generate(engineRequest({ maxTokens: 900, temperature: 1, seed: 3 }), { signal: controller.signal, requestId: 'held' })[Symbol.asyncIterator]();
  const first = await iterator.next();
  return { controller, iterator, first };
}

describe('context sequences and the bounded queue', () => {
  it('aborting mid-stream stops the generation and frees the sequence at once', async () => {
    const held = await startHeldAnswer();
    expect(held.first.done).toBe(false);
    held.controller.abort(new Error('client left'));
    // What was generated before the abort may still be read; then the abort reason, never a finish.
    const after: unknown[] = [];
    const failure = await (async () => {
      for (;;) {
        const next = await held.iterator.next();
        if (next.done) return undefined;
        after.push(next.value);
      }
    })().catch((error: unknown) => error);
    expect(failure).toMatchObject({ message: 'client left' });
    expect(after.some((event) => (event as { type: string }).type === 'finish')).toBe(false);
    // The sequence is free: with no queue in front, the next request answers.
    const events = await collect(engine, engineRequest({ maxTokens: 4 }));
    expect(events.at(-1)).toMatchObject({ type: 'finish' });
  });

  it('queues one request beyond the sequence, refuses the next with 503 overloaded and retry-after', async () => {
    const held = await startHeldAnswer();
    const queued = collect(engine, engineRequest({ maxTokens: 4 }));
    const refused = await collect(engine, engineRequest({ maxTokens: 4 })).catch((error: unknown) => error);
    expect(QuantumChatError.isInstance(refused)).toBe(true);
    expect(refused).toMatchObject({ code: 'overloaded', status: 503, headers: { 'retry-after': '1' } });
    held.controller.abort(new Error('client left'));
    await held.iterator.next().catch(() => undefined);
    await held.iterator.return?.(undefined);
    const events = await queued;
    expect(events.at(-1)).toMatchObject({ type: 'finish' });
  });

  it('a queued request whose client leaves gives up its place', async () => {
    const held = await startHeldAnswer();
    const leaving = new AbortController();
    const queued = collect(engine, engineRequest({ maxTokens: 4 }), leaving.signal);
    leaving.abort(new Error('queued client left'));
    await expect(queued).rejects.toThrow('queued client left');
    // Its place is free again: another request may wait.
    const next = collect(engine, engineRequest({ maxTokens: 4 }));
    held.controller.abort(new Error('client left'));
    await held.iterator.return?.(undefined);
    expect((await next).at(-1)).toMatchObject({ type: 'finish' });
  });

  it('reading a stream to its end, then stopping, leaves the sequence idle', async () => {
    for (let round = 0; round < 3; round++) {
      const events = await collect(engine, engineRequest({ maxTokens: 3, messages: [{ role: 'user', content: `round ${round}` }] }));
      expect(events.at(-1)).toMatchObject({ type: 'finish' });
    }
  });
});
