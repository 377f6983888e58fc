import type { ChatEngineEvent, EngineUsage, TokenLogprob } from '@quantum-chat/core';
import type { WireUsage } from '@quantum-chat/core/dialect';
import { checkUpstreamUsage } from './check-upstream-usage.js';
import { withReportedDetails } from './upstream-usage-details.js';

export type FinishEvent = Extract<ChatEngineEvent, { type: 'finish' }>;
export type ContentEvent = Extract<ChatEngineEvent, { type: 'content' }>;

export interface AnswerRelayOptions {
  /** Yield reasoning events; when false, reasoning is still counted. */
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
  /** Told when the upstream's usage was not taken as reported, with why (figures only, never text). */
  onUsageReplaced?: (reasons: string[], reported: WireUsage | undefined, used: EngineUsage) => void;
}

/** What a tool call costs of the relay budget beside its name and arguments (its markers upstream). */
const toolCallCharacters = 32;

/** What one token's log probabilities cost of the budget: one token of our own count. */
const logprobCharacters = 4;

/** No tool call yet: most answers have none, so their two sets are made only once a call comes. */
const noCalls: ReadonlySet<number> = new Set();

/** `calls` with `index` added (a set of its own the first time). */
function withCall(calls: ReadonlySet<number>, index: number): Set<number> {
  const own = calls === noCalls ? new Set<number>() : (calls as Set<number>);
  return own.add(index);
}

/** `text` cut to `length` units, never between the two halves of a surrogate pair. */
function clipText(text: string, length: number): string {
  if (length <= 0) return '';
  const code = text.charCodeAt(length - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}

function toFinishReason(upstream: string | undefined, toolCalls: number): FinishEvent['reason'] {
  if (upstream === 'length') return 'length';
  // `stop` with calls is `tool_calls` on our wire; `tool_calls` without any is a plain stop.
  return toolCalls > 0 ? 'tool_calls' : 'stop';
}

/**
 * The bounds every upstream answer is relayed under, whichever wire it came on (chat chunks or
 * Responses events): the relay budget (past it the answer is cut with `length`), our own count
 * of what was relayed, tool calls announced once with their name, and the final usage checked
 * against that count (decisions §6, §8). The wire's mapper reads the upstream; this decides
 * what reaches our caller.
 *
 * @example
 * const relay = new AnswerRelay({ showReasoning: false, countTokens, countPromptTokens: () => 5, maxTokens: 100 });
 * relay.content('Hi');
 * relay.finish('stop', undefined); // { type: 'finish', reason: 'stop', usage: { promptTokens: 5, completionTokens: 1, reasoningTokens: 0 } }
 */
export class AnswerRelay {
  #events: ChatEngineEvent[] = [];
  #reasoningText = '';
  #otherText = '';
  /** What may still be relayed (characters), and whether the budget ran out. */
  #budget: number;
  #isCut = false;
  /** The tool calls (by index) that have had their named first event. */
  #announced: ReadonlySet<number> = noCalls;
  /** The tool calls already charged their markers. */
  #charged: ReadonlySet<number> = noCalls;
  readonly #options: AnswerRelayOptions;

  constructor(options: AnswerRelayOptions) {
    this.#options = options;
    this.#budget = options.relayBudget ?? Number.POSITIVE_INFINITY;
  }

  /** The relay budget is spent: relay nothing more, end the answer with `length`. */
  get cut(): boolean {
    return this.#isCut;
  }

  /** Tool calls announced (named) so far. */
  get toolCalls(): number {
    return this.#announced.size;
  }

  /** Charges `characters` of the budget: false, and the answer cut, when they do not fit. */
  spend(characters: number): boolean {
    if (this.#isCut) return false;
    if (characters <= this.#budget) {
      this.#budget -= characters;
      return true;
    }
    this.#budget = 0;
    this.#isCut = true;
    return false;
  }

  /** `text`, or as much of it as the budget allows (cutting the answer once it is spent). */
  withinBudget(text: string): string {
    if (this.#isCut) return '';
    if (text.length <= this.#budget) {
      this.#budget -= text.length;
      return text;
    }
    const clipped = clipText(text, this.#budget);
    this.#budget = 0;
    this.#isCut = true;
    return clipped;
  }

  reasoning(whole: string): void {
    const text = this.withinBudget(whole);
    if (text === '') return;
    this.#reasoningText += text;
    if (this.#options.showReasoning) this.#events.push({ type: 'reasoning', text });
  }

  /** Relays a piece of the answer; returns its event (for the log probabilities that join it), or undefined when nothing fit. */
  content(whole: string): ContentEvent | undefined {
    const text = this.withinBudget(whole);
    if (text === '') return undefined;
    this.#otherText += text;
    const event: ContentEvent = { type: 'content', text };
    this.#events.push(event);
    return event;
  }

  /** Charges the log probabilities of `all` tokens (each one token of ours); returns those the budget affords. */
  logprobs(all: TokenLogprob[]): TokenLogprob[] {
    const affordable = Math.min(all.length, Math.floor(this.#budget / logprobCharacters));
    this.spend(all.length * logprobCharacters);
    return affordable === all.length ? all : all.slice(0, affordable);
  }

  /**
   * A tool call's fragment: its first relayed event carries `name` (the arguments that came
   * before it, `argumentsSoFar`, go with it); later ones carry `argumentsDelta`. Nothing is
   * relayed for a call until its name is known.
   */
  toolCall(index: number, name: string | undefined, argumentsSoFar: string, argumentsDelta: string): void {
    if (this.#isCut) return;
    if (!this.#charged.has(index)) {
      this.#charged = withCall(this.#charged, index);
      if (!this.spend(toolCallCharacters)) return;
    }
    if (this.#announced.has(index)) {
      const delta = this.withinBudget(argumentsDelta);
      if (delta !== '') {
        this.#otherText += delta;
        this.#events.push({ type: 'tool-call', index, argumentsDelta: delta });
      }
    } else if (name !== undefined) {
      const relayedName = this.withinBudget(name);
      if (this.#isCut) return;
      const relayedArguments = this.withinBudget(argumentsSoFar);
      this.#announced = withCall(this.#announced, index);
      this.#otherText += relayedName + relayedArguments;
      this.#events.push({ type: 'tool-call', index, name: relayedName, argumentsDelta: relayedArguments });
    }
  }

  /** Whether the call at `index` had its named first event. */
  announced(index: number): boolean {
    return this.#announced.has(index);
  }

  /** At the end, a call whose name never came, announced with an empty one; false once nothing more fits. */
  unnamedCall(index: number, argumentsSoFar: string): boolean {
    const relayedArguments = this.withinBudget(argumentsSoFar);
    if (this.#isCut && relayedArguments === '') return false;
    this.#announced = withCall(this.#announced, index);
    this.#otherText += relayedArguments;
    this.#events.push({ type: 'tool-call', index, name: '', argumentsDelta: relayedArguments });
    return true;
  }

  /**
   * The `finish` event (not yet relayed: see `push`): `length` once cut, else the upstream's
   * reason made to agree with the calls relayed; its usage the upstream's once checked
   * against our count (see `checkUpstreamUsage`), with the details it reported.
   */
  finish(upstreamReason: string | undefined, reported: WireUsage | undefined): FinishEvent {
    const reason = this.#isCut ? 'length' : toFinishReason(upstreamReason, this.#announced.size);
    return { type: 'finish', reason, usage: withReportedDetails(this.#finalUsage(reported), reported) };
  }

  push(event: ChatEngineEvent): void {
    this.#events.push(event);
  }

  /** The events relayed since the last `take`. */
  take(): ChatEngineEvent[] {
    const taken = this.#events;
    this.#events = [];
    return taken;
  }

  #finalUsage(reported: WireUsage | undefined): EngineUsage {
    const { countTokens } = this.#options;
    const reasoningTokens = countTokens(this.#reasoningText);
    const own = { promptTokens: this.#options.countPromptTokens(), completionTokens: reasoningTokens + countTokens(this.#otherText), reasoningTokens };
    const checked = checkUpstreamUsage(reported, own, { maxTokens: this.#options.maxTokens, toolCalls: this.#announced.size });
    if (checked.reasons.length > 0) this.#options.onUsageReplaced?.(checked.reasons, reported, checked.usage);
    return checked.usage;
  }
}
