import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import type { AccessControl } from '../auth/access-control.js';
import { generateApiKey } from '../auth/parse-api-key.js';
import { connectionFromSignal } from '../contract/client-connection.js';
import type { ChatEngine } from '../engine/chat-engine.js';
import { createChatHandler } from './create-chat-handler.js';

setFlagsFromString('--allow-natives-syntax');
/** V8's own check that two objects share one hidden class (its `%HaveSameMap`). */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- V8's natives syntax is reachable only through code compiled at run time.
const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

const key = generateApiKey('live');
const engine: ChatEngine = {
  async *generate() {
    yield { type: 'content', text: 'Hello' };
    yield { type: 'finish', reason: 'stop', usage: { promptTokens: 5, completionTokens: 1, reasoningTokens: 0 } };
  },
};
/** Admits everything with rate-limit headers, as the server's access control does. */
const accessControl: AccessControl = {
  authenticate: async () => ({ keyId: 'qc_live_…0000', organisationId: 'acme', plan: 'elite', kind: 'live' }),
  admit: async () => ({ headers: { 'x-ratelimit-limit-requests': '60', 'x-ratelimit-remaining-requests': '59' }, settle: () => undefined }),
};
const chat = { model: 'quantum-flash', messages: [{ role: 'user', content: 'hi' }] };
const responses = { model: 'quantum-flash', input: 'hi', store: false };

/**
 * Each kind of answer's headers, over many requests: every request's must share one hidden class.
 * Why: on Node 20, a literal that starts with a spread and goes on (`{ ...shared, ...headers }`)
 * gets a hidden class of its own each time once its site is warm, which costs about a
 * microsecond, leaves a map for the old generation, and sends every reader megamorphic.
 */
describe('response headers', () => {
  const kinds = {
    'a chat completion': ['/chat/completions', chat],
    'a chat stream': ['/chat/completions', { ...chat, stream: true }],
    'a resumable chat stream': ['/chat/completions', { ...chat, stream: true, stream_options: { resumable: true } }],
    'a response': ['/responses', responses],
    'a streamed response': ['/responses', { ...responses, stream: true }],
    'an error': ['/chat/completions', { ...chat, temperature: 9 }],
  } as const;

  for (const [kind, [path, body]] of Object.entries(kinds)) {
    it(`should share one hidden class across requests for ${kind}`, async () => {
      const handler = createChatHandler({ accessControl, engine });
      const bytes = new TextEncoder().encode(JSON.stringify(body));
      const headers: object[] = [];
      // Past the first few, V8 builds such objects through its fast paths, where the shape goes wrong.
      for (let index = 0; index < 40; index++) {
        const response = await handler.handle({
          method: 'POST',
          path,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: { kind: 'bytes', bytes },
          connection: connectionFromSignal(new AbortController().signal, () => undefined),
        });
        expect(response.status).toBe(kind === 'an error' ? 400 : 200);
        if ('events' in response) for await (const _frame of response.events);
        headers.push(response.headers);
      }
      const last = headers.at(-1)!;
      expect(headers.slice(-30).filter((each) => !sameHiddenClass(each, last))).toHaveLength(0);
    });
  }
});
