import type { Message, ToolCall } from '@quantum-chat/client';
import { h } from '../dom.js';

/**
 * The conversation as it is sent (wire messages) and as it is shown (the transcript). Tool
 * calls of the last answer stay pending until each has a result; only then can the
 * conversation go on.
 */
export interface Conversation {
  readonly messages: readonly Message[];
  /** Tool calls of the last answer that still wait for a result. */
  readonly pendingToolCalls: number;
  addMessage(role: 'user' | 'system', content: string): void;
  /** Records an answer (without showing it: its turn view is already in the transcript). */
  addAnswer(content: string, toolCalls: ToolCall[]): void;
  addToolResult(call: ToolCall, result: string): void;
  /** Adds a transcript entry, e.g. an assistant turn. */
  show(element: HTMLElement): void;
  clear(): void;
}

const emptyHint = 'Pick a model, paste a key and send a message. Answers stream in here.';

/** A conversation shown in `transcript` (an `<ol>`). */
export function createConversation(transcript: HTMLElement): Conversation {
  const messages: Message[] = [];
  const pending = new Set<string>();

  const show = (element: HTMLElement) => {
    transcript.querySelector(':scope > .empty')?.remove();
    transcript.append(element);
    element.scrollIntoView({ block: 'nearest' });
  };
  const entry = (role: string, label: string | undefined, text: string) =>
    h('li', { class: `message ${role}` }, h('div', { class: 'message-role' }, role, label && h('span', { class: 'model-badge' }, label)), h('div', { class: 'message-body' }, h('div', { class: 'content' }, text)));

  return {
    get messages() {
      return messages;
    },
    get pendingToolCalls() {
      return pending.size;
    },
    addMessage(role, content) {
      messages.push({ role, content });
      show(entry(role, undefined, content));
    },
    addAnswer(content, toolCalls) {
      if (toolCalls.length === 0) {
        messages.push({ role: 'assistant', content });
        return;
      }
      messages.push({ role: 'assistant', content: content === '' ? null : content, tool_calls: toolCalls });
      for (const call of toolCalls) pending.add(call.id);
    },
    addToolResult(call, result) {
      pending.delete(call.id);
      messages.push({ role: 'tool', tool_call_id: call.id, content: result });
      show(entry('tool', call.function.name, result === '' ? '(empty result)' : result));
    },
    show,
    clear() {
      messages.length = 0;
      pending.clear();
      transcript.replaceChildren(h('li', { class: 'empty' }, emptyHint));
    },
  };
}
