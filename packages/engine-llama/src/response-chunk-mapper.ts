import type { ChatEngineEvent } from '@quantum-chat/core';
import type { LlamaChatResponseChunk, LlamaChatResponseFunctionCallParamsChunk } from 'node-llama-cpp';
import type { ForcedShape } from './output-grammar.js';

/** node-llama-cpp's response chunks as engine events, for one answer. */
export interface ResponseChunkMapper {
  /** A chunk of text or of a segment (a thinking model's thoughts). */
  read(chunk: LlamaChatResponseChunk): ChatEngineEvent[];
  /** A piece of a call's arguments, once the model started a call on its own (`tool_choice: "auto"`). */
  readCallParams(chunk: LlamaChatResponseFunctionCallParamsChunk): ChatEngineEvent[];
  /** What the answer holds only once whole: the call of a `"required"` answer. */
  end(): ChatEngineEvent[];
  /** Tokens of thought segments so far, shown or not. */
  readonly reasoningTokens: number;
}

/** The call a `"required"` answer names; none when `max_tokens` cut it short. */
function readForcedCall(text: string): { name: string; arguments: unknown } | undefined {
  try {
    return JSON.parse(text) as { name: string; arguments: unknown };
  } catch {
    return undefined;
  }
}

/**
 * Maps one answer's chunks: thought segments become reasoning (shown when the model shows
 * reasoning, counted always); with a forced call the text is the call (a named call streams
 * its arguments, a `"required"` one is read whole at the end); otherwise text is content.
 */
export function createResponseChunkMapper(options: { showReasoning: boolean; forced: ForcedShape }): ResponseChunkMapper {
  const { showReasoning, forced } = options;
  let reasoningTokens = 0;
  let forcedText = '';
  const startedCalls = new Set<number>();
  return {
    get reasoningTokens() {
      return reasoningTokens;
    },
    read(chunk) {
      if (chunk.type === 'segment') {
        if (chunk.segmentType !== 'thought') return [];
        reasoningTokens += chunk.tokens.length;
        return showReasoning && chunk.text !== '' ? [{ type: 'reasoning', text: chunk.text }] : [];
      }
      if (chunk.text === '') return [];
      if (forced.kind === 'named-call') {
        const first = forcedText === '';
        forcedText += chunk.text;
        return [{ type: 'tool-call', index: 0, ...(first ? { name: forced.name } : {}), argumentsDelta: chunk.text }];
      }
      if (forced.kind === 'any-call') {
        forcedText += chunk.text;
        return [];
      }
      return [{ type: 'content', text: chunk.text }];
    },
    readCallParams(chunk) {
      const first = !startedCalls.has(chunk.callIndex);
      if (first) startedCalls.add(chunk.callIndex);
      if (chunk.paramsChunk === '' && !first) return [];
      return [{ type: 'tool-call', index: chunk.callIndex, ...(first ? { name: chunk.functionName } : {}), argumentsDelta: chunk.paramsChunk }];
    },
    end() {
      if (forced.kind !== 'any-call') return [];
      const call = readForcedCall(forcedText);
      return call === undefined ? [] : [{ type: 'tool-call', index: 0, name: call.name, argumentsDelta: JSON.stringify(call.arguments) }];
    },
  };
}
