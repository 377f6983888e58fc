import type { TokenLogprob, TopLogprob } from '../schemas/logprobs.js';

type Loose = Record<string, unknown>;

function isObject(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readBytes(value: unknown): number[] | null {
  return Array.isArray(value) && value.every((byte) => Number.isInteger(byte)) ? [...(value as number[])] : null;
}

function readTop(value: unknown): TopLogprob | undefined {
  if (!isObject(value) || typeof value.token !== 'string' || typeof value.logprob !== 'number') return undefined;
  return { token: value.token, logprob: value.logprob, bytes: readBytes(value.bytes) };
}

/**
 * The token log probabilities of a choice's `logprobs` (`{content: [...]}`), as fresh objects
 * with only the fields of the wire format. Entries without a string `token` and a numeric
 * `logprob` are left out: logprobs are an extra, and a server's odd entry must not fail an
 * answer. `undefined` when there is no `content` list.
 *
 * @example
 * readTokenLogprobs({ content: [{ token: 'Hi', logprob: -0.1, bytes: [72, 105], top_logprobs: [] }] });
 */
export function readTokenLogprobs(logprobs: unknown): TokenLogprob[] | undefined {
  if (!isObject(logprobs) || !Array.isArray(logprobs.content)) return undefined;
  const entries: TokenLogprob[] = [];
  for (const item of logprobs.content) {
    const top = readTop(item);
    if (top === undefined) continue;
    const alternatives = Array.isArray((item as Loose).top_logprobs) ? ((item as Loose).top_logprobs as unknown[]) : [];
    const topLogprobs: TopLogprob[] = [];
    for (const alternative of alternatives) {
      const read = readTop(alternative);
      if (read !== undefined) topLogprobs.push(read);
    }
    // The fresh entry gains its list in place: on Node 20 `{ ...top, top_logprobs }` gets a hidden class per entry.
    entries.push(Object.assign(top, { top_logprobs: topLogprobs }));
  }
  return entries;
}
