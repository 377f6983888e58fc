import type { ChatEngine, ChatEngineEvent, ChatEngineRequest, EngineUsage } from '../engine/chat-engine.js';
import { measurePromptOf, type MeasuredPrompt } from '../engine/measured-prompt.js';
import type { RunOutcome } from './run-settings.js';

/**
 * Tracks what an engine produced, so an interrupted request settles to real usage. Reasoning,
 * answer and tool calls are counted apart, as engines count them. A class: a waiting stream
 * holds one object, not three closures and their context.
 */
export class RunProgress {
  readonly #engine: ChatEngine;
  readonly #request: ChatEngineRequest;
  #prompt: MeasuredPrompt | undefined;
  #reasoning = '';
  #content = '';
  #tools = '';
  #usage: EngineUsage | undefined = undefined;
  #finishReason: RunOutcome['finishReason'] = undefined;

  constructor(engine: ChatEngine, request: ChatEngineRequest, prompt: MeasuredPrompt | undefined) {
    this.#engine = engine;
    this.#request = request;
    this.#prompt = prompt;
  }

  observe(event: ChatEngineEvent): void {
    if (event.type === 'finish') {
      this.#usage = event.usage;
      this.#finishReason = event.reason === 'stop' && this.#tools !== '' ? 'tool_calls' : event.reason;
    } else if (event.type === 'tool-call') this.#tools += (event.name ?? '') + event.argumentsDelta;
    else if (event.type === 'reasoning') this.#reasoning += event.text;
    else this.#content += event.text;
  }

  outcome(status: number, interrupted: boolean): RunOutcome {
    const usage = this.#usage;
    const finishReason = this.#finishReason;
    if (usage !== undefined) {
      const { promptTokens, completionTokens, reasoningTokens, cachedPromptTokens } = usage;
      if (cachedPromptTokens !== undefined) return { promptTokens, completionTokens, reasoningTokens, cachedPromptTokens, finishReason, status, interrupted };
      return { promptTokens, completionTokens, reasoningTokens, finishReason, status, interrupted };
    }
    const promptTokens = (this.#prompt ??= measurePromptOf(this.#engine, this.#request)).tokensNow();
    const reasoningTokens = this.#count(this.#reasoning);
    const completionTokens = reasoningTokens + this.#count(this.#content) + this.#count(this.#tools);
    return { promptTokens, completionTokens, reasoningTokens, finishReason, status, interrupted };
  }

  #count(text: string): number {
    return text === '' ? 0 : this.#engine.countTokens?.(text) ?? Math.ceil(text.length / 4);
  }
}
