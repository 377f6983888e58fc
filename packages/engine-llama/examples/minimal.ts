import { createChatHandler, createModelRegistry, staticApiKeys } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { createLlamaEngine } from '@quantum-chat/engine-llama';

// One GGUF file, loaded once, answering two of the models; the others stay on the reference engine.
const local = createLlamaEngine({ modelPath: './models/qwen2.5-0.5b-instruct-q4_k_m.gguf', parallel: 2 });

export const handler = createChatHandler({
  accessControl: staticApiKeys([process.env.QUANTUM_CHAT_API_KEY!]),
  registry: createModelRegistry({
    engine: createReferenceEngine(),
    engines: { 'quantum-flash': local, 'quantum-pro': local },
  }),
});

// Loading goes on in the background; requests meanwhile wait for it. `ready` says what was loaded.
local.ready.then(
  (model) => console.log(`${model.file}: ${model.architecture} on ${model.gpu === false ? 'CPU' : model.gpu}, loaded in ${model.loadMs} ms`),
  (error: Error) => console.error(error.message),
);
