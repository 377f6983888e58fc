import { Redis } from 'ioredis';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface SharedLimitBurstOptions {
  /** The Redis the instances share their limits through. */
  redisUrl: string;
  /** A fresh organisation (with its requests-per-minute limit set) and a live key of it, per attempt. */
  prepare(attempt: number): Promise<{ organisation: string; key: string }>;
  /** Sends the burst over the instances; resolves with every request's HTTP status. */
  send(key: string, organisation: string): Promise<number[]>;
  /** Bursts tried before giving up; 3 by default. */
  attempts?: number;
}

export interface SharedLimitBurst {
  organisation: string;
  statuses: number[];
  /** Bursts sent: those before the last had an instance count on its own. */
  attempts: number;
}

/**
 * A concurrent burst at an organisation's requests-per-minute limit, over instances that share
 * their limits through Redis, that is known to have been counted in Redis alone.
 *
 * On a loaded machine Redis may not answer within the limiter's timeout (50 ms); the instance
 * then counts on its own (fail-open, decisions §6), which admits more than the limit by
 * design. Such a burst proves nothing about sharing, and it shows in the shared count: admitted
 * requests are never given back, refused ones always are, and an instance that counted in
 * memory takes back the count its late command left in Redis. So the count in Redis equals the
 * admitted requests exactly when every one of them was counted there; a burst where it does not
 * (once the count has settled) is repeated with a fresh organisation. The caller then checks
 * the burst that was counted in Redis alone: it must have admitted exactly the limit.
 *
 * @example
 * const { statuses } = await sharedLimitBurst({ redisUrl, prepare, send });
 * expect(statuses.filter((status) => status === 200)).toHaveLength(15);
 */
export async function sharedLimitBurst(options: SharedLimitBurstOptions): Promise<SharedLimitBurst> {
  const attempts = options.attempts ?? 3;
  const inspector = new Redis(options.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  inspector.on('error', () => undefined);
  const seen: string[] = [];
  try {
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const { organisation, key } = await options.prepare(attempt);
      const statuses = await options.send(key, organisation);
      const admitted = statuses.filter((status) => status === 200).length;
      // The server's limiter keys: `quantum-chat:limits:<dimension>:<organisation>:<live|test>`.
      const count = async () => Number((await inspector.get(`quantum-chat:limits:requests:${organisation}:live`)) ?? 0);
      if (await settlesAt(count, admitted)) return { organisation, statuses, attempts: attempt };
      seen.push(`${organisation}: ${admitted} admitted, ${await count()} counted in Redis`);
    }
  } finally {
    inspector.disconnect();
  }
  throw new Error(`Every burst had an instance count on its own instead of in Redis (${seen.join('; ')}).`);
}

/**
 * True once the count reads `expected` twice in a row 250 ms apart (a command given up on may
 * still land and be taken back), false if it has not within 3 s.
 */
async function settlesAt(count: () => Promise<number>, expected: number): Promise<boolean> {
  const deadline = Date.now() + 3000;
  let matched = false;
  while (Date.now() < deadline) {
    const now = (await count()) === expected;
    if (now && matched) return true;
    matched = now;
    await sleep(250);
  }
  return false;
}
