import type { ChatEngine } from '@quantum-chat/core';
import { loadCases, runServerConformance } from '@quantum-chat/conformance';
import { startHost } from './helpers/start-host.js';
import { afterAll, beforeAll, expect } from 'vitest';
import { createLlamaEngine, type LlamaEngine } from '../src/index.js';
import { tinyModelFile } from './helpers/tiny-model.js';

let model: Awaited<ReturnType<typeof tinyModelFile>>;
let engine: LlamaEngine;

beforeAll(async () => {
  model = await tinyModelFile();
  engine = createLlamaEngine({ modelPath: model.path, contextSize: 512, threads: 1 });
  await engine.ready;
});

afterAll(async () => {
  await engine?.dispose();
  await model?.remove();
});

/**
 * The shared cases whose answer does not come from an engine (auth, validation, routing,
 * limits, models): they must come out the same, byte for byte, with the llama engine in the
 * handler, and never reach it. The cases that replay scripted engine events test the text of
 * an answer, which a real model does not script.
 */
const engineFreeCases = loadCases().filter((testCase) => testCase.engineEvents === undefined);

runServerConformance(
  'fastify + llama engine',
  async (handlerOptions) => {
    let calls = 0;
    const counted: ChatEngine = {
      ...engine,
      generate(request, context) {
        calls++;
        return engine.generate(request, context);
      },
    };
    const host = await startHost('fastify', { ...handlerOptions, engine: counted });
    return {
      baseUrl: host.baseUrl,
      close: async () => {
        await host.close();
        expect(calls, 'the llama engine was not asked').toBe(0);
      },
    };
  },
  { cases: engineFreeCases },
);
