import type { EngineMessage } from '@quantum-chat/core';
import type { ChatHistoryItem, ChatModelFunctionCall, ChatModelResponse } from 'node-llama-cpp';

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Our messages as node-llama-cpp's chat history, which its chat wrapper renders with the
 * model's own template. A tool result joins the call it answers (node-llama-cpp keeps the
 * call and its result together in the model's turn); the history always ends with the model
 * turn to complete: a new one, or the one whose tool calls were just answered.
 */
export function toChatHistory(messages: readonly EngineMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  const openCalls = new Map<string, ChatModelFunctionCall>();
  let lastModel: ChatModelResponse | undefined;
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        history.push({ type: 'system', text: message.content });
        lastModel = undefined;
        break;
      case 'user':
        history.push({ type: 'user', text: message.content });
        lastModel = undefined;
        break;
      case 'assistant': {
        const response: ChatModelResponse['response'] = [];
        if (message.reasoning !== undefined && message.reasoning !== '') response.push({ type: 'segment', segmentType: 'thought', text: message.reasoning, ended: true });
        if (message.content !== null && message.content !== '') response.push(message.content);
        for (const [index, call] of (message.toolCalls ?? []).entries()) {
          const functionCall: ChatModelFunctionCall = {
            type: 'functionCall',
            name: call.function.name,
            params: parseArguments(call.function.arguments),
            result: undefined,
            ...(index === 0 ? { startsNewChunk: true } : {}),
          };
          openCalls.set(call.id, functionCall);
          response.push(functionCall);
        }
        lastModel = { type: 'model', response };
        history.push(lastModel);
        break;
      }
      case 'tool': {
        const call = openCalls.get(message.toolCallId);
        if (call !== undefined) {
          call.result = parseArguments(message.content);
          openCalls.delete(message.toolCallId);
        } else {
          // A result of a call the history does not hold: the model still gets to read it.
          history.push({ type: 'user', text: message.content });
          lastModel = undefined;
        }
        break;
      }
    }
  }
  const last = history.at(-1);
  const answersTools = last !== undefined && last === lastModel && last.response.some((item) => typeof item === 'object' && item.type === 'functionCall');
  if (!answersTools) history.push({ type: 'model', response: [] });
  for (const call of openCalls.values()) call.result ??= null;
  return history;
}
