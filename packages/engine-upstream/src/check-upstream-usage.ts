import type { EngineUsage } from '@quantum-chat/core';
import type { WireUsage } from '@quantum-chat/core/dialect';
import { ownTokenAllowance, ownTokensPerTokenAtMost } from './relay-budget.js';

/** Our own count of a relayed answer (about four characters a token). */
export interface OwnUsage {
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
}

/** What the request allowed, and what was relayed beside text. */
export interface UsageLimits {
  /** The request's `max_tokens`: no answer may count more. */
  maxTokens: number;
  /** Tool calls relayed: each brings template tokens of its own. */
  toolCalls: number;
}

/** The usage to charge, and why the upstream's figures were not taken (empty: they were). */
export interface CheckedUsage {
  usage: EngineUsage;
  reasons: string[];
}

/*
 * "Far above our count": no tokenizer makes a token of less than one UTF-8 byte, and a UTF-16
 * unit is at most three bytes, so a text of n characters is at most 3n tokens, which is 12
 * times our count of about n/4. The allowances cover what a chat template adds that we never
 * see: end-of-turn and tool-call markers after an answer, a system preamble and tool
 * instructions before a prompt. (The prompt's allowance is a template's size, not the
 * core's `countPromptAtOnceBelow`, which is what a count costs: the same figure, not the same idea.)
 */
const tokensPerOwnToken = 12;
const completionAllowance = 64;
const toolCallAllowance = 32;
const promptAllowance = 4096;

/** Why a reported count cannot be taken as it is, or undefined when it can. */
function problemOf(field: string, value: number | null | undefined, ceiling: number, ceilingReason: string): string | undefined {
  if (value === undefined || value === null) return `${field} is missing`;
  if (!Number.isFinite(value) || value < 0) return `${field} is negative (${value})`;
  if (!Number.isInteger(value)) return `${field} is fractional (${value})`;
  if (value > ceiling) return `${field} (${value}) is above ${ceilingReason} (${ceiling})`;
  return undefined;
}

/**
 * The usage of an upstream answer, checked rather than trusted (decisions §6): a count that is
 * missing, negative, fractional, above the request's `max_tokens`, or far above or (completion
 * only) far below our own count of the text relayed (see above) is replaced by our own count, and the reasons are returned
 * for the log. Our completion count never exceeds `max_tokens` either. A reasoning count above
 * the completion count is replaced too; a missing one is not a problem (most servers send none).
 *
 * @example
 * checkUpstreamUsage({ prompt_tokens: 9, completion_tokens: 99_999_999 }, { promptTokens: 9, completionTokens: 11, reasoningTokens: 0 }, { maxTokens: 4096, toolCalls: 0 });
 * // { usage: { promptTokens: 9, completionTokens: 11, reasoningTokens: 0 }, reasons: ['completion_tokens (99999999) is above max_tokens (4096)'] }
 */
export function checkUpstreamUsage(reported: WireUsage | undefined, own: OwnUsage, limits: UsageLimits): CheckedUsage {
  if (reported === undefined) {
    const completionTokens = Math.min(own.completionTokens, limits.maxTokens);
    return { usage: { promptTokens: own.promptTokens, completionTokens, reasoningTokens: Math.min(own.reasoningTokens, completionTokens) }, reasons: ['the upstream reported no usage'] };
  }
  const reasons: string[] = [];
  const plausibleCompletion = own.completionTokens * tokensPerOwnToken + completionAllowance + limits.toolCalls * toolCallAllowance;
  const completionCeiling = Math.min(limits.maxTokens, plausibleCompletion);
  let completionProblem = problemOf(
    'completion_tokens',
    reported.completion_tokens,
    completionCeiling,
    completionCeiling === limits.maxTokens ? 'max_tokens' : 'what the relayed text can hold',
  );
  let completionTokens = reported.completion_tokens as number;
  // "Far below our count": a token averages at most 16 characters (see relay-budget.ts), so the text relayed holds at least this many.
  const completionFloor = Math.ceil((own.completionTokens - ownTokenAllowance) / ownTokensPerTokenAtMost);
  if (completionProblem === undefined && completionTokens < completionFloor) {
    completionProblem = `completion_tokens (${completionTokens}) is below what the relayed text holds (${completionFloor})`;
  }
  if (completionProblem !== undefined) {
    reasons.push(completionProblem);
    completionTokens = Math.min(own.completionTokens, limits.maxTokens);
  }
  const promptProblem = problemOf('prompt_tokens', reported.prompt_tokens, own.promptTokens * tokensPerOwnToken + promptAllowance, 'what the prompt can hold');
  let promptTokens = reported.prompt_tokens as number;
  if (promptProblem !== undefined) {
    reasons.push(promptProblem);
    promptTokens = own.promptTokens;
  }
  const reportedReasoning = reported.completion_tokens_details?.reasoning_tokens;
  let reasoningTokens = Math.min(own.reasoningTokens, completionTokens);
  if (reportedReasoning !== undefined && reportedReasoning !== null) {
    const reasoningProblem = problemOf('reasoning_tokens', reportedReasoning, completionTokens, 'completion_tokens');
    if (reasoningProblem === undefined) reasoningTokens = reportedReasoning;
    else reasons.push(reasoningProblem);
  }
  return { usage: { promptTokens, completionTokens, reasoningTokens }, reasons };
}
