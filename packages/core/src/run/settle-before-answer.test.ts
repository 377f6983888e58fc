import { describe, expect, it } from 'vitest';
import type { AccessControl, AdmissionOutcome } from '../auth/access-control.js';
import { generateApiKey } from '../auth/parse-api-key.js';
import { insecureAcceptAnyApiKey } from '../auth/static-api-keys.js';
import type { ChatEngine, ChatEngineEvent } from '../engine/chat-engine.js';
import { eventsInBatches } from '../engine/events-in-batches.js';
import { QuantumChatError } from '../errors/quantum-chat-error.js';
import { createChatHandler } from '../http/create-chat-handler.js';

const key = generateApiKey('live');
const answer: ChatEngineEvent[] = [
  { type: 'content', text: 'Hello' },
  { type: 'finish', reason: 'stop', usage: { promptTokens: 5, completionTokens: 1, reasoningTokens: 0 } },
];
const oneAtATime: ChatEngine = {
  async *generate() {
    for (const event of answer) yield event;
  },
};
/** The same answer in one batch: the finish arrives with the content, and is held all the same. */
const inOneBatch: ChatEngine = {
  generate: () =>
    eventsInBatches(
      (async function* () {
        yield answer;
      })(),
    ),
};

/** An access control whose settle resolves (or rejects) when the test says: a durable usage row. */
function gatedAccessControl(settleBeforeAnswer: boolean | undefined) {
  const settles: { outcome: AdmissionOutcome; commit(): void; fail(error: unknown): void }[] = [];
  const accepting = insecureAcceptAnyApiKey();
  const accessControl: AccessControl = {
    authenticate: (parsed) => accepting.authenticate(parsed),
    async admit() {
      return {
        headers: {},
        ...(settleBeforeAnswer !== undefined ? { settleBeforeAnswer } : {}),
        settle: (outcome) =>
          new Promise<void>((resolve, reject) => {
            settles.push({ outcome, commit: resolve, fail: reject });
          }),
      };
    },
  };
  return { accessControl, settles };
}

const post = (stream: boolean) =>
  new Request('http://127.0.0.1/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content: 'hi' }], stream, stream_options: stream ? { include_usage: true } : undefined }),
  });

const turns = async (count = 10) => {
  for (let index = 0; index < count; index++) await new Promise((resolve) => setTimeout(resolve, 0));
};

/** Reads a body until it ends or nothing more comes for a few turns (a pending read is kept for the next call). */
function quietReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  return async (): Promise<{ text: string; done: boolean }> => {
    let text = '';
    for (;;) {
      pending ??= reader.read();
      const step = await Promise.race([pending, turns().then(() => undefined)]);
      if (step === undefined) return { text, done: false };
      pending = undefined;
      if (step.done) return { text, done: true };
      text += decoder.decode(step.value, { stream: true });
    }
  };
}

describe.each([
  ['one event at a time', oneAtATime],
  ['in one batch', inOneBatch],
])('an answer acknowledged only once its settle resolved (settleBeforeAnswer), the engine giving its events %s', (_how, engine) => {
  it('should hold a JSON answer until the settle resolves', async () => {
    const { accessControl, settles } = gatedAccessControl(true);
    const handler = createChatHandler({ accessControl, engine });
    let answered = false;
    const response = handler.fetch(post(false)).then((value) => ((answered = true), value));
    await turns();
    expect(settles).toHaveLength(1);
    expect(settles[0]!.outcome).toMatchObject({ status: 200, interrupted: false, completionTokens: 1 });
    expect(answered).toBe(false);
    settles[0]!.commit();
    expect((await response).status).toBe(200);
    expect(((await (await response).json()) as { usage: { completion_tokens: number } }).usage.completion_tokens).toBe(1);
  });

  it('should turn a JSON answer whose settle failed into that error', async () => {
    const { accessControl, settles } = gatedAccessControl(true);
    const handler = createChatHandler({ accessControl, engine });
    const response = handler.fetch(post(false));
    await turns();
    settles[0]!.fail(new QuantumChatError('store_unavailable', 'The usage could not be recorded.'));
    const failed = await response;
    expect(failed.status).toBe(503);
    expect(((await failed.json()) as { error: { code: string } }).error.code).toBe('store_unavailable');
  });

  it("should hold a stream's finish, usage and [DONE] frames until the settle resolves", async () => {
    const { accessControl, settles } = gatedAccessControl(true);
    const handler = createChatHandler({ accessControl, engine });
    const response = await handler.fetch(post(true));
    const read = quietReader(response.body!);
    const before = await read();
    expect(before.done).toBe(false);
    expect(before.text).toContain('Hello');
    expect(before.text).not.toContain('[DONE]');
    expect(before.text).not.toContain('"usage"');
    settles[0]!.commit();
    const after = await read();
    expect(after.done).toBe(true);
    expect(after.text).toContain('"usage"');
    expect(after.text).toContain('data: [DONE]');
  });

  it('should end a stream whose settle failed with an error frame, without [DONE]', async () => {
    const { accessControl, settles } = gatedAccessControl(true);
    const handler = createChatHandler({ accessControl, engine });
    const response = await handler.fetch(post(true));
    const read = quietReader(response.body!);
    await read();
    settles[0]!.fail(new QuantumChatError('store_unavailable', 'The usage could not be recorded.'));
    const after = await read();
    expect(after.done).toBe(true);
    expect(after.text).toContain('store_unavailable');
    expect(after.text).not.toContain('[DONE]');
  });

  it('should not wait for a settle without settleBeforeAnswer (as before)', async () => {
    const { accessControl, settles } = gatedAccessControl(undefined);
    const handler = createChatHandler({ accessControl, engine });
    const json = await handler.fetch(post(false));
    expect(json.status).toBe(200);
    const stream = await handler.fetch(post(true));
    expect(await stream.text()).toContain('data: [DONE]');
    expect(settles).toHaveLength(2);
  });
});
