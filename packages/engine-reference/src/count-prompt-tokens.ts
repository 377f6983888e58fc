import type { ChatEngineRequest, EngineMessage } from '@quantum-chat/core';
import { countTextTokens } from './tokenizer.js';

/** Framing tokens around every message (the `<|start|>role…<|end|>` of a chat template). */
const tokensPerMessage = 3;
/** Framing tokens around every tool call in an assistant message. */
const tokensPerToolCall = 3;
/** Tokens that prime the assistant's reply. */
const replyPriming = 3;

/**
 * Counts by request object: the handler counts a request's prompt for its admission and the
 * engine again for its usage, and a 1 MiB prompt costs a tenth of a second each time.
 */
const counted = new WeakMap<object, number>();

function countMessage(message: EngineMessage): number {
  let tokens = tokensPerMessage + countTextTokens(message.role) + countTextTokens(message.content ?? '');
  if ('name' in message && message.name) tokens += 1 + countTextTokens(message.name);
  if (message.role === 'assistant') {
    for (const call of message.toolCalls ?? []) {
      tokens += tokensPerToolCall + countTextTokens(call.function.name) + countTextTokens(call.function.arguments);
    }
  }
  return tokens;
}

/**
 * Prompt tokens of a request under o200k_base with a simple chat framing, the one the
 * OpenAI cookbook describes: per message 3 + tokens(role) + tokens(content) (+ 1 +
 * tokens(name) when named; + 3 + tokens(name) + tokens(arguments) per assistant tool
 * call), plus tokens(JSON.stringify(tools)) when there are tools, plus 3 to prime the reply.
 * A tool message's `toolCallId` and an assistant message's earlier `reasoning` are not
 * counted (they are not shown to a model as text).
 *
 * @example
 * countPromptTokens({ ...request, messages: [{ role: 'user', content: 'Hello' }], tools: [] }); // 3 + 1 + 1 + 3 = 8
 */
export function countPromptTokens(request: Pick<ChatEngineRequest, 'messages' | 'tools'>): number {
  const known = counted.get(request);
  if (known !== undefined) return known;
  let tokens = replyPriming;
  for (const message of request.messages) tokens += countMessage(message);
  if (request.tools.length > 0) tokens += countTextTokens(JSON.stringify(request.tools));
  counted.set(request, tokens);
  return tokens;
}
