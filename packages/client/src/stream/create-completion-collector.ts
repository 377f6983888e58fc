import type { ToolCall, Usage } from '@quantum-chat/core';
import type { ChatStreamEvent } from './chat-stream-event.js';
import type { CollectedCompletion } from './collected-completion.js';

/** Folds stream events into a {@link CollectedCompletion}. @internal */
export interface CompletionCollector {
  add(event: ChatStreamEvent): void;
  result(meta: { id: string | undefined; model: string | undefined }): CollectedCompletion;
}

/**
 * Concatenates reasoning and content (never overwrites them), keeps the last finish reason
 * and usage, and rebuilds tool calls by index.
 *
 * @internal
 */
export function createCompletionCollector(): CompletionCollector {
  const reasoning: string[] = [];
  const content: string[] = [];
  const calls = new Map<number, { id: string | undefined; name: string; arguments: string }>();
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
      case 'tool-call-delta': {
        const call = calls.get(event.index) ?? { id: undefined, name: '', arguments: '' };
        call.id ??= event.id;
        if (event.name !== undefined && call.name === '') call.name = event.name;
        call.arguments += event.argumentsDelta;
        calls.set(event.index, call);
        break;
      }
      case 'usage':
        usage = event.usage;
        break;
      case 'finish':
        finishReason = event.finishReason;
        break;
    }
  }

  function result(meta: { id: string | undefined; model: string | undefined }): CollectedCompletion {
    const toolCalls: ToolCall[] = [...calls.entries()]
      .sort(([left], [right]) => left - right)
      .map(([index, call]) => ({ id: call.id ?? `call_${index}`, type: 'function', function: { name: call.name, arguments: call.arguments } }));
    return { ...meta, reasoning: reasoning.join(''), content: content.join(''), toolCalls, finishReason, usage };
  }

  return { add, result };
}
