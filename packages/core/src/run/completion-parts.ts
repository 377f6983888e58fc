import type { ChatEngineEvent } from '../engine/chat-engine.js';
import type { GenerateId } from '../ids.js';
import type { TokenLogprob } from '../schemas/logprobs.js';
import type { ToolCall } from '../schemas/tool-call.js';
import { encodeCompletionBody } from '../wire/completion-body.js';
import { createToolCallIndexer, type ToolCallIndexer } from '../wire/tool-call-indexer.js';
import { toWireUsage } from '../wire/wire-usage.js';

type FinishEvent = Extract<ChatEngineEvent, { type: 'finish' }>;

/** What a non-streaming answer gathers from its engine's events until the finish. */
export class CompletionParts {
  reasoning = '';
  content = '';
  readonly toolCalls: ToolCall[] = [];
  /** Undefined unless the request asked for logprobs. */
  readonly logprobs: TokenLogprob[] | undefined;
  #indexer: ToolCallIndexer | undefined = undefined;
  readonly #generateId: GenerateId;

  constructor(generateId: GenerateId, wantsLogprobs: boolean) {
    this.#generateId = generateId;
    this.logprobs = wantsLogprobs ? [] : undefined;
  }

  /** Adds an event that is not the finish. */
  add(event: Exclude<ChatEngineEvent, FinishEvent>): void {
    if (event.type === 'reasoning') this.reasoning += event.text;
    else if (event.type === 'content') {
      this.content += event.text;
      if (this.logprobs !== undefined && event.logprobs !== undefined) for (const entry of event.logprobs) this.logprobs.push(entry);
    } else {
      this.#indexer ??= createToolCallIndexer(this.#generateId);
      const { call, started } = this.#indexer.resolve(event.index, event.name);
      if (started) this.toolCalls.push({ id: call.id, type: 'function', function: { name: call.name, arguments: '' } });
      this.toolCalls[call.index]!.function.arguments += event.argumentsDelta;
    }
  }

  /** The JSON body (decisions §3) of the answer that ended with `finish`. */
  encode(completion: { id: string; created: number; model: string; showReasoning: boolean }, finish: FinishEvent): string {
    const { toolCalls, logprobs } = this;
    return encodeCompletionBody({
      id: completion.id,
      created: completion.created,
      model: completion.model,
      reasoning: completion.showReasoning ? this.reasoning : undefined,
      content: this.content === '' && toolCalls.length > 0 ? null : this.content,
      toolCalls,
      finishReason: toolCalls.length > 0 && finish.reason === 'stop' ? 'tool_calls' : finish.reason,
      // Asked for but never given (an engine that has none): `null`, not an empty list.
      logprobs: logprobs !== undefined && logprobs.length > 0 ? logprobs : undefined,
      usage: toWireUsage(finish.usage),
      systemFingerprint: finish.systemFingerprint,
    });
  }
}
