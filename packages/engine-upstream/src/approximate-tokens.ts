import type { ChatEngineRequest } from '@quantum-chat/core';

/**
 * Tokens of a text by the usual rule of thumb, one token per four UTF-16 units, rounded up. The
 * upstream's own tokenizer is unknown to us, so this is only used when the upstream reports no
 * usage (or no reasoning tokens) and to reserve quota before a request: close enough for
 * English and code, an undercount for CJK text.
 *
 * @example
 * countApproximateTokens('Hello, world!'); // 4
 */
export function countApproximateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Per-message framing tokens, as OpenAI's chat format counts them. */
const tokensPerMessage = 4;
/** Tokens priming the assistant's reply. */
const tokensPerReply = 3;

/**
 * Approximate prompt tokens of a request: each message's text and tool calls plus its framing,
 * and the tool definitions as JSON.
 *
 * @example
 * countApproximatePromptTokens(request); // 12 for a single "Hello, world!" user message
 */
export function countApproximatePromptTokens(request: ChatEngineRequest): number {
  let total = tokensPerReply;
  for (const message of request.messages) {
    total += tokensPerMessage + countApproximateTokens(message.content ?? '');
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) total += countApproximateTokens(call.function.name + call.function.arguments);
    }
  }
  if (request.tools.length > 0) total += countApproximateTokens(JSON.stringify(request.tools));
  return total;
}
