import type { Usage } from '@quantum-chat/core';
import { createToolCallAccumulator } from '@quantum-chat/core/dialect';
import type { ChatStreamEvent } from './chat-stream-event.js';
import type { CollectedCompletion } from './collected-completion.js';

/** Folds stream events into a {@link CollectedCompletion}. @internal */
export interface CompletionCollector {
  add(event: ChatStreamEvent): void;
  result(meta: { id: string | undefined; model: string | undefined }): CollectedCompletion;
}

/**
 * Concatenates reasoning and content (never overwrites them), keeps the last finish reason
 * and usage, and rebuilds tool calls with the core's accumulator (by id, then index). Calls
 * the server sent without an id get a generated `call_…` id, so the message can be sent back.
 *
 * @internal
 */
export function createCompletionCollector(): CompletionCollector {
  const reasoning: string[] = [];
  const content: string[] = [];
  const toolCalls = createToolCallAccumulator();
  let finishReason: string | null = null;
  let usage: Usage | null = null;

  function add(event: ChatStreamEvent): void {
    switch (event.type) {
      case 'reasoning':
        reasoning.push(event.text);
        break;
      case 'content':
        content.push(event.text);
        break;
      case 'tool-call-delta':
        // An empty piece is a fragment without (new) arguments: a call that never had any gets "{}".
        toolCalls.add({
          index: event.index,
          id: event.id,
          function: { name: event.name, arguments: event.argumentsDelta === '' ? undefined : event.argumentsDelta },
        });
        break;
      case 'usage':
        usage = event.usage;
        break;
      case 'finish':
        finishReason = event.finishReason;
        break;
    }
  }

  function result(meta: { id: string | undefined; model: string | undefined }): CollectedCompletion {
    return { ...meta, reasoning: reasoning.join(''), content: content.join(''), toolCalls: toolCalls.calls(), finishReason, usage };
  }

  return { add, result };
}
