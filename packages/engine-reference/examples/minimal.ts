import { createChatHandler, createModelRegistry, staticApiKeys } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';

const registry = createModelRegistry({ engine: createReferenceEngine() });
// Slow it down for demos, so streaming is visible:
const demo = createReferenceEngine({ firstTokenDelayMs: 300, tokensPerSecond: 40 });
const handler = createChatHandler({ registry, testEngine: demo, accessControl: staticApiKeys([process.env.QUANTUM_CHAT_API_KEY!]) });
