import type { TokenLogprob, TopLogprob } from '@quantum-chat/core';
import type { SeedSource } from './seeded-random.js';

const textEncoder = new TextEncoder();

/** Tokens the engine names as the runners-up at any position: common ones, so the lists read plausibly. */
const alternatives = [' the', ' a', ',', '.', ' and', ' to', ' of', ' is', ' in', ' it', '\n', ' I', ' you', ' that', ' for', ' on', ' with', ' as', ' this', ' be', ':'];

function entry(token: string, logprob: number): TopLogprob {
  return { token, logprob, bytes: [...textEncoder.encode(token)] };
}

/** Rounded down (a probability never grows) so that the numbers are short on the wire. */
function round(logprob: number): number {
  return Math.floor(logprob * 1e6) / 1e6;
}

/**
 * Deterministic log probabilities for the answer's tokens (decisions §2): a pure function of
 * the seed text and the tokens, so the same request gets the same figures, streamed or not.
 * Each token's probability is high (colder at temperature 0), the runners-up share part of the
 * rest, so a position's probabilities never add up to more than 1; `top_logprobs` lists the
 * `top` most likely tokens of the position, the chosen one included, most likely first.
 *
 * @example
 * scoreTokens(['Hello', '!'], createSeedSource('seed'), 2)[0]; // { token: 'Hello', logprob: -0.05…, bytes: [...], top_logprobs: [2 entries] }
 * @internal
 */
export function scoreTokens(tokens: readonly string[], seed: SeedSource, top: number, cold = false): TokenLogprob[] {
  const random = seed.derive('|logprobs');
  return tokens.map((token) => {
    // The chosen token's probability: 0.55–0.999, or 0.9–0.999 when cold.
    const probability = cold ? 0.9 + random.next() * 0.099 : 0.55 + random.next() * 0.449;
    const logprob = round(Math.log(probability));
    const ranked: TopLogprob[] = [entry(token, logprob)];
    // Each runner-up takes 30–70 % of what is left, so the next one is always less likely.
    let left = 1 - probability;
    const start = Math.floor(random.next() * alternatives.length);
    for (let offset = 0; ranked.length < top && offset < alternatives.length; offset++) {
      const candidate = alternatives[(start + offset) % alternatives.length]!;
      if (candidate === token) continue;
      const share = left * (0.3 + random.next() * 0.4);
      left -= share;
      ranked.push(entry(candidate, round(Math.log(share))));
    }
    ranked.sort((a, b) => b.logprob - a.logprob);
    // The fresh entry gains its list in place: on Node 20 `{ ...entry(…), top_logprobs }` gets a hidden class per token.
    return Object.assign(entry(token, logprob), { top_logprobs: ranked.slice(0, top) });
  });
}
