/**
 * How much of an upstream's answer the engine reads (decisions §8). A legitimate answer is
 * bounded by `max_tokens`; these bound everything else a broken or hostile server (or anyone on
 * the path to a plain-`http` one) can send. Lengths of text are in UTF-16 code units.
 */
export interface UpstreamLimits {
  /** Decoded bytes of one answer (after `gzip`, `deflate` or `br`), stream or JSON; 32 MiB by default. Past it: 502. */
  maxResponseBytes?: number;
  /** Bytes of an error answer's body read for its message; 64 KiB by default. The rest is not read. */
  maxErrorBodyBytes?: number;
  /** One server-sent event (and one line of the stream); 4 Mi units by default. Past it: 502. */
  maxEventLength?: number;
  /** The arguments of one tool call; 4 Mi units by default. Past it: 502. */
  maxToolArgumentsLength?: number;
}

export const defaultUpstreamLimits: Required<UpstreamLimits> = {
  maxResponseBytes: 32 * 1024 * 1024,
  maxErrorBodyBytes: 64 * 1024,
  maxEventLength: 4 * 1024 * 1024,
  maxToolArgumentsLength: 4 * 1024 * 1024,
};

/** The limits with their defaults; a limit that is not a positive number is a configuration error. */
export function resolveUpstreamLimits(limits: UpstreamLimits = {}): Required<UpstreamLimits> {
  const resolved = { ...defaultUpstreamLimits };
  for (const name of Object.keys(defaultUpstreamLimits) as (keyof UpstreamLimits)[]) {
    const value = limits[name];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !(value > 0)) throw new TypeError(`createUpstreamEngine: \`limits.${name}\` must be a positive number.`);
    resolved[name] = value;
  }
  return resolved;
}
