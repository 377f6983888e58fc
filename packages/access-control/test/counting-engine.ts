import { QuantumChatError, type ChatEngine, type ChatEngineRequest } from '@quantum-chat/core';

/** What an engine produced for one request, by its own count. */
export interface ProducedTokens {
  promptTokens: number;
  completionTokens: number;
  finished: boolean;
}

const countTokens = (text: string) => Math.ceil(text.length / 4);

function lastUserText(request: ChatEngineRequest): string {
  const message = [...request.messages].reverse().find((candidate) => candidate.role === 'user');
  return message && typeof message.content === 'string' ? message.content : '';
}

/** The prompt's tokens as the engine counts them (the handler settles an early end with the same). */
async function promptTokensOf(engine: ChatEngine, request: ChatEngineRequest): Promise<number> {
  const measure = engine.measurePrompt?.(request);
  return measure === undefined ? 0 : await (measure.count?.() ?? measure.bound);
}

/**
 * Wraps an engine and keeps, per request, the tokens it really produced: the finish usage, or
 * for a request that ended early the tokens of the text handed out so far (the same count the
 * handler settles with). `[fail-at-start]` in the last user message fails before the first
 * event, `[fail-after-N]` after N events.
 */
export function createCountingEngine(inner: ChatEngine): { engine: ChatEngine; produced: ProducedTokens[] } {
  const produced: ProducedTokens[] = [];
  const engine: ChatEngine = {
    async *generate(request, context) {
      const record: ProducedTokens = { promptTokens: await promptTokensOf(inner, request), completionTokens: 0, finished: false };
      produced.push(record);
      const text = lastUserText(request);
      if (text.includes('[fail-at-start]')) throw new QuantumChatError('upstream_error', 'The test engine failed at the start.');
      const failAfter = /\[fail-after-(\d+)\]/.exec(text)?.[1];
      let generated = '';
      let count = 0;
      for await (const event of inner.generate(request, context)) {
        if (failAfter !== undefined && count === Number(failAfter)) throw new QuantumChatError('upstream_error', 'The test engine failed mid-way.');
        if (event.type === 'finish') {
          record.promptTokens = event.usage.promptTokens;
          record.completionTokens = event.usage.completionTokens;
          record.finished = true;
        } else {
          generated += event.type === 'tool-call' ? (event.name ?? '') + event.argumentsDelta : event.text;
          record.completionTokens = countTokens(generated);
        }
        count++;
        yield event;
      }
    },
    measurePrompt: (request) => inner.measurePrompt?.(request) ?? { bound: 0 },
    countTokens,
  };
  return { engine, produced };
}
