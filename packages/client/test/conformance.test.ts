import { runClientConformance, type CollectedCompletion } from '@quantum-chat/conformance';
import { createChatClient, QuantumChatApiError, type ChatCompletionCreateParams } from '../src/index.js';

/**
 * Every fixture stream (ours in both formats, and other servers' dialects), cut at byte
 * boundaries, must be rebuilt by `stream().collect()`.
 */
runClientConformance('client', async ({ baseUrl, apiKey, request }): Promise<CollectedCompletion> => {
  const client = createChatClient({ baseUrl, apiKey, maxRetries: 0 });
  try {
    const collected = await client.chat.completions.stream(request as ChatCompletionCreateParams).collect();
    const usage = collected.usage;
    return {
      reasoning: collected.reasoning,
      content: collected.content,
      toolCalls: collected.toolCalls.map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })),
      finishReason: collected.finishReason,
      ...(usage === null
        ? {}
        : {
            usage: {
              promptTokens: usage.prompt_tokens,
              completionTokens: usage.completion_tokens,
              totalTokens: usage.total_tokens,
              ...(typeof usage.completion_tokens_details?.reasoning_tokens === 'number' ? { reasoningTokens: usage.completion_tokens_details.reasoning_tokens } : {}),
            },
          }),
    };
  } catch (error) {
    if (!QuantumChatApiError.isInstance(error)) throw error;
    return { error: { ...(error.status === undefined ? {} : { status: error.status }), code: error.code, type: error.type, message: error.message } };
  }
});
