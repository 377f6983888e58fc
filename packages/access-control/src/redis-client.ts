/**
 * A Redis client as the limiter's public types name it: an ioredis `Redis` instance fits.
 * Written out (the members the limiter uses; rate-limiter-flexible takes the client as is)
 * rather than imported from ioredis, so that a project without the optional ioredis still
 * type-checks these types with `skipLibCheck: false`.
 */
export interface RedisClient {
  readonly status: string;
  ping(): Promise<string>;
  quit(): Promise<unknown>;
  disconnect(): void;
  once(event: 'ready', listener: () => void): unknown;
  off(event: 'ready' | 'close', listener: () => void): unknown;
  /** `close`: the connection was lost (ioredis then reconnects in the background). */
  on(event: 'close', listener: () => void): unknown;
}
