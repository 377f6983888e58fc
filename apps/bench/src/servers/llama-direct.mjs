// The baseline of the llama suite: node-llama-cpp called directly, with the settings the server
// gives its engine (one context sequence, the same context size and threads, greedy sampling),
// answering the same chat history. `run` generates answers for `seconds` and reports tokens and time.
import { getLlama, LlamaChat, LlamaLogLevel, resolveChatWrapper } from 'node-llama-cpp';
import { serveParent } from '../lib/child.mjs';

const [modelPath, contextSize, threads] = process.argv.slice(2);
const llama = await getLlama({ gpu: 'auto', build: 'never', logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath });
const context = await model.createContext({ contextSize: Number(contextSize), sequences: 1, threads: Number(threads) });
const sequence = context.getSequence();
const chatWrapper = resolveChatWrapper(model);

async function answer(prompt, maxTokens) {
  const chat = new LlamaChat({ contextSequence: sequence, chatWrapper });
  const before = sequence.tokenMeter.usedOutputTokens;
  await chat.generateResponse([{ type: 'user', text: prompt }, { type: 'model', response: [] }], { maxTokens, temperature: 0, onResponseChunk: () => undefined });
  chat.dispose({ disposeSequence: false });
  return sequence.tokenMeter.usedOutputTokens - before;
}

serveParent(
  {
    async run({ seconds, prompt, maxTokens }) {
      let tokens = 0;
      const started = performance.now();
      while (performance.now() - started < seconds * 1000) tokens += await answer(prompt, maxTokens);
      return { tokens, ms: performance.now() - started };
    },
  },
  { gpu: llama.gpu },
);
