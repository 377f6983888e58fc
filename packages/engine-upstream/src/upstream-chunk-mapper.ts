import { QuantumChatError, type ChatEngineEvent, type EngineUsage, type TokenLogprob } from '@quantum-chat/core';
import type { SseEvent } from '@quantum-chat/core/sse';
import { createDialectReader, type DialectSink, type WireError, type WireUsage } from '@quantum-chat/core/dialect';
import { checkUpstreamUsage } from './check-upstream-usage.js';
import { failureFromStatus } from './upstream-failure.js';
import { withReportedDetails } from './upstream-usage-details.js';

type FinishEvent = Extract<ChatEngineEvent, { type: 'finish' }>;
type ContentEvent = Extract<ChatEngineEvent, { type: 'content' }>;

export interface UpstreamChunkMapperOptions {
  /** Yield reasoning events; when false, reasoning is still split out of the content and counted. */
  showReasoning: boolean;
  countTokens(text: string): number;
  /** Our own count of the prompt: used when the upstream reports none, or one not to be trusted. */
  countPromptTokens(): number;
  /** The request's `max_tokens`: no answer counts more (decisions §6). */
  maxTokens: number;
  /**
   * Characters of reasoning, content and tool calls relayed before the answer is cut with
   * finish reason `length` (see `relayBudgetCharacters`); unlimited by default.
   */
  relayBudget?: number;
  /** The longest arguments of one tool call (the dialect reader's limit); longer is an upstream fault. Unlimited by default. */
  maxToolArgumentsLength?: number;
  /** Told when the upstream's usage was not taken as reported, with why (figures only, never text). */
  onUsageReplaced?: (reasons: string[], reported: WireUsage | undefined, used: EngineUsage) => void;
}

/** Turns an upstream stream into engine events. */
export interface UpstreamChunkMapper {
  /** The events of one upstream server-sent event; throws the failure of an error frame or payload. */
  read(event: SseEvent): ChatEngineEvent[];
  /** The events of a whole JSON completion (a runtime that ignored `stream: true`). */
  readWhole(value: unknown): ChatEngineEvent[];
  /** The last events: held text, unnamed tool calls, and `finish` with usage. */
  end(): ChatEngineEvent[];
  /** `[DONE]` was read: the answer is complete. */
  done(): boolean;
  /** The upstream has produced something: a token of any kind, or a finish reason. */
  started(): boolean;
  /** The upstream sent a `finish_reason`. */
  finished(): boolean;
  /** The relay budget is spent: relay nothing more, end the answer with `length`. */
  cut(): boolean;
}

/** What a tool call costs of the relay budget beside its name and arguments (its markers upstream). */
const toolCallCharacters = 32;
/** What one token's log probabilities cost of it: one token of our own count. */
const logprobCharacters = 4;

/** `text` cut to `length` units, never between the two halves of a surrogate pair. */
function clipText(text: string, length: number): string {
  if (length <= 0) return '';
  const code = text.charCodeAt(length - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}

/** Only this much of an upstream's message goes into ours. */
const maxMessageLength = 500;

/** An error the upstream sent inside a 200 stream; an HTTP status it names maps like that status. */
function streamedFailure(error: WireError): QuantumChatError {
  if (error.status !== undefined) return failureFromStatus(error.status, new Headers(), error.message);
  return new QuantumChatError('upstream_error', `The model server failed during the answer: ${error.message.slice(0, maxMessageLength)}`);
}

function toFinishReason(upstream: string | undefined, toolCalls: number): FinishEvent['reason'] {
  if (upstream === 'length') return 'length';
  // `stop` with calls is `tool_calls` on our wire; `tool_calls` without any is a plain stop.
  return toolCalls > 0 ? 'tool_calls' : 'stop';
}

/**
 * Maps one upstream stream with the core's dialect reader (every dialect, leading `<think>`
 * blocks included) to engine events: reasoning, content, tool calls whose first event carries
 * the name (arguments that come first are held until then), then `finish` with the upstream's
 * usage once checked against our own count (decisions §6), or our count where it reported none,
 * with the details and `system_fingerprint` it reported in OpenAI's fields (decisions §3).
 *
 * @example
 * const mapper = createUpstreamChunkMapper({ showReasoning: true, countTokens, countPromptTokens: () => 0, maxTokens: 4096 });
 * mapper.read({ event: undefined, data: '{"choices":[{"delta":{"reasoning_content":"Hmm."}}]}', id: undefined }); // [{ type: 'reasoning', text: 'Hmm.' }]
 */
export function createUpstreamChunkMapper(options: UpstreamChunkMapperOptions): UpstreamChunkMapper {
  let events: ChatEngineEvent[] = [];
  let finishReason: string | undefined;
  let usage: WireUsage | undefined;
  let reasoningText = '';
  let otherText = '';
  /** The tool calls (by the tracker's index) that have had their named first event. */
  const announced = new Set<number>();
  /** Token logprobs whose text is still held (a `<think>` tag undecided): they go with the next content. */
  let heldLogprobs: TokenLogprob[] | undefined;
  /** The content event of the chunk being read, which its logprobs join. */
  let chunkContent: ContentEvent | undefined;
  /** What may still be relayed (characters), and whether the budget ran out. */
  let budget = options.relayBudget ?? Number.POSITIVE_INFINITY;
  let isCut = false;
  /** The tool calls already charged their markers. */
  const charged = new Set<number>();

  /** Charges `characters` of the budget: false, and the answer cut, when they do not fit. */
  function spend(characters: number): boolean {
    if (isCut) return false;
    if (characters <= budget) {
      budget -= characters;
      return true;
    }
    budget = 0;
    isCut = true;
    return false;
  }

  /** `text`, or as much of it as the budget allows (cutting the answer once it is spent). */
  function withinBudget(text: string): string {
    if (isCut) return '';
    if (text.length <= budget) {
      budget -= text.length;
      return text;
    }
    const clipped = clipText(text, budget);
    budget = 0;
    isCut = true;
    return clipped;
  }

  const sink: DialectSink = {
    reasoning(whole) {
      const text = withinBudget(whole);
      if (text === '') return;
      reasoningText += text;
      if (options.showReasoning) events.push({ type: 'reasoning', text });
    },
    content(whole) {
      const text = withinBudget(whole);
      if (text === '') return;
      otherText += text;
      const event: ContentEvent = { type: 'content', text };
      if (heldLogprobs !== undefined) {
        event.logprobs = heldLogprobs;
        heldLogprobs = undefined;
      }
      chunkContent = event;
      events.push(event);
    },
    logprobs(all) {
      // Each entry is one token of the upstream's: charged as one of ours.
      const affordable = Math.min(all.length, Math.floor(budget / logprobCharacters));
      const entries = affordable === all.length ? all : all.slice(0, affordable);
      spend(all.length * logprobCharacters);
      if (entries.length === 0) return;
      const target = chunkContent;
      if (target === undefined) heldLogprobs = heldLogprobs === undefined ? entries : [...heldLogprobs, ...entries];
      else target.logprobs = target.logprobs === undefined ? entries : [...target.logprobs, ...entries];
    },
    toolCall(call, wholeDelta) {
      if (isCut) return;
      if (!charged.has(call.index)) {
        charged.add(call.index);
        if (!spend(toolCallCharacters)) return;
      }
      if (announced.has(call.index)) {
        const argumentsDelta = withinBudget(wholeDelta);
        if (argumentsDelta !== '') {
          otherText += argumentsDelta;
          events.push({ type: 'tool-call', index: call.index, argumentsDelta });
        }
      } else if (call.name !== undefined) {
        const name = withinBudget(call.name);
        if (isCut) return;
        const argumentsSoFar = withinBudget(call.arguments);
        announced.add(call.index);
        otherText += name + argumentsSoFar;
        events.push({ type: 'tool-call', index: call.index, name, argumentsDelta: argumentsSoFar });
      }
    },
    usage(reported) {
      // Usage may come on every chunk (vLLM's continuous usage) or once at the end: keep the last.
      usage = reported;
    },
    finish(reason) {
      finishReason = reason;
    },
    error(error): never {
      throw streamedFailure(error);
    },
    malformed(problem): never {
      throw new QuantumChatError('upstream_error', `The model server sent ${problem}.`);
    },
  };
  const reader = createDialectReader(sink, { thinkTags: true, ...(options.maxToolArgumentsLength !== undefined ? { maxToolArgumentsLength: options.maxToolArgumentsLength } : {}) });

  function take(): ChatEngineEvent[] {
    const taken = events;
    events = [];
    return taken;
  }

  /** The upstream's usage, checked against our own count of what was relayed (see `checkUpstreamUsage`). */
  function finalUsage(): EngineUsage {
    const reasoningTokens = options.countTokens(reasoningText);
    const own = { promptTokens: options.countPromptTokens(), completionTokens: reasoningTokens + options.countTokens(otherText), reasoningTokens };
    const checked = checkUpstreamUsage(usage, own, { maxTokens: options.maxTokens, toolCalls: announced.size });
    if (checked.reasons.length > 0) options.onUsageReplaced?.(checked.reasons, usage, checked.usage);
    return checked.usage;
  }

  return {
    read(event) {
      chunkContent = undefined;
      reader.read(event);
      return take();
    },
    readWhole(value) {
      chunkContent = undefined;
      reader.readChunk(value);
      return take();
    },
    end() {
      reader.end();
      // Calls whose name never came are announced with an empty one (not once the answer was cut: they may be past the cut).
      for (const call of isCut ? [] : reader.toolCalls.calls()) {
        if (announced.has(call.index)) continue;
        const argumentsSoFar = withinBudget(call.arguments);
        if (isCut && argumentsSoFar === '') break;
        announced.add(call.index);
        otherText += argumentsSoFar;
        events.push({ type: 'tool-call', index: call.index, name: '', argumentsDelta: argumentsSoFar });
      }
      const reason = isCut ? 'length' : toFinishReason(finishReason, announced.size);
      const finish: FinishEvent = { type: 'finish', reason, usage: withReportedDetails(finalUsage(), usage) };
      // What the upstream reported in OpenAI's fields is passed on (decisions §3).
      const fingerprint = reader.systemFingerprint();
      if (fingerprint !== undefined) finish.systemFingerprint = fingerprint;
      events.push(finish);
      return take();
    },
    done: reader.done,
    started: reader.started,
    finished: () => finishReason !== undefined,
    cut: () => isCut,
  };
}
