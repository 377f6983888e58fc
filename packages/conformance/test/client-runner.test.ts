import { createSseDecoder, createToolCallAccumulator } from '@quantum-chat/core';
import { runClientConformance, type CollectedCompletion, type CollectedUsage } from '../src/index.js';

// A tiny collector built only on the core's codec (createSseDecoder, createToolCallAccumulator):
// it proves that every stream fixture, ours and the dialects, can be consumed.

interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

function toUsage(usage: WireUsage): CollectedUsage {
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    ...(usage.total_tokens !== undefined ? { totalTokens: usage.total_tokens } : {}),
    ...(usage.completion_tokens_details?.reasoning_tokens !== undefined ? { reasoningTokens: usage.completion_tokens_details.reasoning_tokens } : {}),
  };
}

function toError(payload: { error?: { code?: unknown; type?: unknown; message?: unknown } }): CollectedCompletion {
  const { code, type, message } = payload.error ?? {};
  return { error: { code: typeof code === 'string' ? code : null, type: typeof type === 'string' ? type : null, ...(typeof message === 'string' ? { message } : {}) } };
}

async function collect({ baseUrl, apiKey, request }: { baseUrl: string; apiKey: string; request: Record<string, unknown> }): Promise<CollectedCompletion> {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ ...request, stream: true }),
  });
  if (!response.ok || response.body === null) {
    const failed = toError(await response.json().catch(() => ({})));
    return { error: { ...(failed as { error: object }).error, status: response.status } };
  }
  const toolCalls = createToolCallAccumulator();
  let reasoning = '';
  let content = '';
  let finishReason: string | null = null;
  let usage: CollectedUsage | undefined;
  let failure: CollectedCompletion | undefined;
  const decoder = createSseDecoder({
    onEvent(event) {
      if (failure !== undefined || event.data === '[DONE]') return;
      const payload = JSON.parse(event.data);
      if (event.event === 'error' || payload.error !== undefined) {
        failure = toError(payload);
        return;
      }
      if (payload.usage) usage = toUsage(payload.usage);
      const choice = payload.choices?.[0];
      if (choice === undefined) return;
      const delta = choice.delta ?? {};
      // Our thought_trace also has a top-level `delta` string: the chunk's delta says the same.
      const thought = delta.reasoning_content ?? delta.reasoning;
      if (typeof thought === 'string') reasoning += thought;
      if (typeof delta.content === 'string') content += delta.content;
      if (Array.isArray(delta.tool_calls)) toolCalls.addAll(delta.tool_calls);
      if (typeof choice.finish_reason === 'string') finishReason = choice.finish_reason;
    },
  });
  for await (const chunk of response.body) decoder.feed(chunk);
  decoder.end();
  if (failure !== undefined) return failure;
  return {
    reasoning,
    content,
    toolCalls: toolCalls.calls().map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })),
    finishReason,
    ...(usage !== undefined ? { usage } : {}),
  };
}

runClientConformance('core codec', collect);
