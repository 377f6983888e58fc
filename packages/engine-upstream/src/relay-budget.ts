/*
 * How far past `max_tokens` an answer may run, by our own count (about four characters a
 * token), before we stop relaying it. No tokenizer's tokens average more than sixteen
 * characters over an answer (English averages about four), so a legitimate answer of n tokens
 * holds at most 4n of our tokens; the allowance covers very short answers. The same ratio, the
 * other way round, tells a reported completion count too low to be true (`checkUpstreamUsage`).
 */
export const ownTokensPerTokenAtMost = 4;
export const ownTokenAllowance = 64;
/** Characters per token of our own count (`countApproximateTokens`). */
const charactersPerOwnToken = 4;

/**
 * The characters of reasoning, content and tool calls relayed for an answer of `maxTokens`
 * before it is cut with finish reason `length`.
 *
 * @example
 * relayBudgetCharacters(100); // 1856
 */
export function relayBudgetCharacters(maxTokens: number): number {
  return (maxTokens * ownTokensPerTokenAtMost + ownTokenAllowance) * charactersPerOwnToken;
}
