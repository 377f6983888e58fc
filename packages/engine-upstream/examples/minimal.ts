import { createChatHandler, createModelRegistry, staticApiKeys } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { createUpstreamEngine } from '@quantum-chat/engine-upstream';

const handler = createChatHandler({
  accessControl: staticApiKeys([process.env.QUANTUM_CHAT_API_KEY!]),
  registry: createModelRegistry({
    engine: createReferenceEngine(),
    engines: {
      'quantum-flash': createUpstreamEngine({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2' }),
      'quantum-reasoner': createUpstreamEngine({ baseUrl: 'https://api.deepseek.com/v1', model: 'deepseek-reasoner', apiKey: process.env.DEEPSEEK_API_KEY }),
    },
  }),
});
