import { createSseDecoder } from '@quantum-chat/core/sse';
import { createDialectReader, createToolCallAccumulator, type WireUsage } from '@quantum-chat/core/dialect';
import { runClientConformance, type CollectedCompletion, type CollectedUsage } from '../src/index.js';

// A tiny reader built only on the core's codec (createSseDecoder, createDialectReader): every
// stream fixture, ours and the dialects, is read by the core itself.

function toUsage(usage: WireUsage): CollectedUsage | undefined {
  if (typeof usage.prompt_tokens !== 'number' || typeof usage.completion_tokens !== 'number') return undefined;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    ...(typeof usage.total_tokens === 'number' ? { totalTokens: usage.total_tokens } : {}),
    ...(typeof reasoning === 'number' ? { reasoningTokens: reasoning } : {}),
  };
}

class StreamFailure extends Error {
  constructor(readonly collected: CollectedCompletion) {
    super('the stream failed');
  }
}

async function collect({ baseUrl, apiKey, request }: { baseUrl: string; apiKey: string; request: Record<string, unknown> }): Promise<CollectedCompletion> {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ ...request, stream: true }),
  });
  if (!response.ok || response.body === null) return { error: { status: response.status } };
  const toolCalls = createToolCallAccumulator();
  let reasoning = '';
  let content = '';
  let finishReason: string | null = null;
  let usage: CollectedUsage | undefined;
  const reader = createDialectReader({
    reasoning: (text) => void (reasoning += text),
    content: (text) => void (content += text),
    toolCall: (call, argumentsDelta, id, name) => toolCalls.add({ index: call.index, id, function: { name, arguments: argumentsDelta === '' ? undefined : argumentsDelta } }),
    usage: (reported) => void (usage = toUsage(reported) ?? usage),
    finish: (reason) => void (finishReason = reason),
    error(error): never {
      throw new StreamFailure({ error: { code: error.code, type: error.type, message: error.message } });
    },
    malformed(problem): never {
      throw new Error(`the stream sent ${problem}`);
    },
  });
  const decoder = createSseDecoder({ onEvent: (event) => reader.read(event) });
  try {
    for await (const chunk of response.body) decoder.feed(chunk);
    decoder.end();
  } catch (error) {
    if (error instanceof StreamFailure) return error.collected;
    throw error;
  }
  reader.end();
  if (!reader.done()) throw new Error('the stream ended before [DONE]');
  return {
    reasoning,
    content,
    toolCalls: toolCalls.calls().map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })),
    finishReason,
    ...(usage !== undefined ? { usage } : {}),
  };
}

runClientConformance('core dialect reader', collect);
