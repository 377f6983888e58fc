import type { EngineMessage } from '@quantum-chat/core';

/** A tool result at the end of the conversation, with the name of the call it answers. @internal */
export interface ToolResult {
  toolCallId: string;
  /** The tool's name from the matching assistant tool call, or `undefined` if none matches. */
  name: string | undefined;
  /** The arguments the call was made with (a JSON string), when known. */
  arguments: string | undefined;
  content: string;
}

/** The parts of a conversation the engine answers from. @internal */
export interface Conversation {
  /** Text of the last user message, `''` when there is none. */
  lastUserText: string;
  /** Text of the first system message, if any. */
  systemPrompt: string | undefined;
  /** How many user messages there are. */
  userTurns: number;
  messageCount: number;
  /** The tool messages that end the conversation, in order; empty unless the last message is a tool result. */
  toolResults: ToolResult[];
}

/**
 * Picks out the last user message, the system prompt and the trailing tool results, linking
 * each result to its call through `toolCallId`.
 *
 * @example
 * readConversation([{ role: 'user', content: 'hi' }]).lastUserText; // 'hi'
 * @internal
 */
export function readConversation(messages: readonly EngineMessage[]): Conversation {
  let lastUserText = '';
  let systemPrompt: string | undefined;
  let userTurns = 0;
  const calls = new Map<string, { name: string; arguments: string }>();
  for (const message of messages) {
    if (message.role === 'user') {
      userTurns++;
      lastUserText = message.content;
    } else if (message.role === 'system') {
      systemPrompt ??= message.content;
    } else if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) {
        calls.set(call.id, { name: call.function.name, arguments: call.function.arguments });
      }
    }
  }
  const toolResults: ToolResult[] = [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role !== 'tool') break;
    const call = calls.get(message.toolCallId);
    toolResults.unshift({
      toolCallId: message.toolCallId,
      name: call?.name,
      arguments: call?.arguments,
      content: message.content,
    });
  }
  return { lastUserText, systemPrompt, userTurns, messageCount: messages.length, toolResults };
}
