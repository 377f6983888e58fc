import { createChatHandler, generateApiKey, staticApiKeys, type ChatEngine } from '@quantum-chat/core';

// An engine is any object with `generate`: it yields reasoning, content or tool-call events, then `finish`.
const shout: ChatEngine = {
  async *generate(request, { signal }) {
    const last = request.messages.at(-1);
    const text = last?.role === 'user' ? last.content.toUpperCase() : 'SAY SOMETHING.';
    if (request.reasoning) yield { type: 'reasoning', text: 'The user wants it loud.' };
    if (signal.aborted) return;
    yield { type: 'content', text };
    yield { type: 'finish', reason: 'stop', usage: { promptTokens: 1, completionTokens: 1, reasoningTokens: 0 } };
  },
};

// Who may call: the keys you list (a fresh test key here). There is no open default.
const apiKey = generateApiKey('test');
const handler = createChatHandler({ engine: shout, accessControl: staticApiKeys([apiKey]) });

// The fetch face: for Hono, Bun, Deno, workers and in-process tests. Node hosts use `handler.handle`.
const response = await handler.fetch(
  new Request('http://localhost/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'quantum-flash', messages: [{ role: 'user', content: 'hello' }] }),
  }),
);
console.log(response.status, await response.json()); // 200 { object: 'chat.completion', choices: [{ message: { content: 'HELLO' } }], … }
