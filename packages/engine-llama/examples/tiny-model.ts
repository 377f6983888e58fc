import { createLlamaEngine } from '@quantum-chat/engine-llama';
import { writeTinyGguf } from '@quantum-chat/engine-llama/testing';

// A real llama.cpp model of about 80 KB (random weights, a byte-level vocabulary, a ChatML
// template), written offline: what this package's own tests run on.
const modelPath = await writeTinyGguf('./tiny.gguf');
const engine = createLlamaEngine({ modelPath, threads: 1 });
await engine.ready;
for await (const event of engine.generate(
  {
    model: 'quantum-flash',
    messages: [{ role: 'user', content: 'Hello!' }],
    tools: [],
    toolChoice: 'none',
    parallelToolCalls: true,
    temperature: 0,
    maxTokens: 16,
    reasoning: false,
  },
  { signal: AbortSignal.timeout(60_000), requestId: 'example' },
)) {
  if (event.type === 'finish') console.log(event.usage);
}
await engine.dispose();
