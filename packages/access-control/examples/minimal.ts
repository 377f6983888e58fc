import { createChatHandler } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { createAccessControl, createLimiter, createSqliteKeyStore, issueApiKey } from '@quantum-chat/access-control';

const store = createSqliteKeyStore('.data/quantum-chat.sqlite');
await store.createOrganisation({ name: 'acme', plan: 'free' });
const { key } = await issueApiKey(store, { organisation: 'acme', kind: 'live' }); // show it once

const accessControl = createAccessControl({
  store,
  limiter: createLimiter({ redis: process.env.REDIS_URL }), // omit `redis` for in-memory limits
});
const handler = createChatHandler({ engine: createReferenceEngine(), testEngine: createReferenceEngine(), accessControl });
