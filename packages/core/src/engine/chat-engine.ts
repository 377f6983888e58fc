import type { ToolChoice, ToolDefinition } from '../schemas/tool-definition.js';
import type { ToolCall } from '../schemas/tool-call.js';

/** A message as an engine sees it: roles normalised (`developer` → `system`), text parts joined. */
export type EngineMessage =
  | { role: 'system' | 'user'; content: string; name?: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[]; reasoning?: string; name?: string }
  | { role: 'tool'; content: string; toolCallId: string };

/** A validated request with every default applied (decisions §2). */
export interface ChatEngineRequest {
  model: string;
  messages: EngineMessage[];
  tools: ToolDefinition[];
  /** `"auto"` with tools, `"none"` without, unless the client chose. */
  toolChoice: ToolChoice;
  parallelToolCalls: boolean;
  temperature: number;
  /** Caps all completion tokens, reasoning included. */
  maxTokens: number;
  topP?: number;
  stop?: string[];
  seed?: number;
  user?: string;
  /** Whether the model shows reasoning (only `quantum-reasoner` of the built-ins). */
  reasoning: boolean;
}

/** Token counts an engine reports with its finish event. */
export interface EngineUsage {
  promptTokens: number;
  /** All generated tokens, reasoning included. */
  completionTokens: number;
  reasoningTokens: number;
}

/**
 * What an engine yields. Tool-call fragments are keyed by `index`; the first fragment of a
 * call carries its `name`. The last event is always `finish`.
 */
export type ChatEngineEvent =
  | { type: 'reasoning'; text: string }
  | { type: 'content'; text: string }
  | { type: 'tool-call'; index: number; name?: string; argumentsDelta: string }
  | { type: 'finish'; reason: 'stop' | 'length' | 'tool_calls'; usage: EngineUsage };

export interface ChatEngineContext {
  /** Aborts when the client leaves or the server shuts down: stop generating at once. */
  signal: AbortSignal;
  /** The request's `x-request-id`, for logs and upstream forwarding. */
  requestId: string;
}

/**
 * A model runtime behind one interface (decisions §8): the reference engine, an upstream
 * OpenAI-compatible server, or anything of your own.
 *
 * @example
 * const echo: ChatEngine = {
 *   async *generate(request) {
 *     yield { type: 'content', text: 'hi' };
 *     yield { type: 'finish', reason: 'stop', usage: { promptTokens: 1, completionTokens: 1, reasoningTokens: 0 } };
 *   },
 * };
 */
export interface ChatEngine {
  generate(request: ChatEngineRequest, context: ChatEngineContext): AsyncIterable<ChatEngineEvent>;
  /** Prompt tokens of a request, used to reserve token quota before generating. */
  countPromptTokens?(request: ChatEngineRequest): number;
  /** Tokens of generated text, used to settle usage when a request is interrupted. */
  countTokens?(text: string): number;
}
