import {
  createMemoryStreamStore,
  StreamLostError,
  type StreamChunk,
  type StreamFrame,
  type StreamInfo,
  type StreamMeta,
  type StreamStore,
} from '@quantum-chat/core';
import { Redis } from 'ioredis';

export interface RedisStreamStoreOptions {
  /** How long a stream is kept after its end; 600 s by default. */
  retentionSeconds?: number;
  /** A running stream whose producer wrote no heartbeat for this long is lost; 10 s by default. */
  heartbeatSeconds?: number;
  /** How long a follower's `XREAD BLOCK` waits before it looks at the producer's heartbeat; 1000 ms by default. */
  blockMs?: number;
  /** Failures of Redis writes (the stream's readers elsewhere then miss frames; this instance's readers do not). */
  onError?: (error: unknown) => void;
}

export interface RedisStreamStore extends StreamStore {
  close(): Promise<void>;
}

const prefix = 'quantum-chat:stream:';
const cancelChannel = 'quantum-chat:stream-cancel';
/** A running stream's keys outlive a producer that died without ending it by this much, at most. */
const runningTtlSeconds = 3600;

const framesKey = (id: string) => `${prefix}${id}`;
const metaKey = (id: string) => `${prefix}${id}:meta`;
const heartbeatKey = (id: string) => `${prefix}${id}:hb`;

type Command = [string, ...Array<string | number>];

/** Entries as `XREAD`/`XRANGE` give them: `[id, [field, value, ...]]`. */
type StreamEntries = Array<[string, string[]]>;

/** The sequence number of an entry id `0-<seq>`: entries are written with ids of their own, so `XREAD` from `0-<after>` is a resume. */
const seqOf = (entryId: string) => Number(entryId.slice(2));

/** Reads a stream another instance produces: `XREAD BLOCK` on a connection of its own, the producer's heartbeat checked when Redis has nothing. */
class RedisFollower implements AsyncIterator<StreamChunk> {
  readonly #redis: Redis;
  readonly #id: string;
  readonly #blockMs: number;
  #position: number;
  #closed = false;
  #ended = false;

  constructor(redis: Redis, id: string, after: number, blockMs: number) {
    this.#redis = redis;
    this.#id = id;
    this.#position = after;
    this.#blockMs = blockMs;
  }

  async next(): Promise<IteratorResult<StreamChunk>> {
    while (!this.#closed && !this.#ended) {
      const reply = (await this.#redis.xread('COUNT', 1000, 'BLOCK', this.#blockMs, 'STREAMS', framesKey(this.#id), `0-${this.#position}`)) as Array<[string, StreamEntries]> | null;
      if (this.#closed) break;
      const entries = reply?.[0]?.[1];
      if (entries === undefined || entries.length === 0) {
        await this.#checkProducer();
        continue;
      }
      let text = '';
      let last = false;
      for (const [entryId, fields] of entries) {
        if (fields[0] === 'end') {
          last = true;
          break;
        }
        text += fields[1]!;
        this.#position = seqOf(entryId);
      }
      if (last) this.#ended = true;
      return { done: false, value: { text, lastSeq: this.#position, last } };
    }
    this.#stop();
    return { done: true, value: undefined };
  }

  /** Nothing new within the block time: a producer whose heartbeat lapsed is gone for good. */
  async #checkProducer(): Promise<void> {
    const [alive, state] = await Promise.all([this.#redis.exists(heartbeatKey(this.#id)), this.#redis.hget(metaKey(this.#id), 'state')]);
    if (state === null) {
      // Expired while followed: nothing more will come.
      this.#ended = true;
      return;
    }
    if (alive === 0 && state === 'running') throw new StreamLostError(this.#id);
  }

  async return(): Promise<IteratorResult<StreamChunk>> {
    this.#closed = true;
    this.#stop();
    return { done: true, value: undefined };
  }

  #stop(): void {
    // A blocked XREAD holds its connection: dropping it is how a follower that left stops at once.
    this.#redis.disconnect();
  }
}

/**
 * Streams in Redis Streams, so that any instance serves a resume (decisions §4.7). The
 * streams this instance produces are also kept in its memory, where their own readers (the
 * client, most resumes) read them without a round trip. Writes are queued and sent in one
 * pipeline per tick (`XADD` with ids `0-<seq>`, never one round trip per token); a producer
 * refreshes a heartbeat key; a cancel is published to every instance.
 *
 * @example
 * const store = createRedisStreamStore(process.env.REDIS_URL!, { retentionSeconds: 600 });
 */
export function createRedisStreamStore(url: string, options: RedisStreamStoreOptions = {}): RedisStreamStore {
  const retentionSeconds = options.retentionSeconds ?? 600;
  const heartbeatMs = (options.heartbeatSeconds ?? 10) * 1000;
  const blockMs = options.blockMs ?? 1000;
  const onError = options.onError ?? (() => undefined);
  const local = createMemoryStreamStore({ retentionMs: retentionSeconds * 1000 });
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined); // failures are reported per command, not per reconnection attempt
  const subscriber = redis.duplicate();
  subscriber.on('error', () => undefined);
  const subscribed = subscriber.subscribe(cancelChannel).catch(onError);
  subscriber.on('message', (_channel, id: string) => void local.requestCancel(id));
  const followers = new Set<Redis>();

  /** Streams this instance produces and has not ended: their heartbeat is refreshed. */
  const producing = new Map<string, number>();
  let queue: Command[] = [];
  let flushScheduled = false;

  function flush(): void {
    flushScheduled = false;
    const commands = queue;
    queue = [];
    if (commands.length === 0) return;
    redis
      .pipeline(commands)
      .exec()
      .then((results) => {
        const failed = results?.find(([error]) => error !== null);
        if (failed !== undefined) onError(failed[0]);
      }, onError);
  }

  function enqueue(command: Command): void {
    queue.push(command);
    if (flushScheduled) return;
    flushScheduled = true;
    // One pipeline per tick: every frame a run produced in this turn of the event loop goes in one write.
    setImmediate(flush);
  }

  const heartbeat = setInterval(() => {
    for (const id of producing.keys()) enqueue(['set', heartbeatKey(id), '1', 'PX', heartbeatMs]);
  }, Math.max(100, Math.floor(heartbeatMs / 3)));
  heartbeat.unref();

  async function remoteMeta(id: string): Promise<(StreamMeta & { state: string }) | undefined> {
    const fields = await redis.hgetall(metaKey(id));
    if (fields.owner === undefined || fields.kind === undefined) return undefined;
    return { owner: fields.owner, kind: fields.kind, createdAt: Number(fields.createdAt), state: fields.state ?? 'running' };
  }

  return {
    create(id, meta) {
      local.create(id, meta);
      producing.set(id, 0);
      enqueue(['hset', metaKey(id), 'owner', meta.owner, 'kind', meta.kind, 'createdAt', meta.createdAt, 'state', 'running']);
      enqueue(['expire', metaKey(id), runningTtlSeconds]);
      enqueue(['set', heartbeatKey(id), '1', 'PX', heartbeatMs]);
    },
    append(id, frames: readonly StreamFrame[]) {
      local.append(id, frames);
      const before = producing.get(id);
      if (before === undefined || frames.length === 0) return;
      producing.set(id, frames.at(-1)!.seq);
      for (const { seq, frame } of frames) enqueue(['xadd', framesKey(id), `0-${seq}`, 'f', frame]);
      // Once the key exists (after its first XADD): a producer that dies leaves it for an hour at most.
      if (before === 0) enqueue(['expire', framesKey(id), runningTtlSeconds]);
    },
    end(id) {
      const lastSeq = producing.get(id);
      local.end(id);
      if (lastSeq === undefined) return;
      producing.delete(id);
      // The end is an entry of its own after the last frame: a follower learns it in the same read.
      enqueue(['xadd', framesKey(id), `0-${lastSeq + 1}`, 'end', '1']);
      enqueue(['hset', metaKey(id), 'state', 'ended']);
      enqueue(['expire', framesKey(id), retentionSeconds]);
      enqueue(['expire', metaKey(id), retentionSeconds]);
      enqueue(['del', heartbeatKey(id)]);
    },
    async describe(id): Promise<StreamInfo | undefined> {
      if (local.has(id)) return local.describe(id);
      const meta = await remoteMeta(id);
      if (meta === undefined) return undefined;
      const { state, ...rest } = meta;
      return { meta: rest, state: state === 'ended' ? 'ended' : 'running', lastSeq: 0 };
    },
    follow(id, followOptions) {
      if (local.has(id)) return local.follow(id, followOptions);
      const connection = redis.duplicate();
      connection.on('error', () => undefined);
      followers.add(connection);
      connection.on('end', () => followers.delete(connection));
      return new RedisFollower(connection, id, followOptions.after, blockMs);
    },
    async readAll(id) {
      if (local.has(id)) return local.readAll(id);
      const entries = (await redis.xrange(framesKey(id), '-', '+')) as StreamEntries;
      return entries.filter(([, fields]) => fields[0] === 'f').map(([entryId, fields]) => ({ seq: seqOf(entryId), frame: fields[1]! }));
    },
    async requestCancel(id) {
      if (local.has(id)) return local.requestCancel(id);
      await redis.publish(cancelChannel, id);
    },
    onCancel(id, listener) {
      return local.onCancel(id, listener);
    },
    async close() {
      clearInterval(heartbeat);
      flush();
      await subscribed;
      for (const follower of followers) follower.disconnect();
      subscriber.disconnect();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
