import { mkdirSync } from 'node:fs';
import { createChatHandler } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { createAccessControl, createLimiter, createSqliteStore, issueApiKey } from '@quantum-chat/access-control';

mkdirSync('.data', { recursive: true, mode: 0o700 }); // the store's file goes in here
const store = createSqliteStore('.data/quantum-chat.sqlite');
// The store outlives this process: create the organisation on the first run only.
if ((await store.getOrganisation('acme')) === undefined) await store.createOrganisation({ name: 'acme', plan: 'free' });
const { key } = await issueApiKey(store, { organisation: 'acme', kind: 'live' }); // show it once

const accessControl = createAccessControl({
  store,
  limiter: createLimiter({ redis: process.env.REDIS_URL }), // omit `redis` for in-memory limits
});
const handler = createChatHandler({ engine: createReferenceEngine(), testEngine: createReferenceEngine(), accessControl });

const response = await handler.fetch(
  new Request('http://localhost/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content: 'Hello' }] }),
  }),
);
console.log(response.status, response.headers.get('x-ratelimit-remaining-requests')); // 200 '59'
await response.text();
await store.close();
