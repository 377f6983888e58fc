import type { ChatCompletion } from '@quantum-chat/core';
import { readChatCompletion } from '../read-chat-completion.js';
import type { ChatStreamEvent } from './chat-stream-event.js';

/**
 * The events a whole completion stands for, for servers that answer a stream request with
 * plain JSON. An error body throws its API error; anything else not shaped like a
 * completion throws `APIResponseValidationError`.
 *
 * @internal
 */
export function completionToEvents(body: unknown, headers: Record<string, string>): { events: ChatStreamEvent[]; meta: { id: string | undefined; model: string | undefined } } {
  const completion: ChatCompletion = readChatCompletion(body, headers);
  const events: ChatStreamEvent[] = [];
  const choice = completion.choices[0];
  const message = choice?.message;
  if (message?.reasoning_content) events.push({ type: 'reasoning', text: message.reasoning_content });
  if (message?.content) {
    const logprobs = choice?.logprobs?.content;
    events.push(logprobs ? { type: 'content', text: message.content, logprobs } : { type: 'content', text: message.content });
  }
  message?.tool_calls?.forEach((call, index) => {
    events.push({ type: 'tool-call-delta', index, id: call.id, name: call.function.name, argumentsDelta: call.function.arguments });
  });
  if (completion.usage) events.push({ type: 'usage', usage: completion.usage });
  if (choice?.finish_reason) events.push({ type: 'finish', finishReason: choice.finish_reason });
  return { events, meta: { id: completion.id, model: completion.model } };
}
