import type { Principal } from '../auth/access-control.js';
import { describeErrorCode, isErrorCode } from '../errors/error-codes.js';
import { QuantumChatError } from '../errors/quantum-chat-error.js';
import type { ChatHttpRequest, ChatHttpResponse } from '../contract/chat-http-types.js';
import { headerValue } from '../request/read-request-body.js';
import type { RunSettings } from '../run/run-settings.js';
import { runToStream, sseHeadersWith } from '../run/run-to-stream.js';
import type { RunFramer } from '../run/stream-run-frames.js';
import { completionFromFrames } from './completion-from-frames.js';
import { DetachableConnection } from './detachable-connection.js';
import { followStream } from './follow-stream.js';
import { LocalRuns } from './local-runs.js';
import { createMemoryStreamStore } from './memory-stream-store.js';
import { StreamProducer } from './stream-producer.js';
import type { StreamInfo, StreamStore } from './stream-store.js';

/** The handler's `streams` option: resumable streams (decisions §4.7). */
export interface StreamsOptions {
  /** Where streams live: this process's memory by default (`createMemoryStreamStore`); a shared store for several instances. */
  store?: StreamStore;
  /** Every stream is resumable unless its request says `stream_options.resumable: false`. Off by default. */
  resumableByDefault?: boolean;
  /** Runs without a reader per organisation (on this instance) before the oldest is cancelled; 32 by default. */
  maxDetachedPerOrganisation?: number;
  /**
   * A run's time limit in milliseconds, from its start: past it, a run with no reader on this
   * instance ends with an \`upstream_timeout\` error frame (usage settled for what it produced);
   * a run with a reader goes on until its reader leaves. 600 000 (10 minutes) by default; 0: none.
   */
  runTimeoutMs?: number;
  /**
   * Refuse resumable requests with this sentence (400): the ready server sets it when it runs
   * as several instances without a shared store, where a resume could reach another instance.
   */
  refuseReason?: string;
  /** Reporting only (metrics): a resumable stream started, a resume began, a cancel was asked for. */
  onStreamEvent?: (event: StreamEvent) => void;
}

/** Another wire's stream in the store (the Responses API's): its id, its kind and its frames. */
export interface StreamWire {
  id: string;
  /** `StreamMeta.kind`: `responses`. */
  kind: string;
  makeFramer: (settings: RunSettings) => RunFramer;
  /**
   * Whether the run goes on once its client leaves (true by default, as for resumable chat
   * streams); false: the client leaving stops it, as for a plain stream, and the store keeps
   * what it wrote for replay.
   */
  outlivesClient?: boolean;
}

/** What `onStreamEvent` hears of. */
export type StreamEvent = 'started' | 'resumed' | 'cancelled';

const seqPattern = /^(?:0|[1-9]\d{0,14})$/;

/** Who may read a stream: the creating key's organisation and kind (a test key never reads a live stream). */
export function streamOwner(principal: Principal): string {
  return `${principal.organisationId}:${principal.kind}`;
}

function streamNotFound(id: string): QuantumChatError {
  return new QuantumChatError('stream_not_found', `No stream '${id.slice(0, 100)}' was found: its id is unknown, it expired, or it belongs to another organisation.`);
}

function readSeq(value: string, param: string): number {
  if (!seqPattern.test(value)) throw new QuantumChatError('invalid_value', `Invalid value for '${param}': expected the sequence number of a frame (a non-negative integer), got '${value.slice(0, 40)}'.`, { param });
  return Number(value);
}

/** Where a resume starts: `Last-Event-ID` or `?starting_after=` (both: they must agree), else from the start. */
export function resumePosition(request: ChatHttpRequest): number {
  const header = headerValue(request.headers, 'last-event-id');
  const query = new URLSearchParams(request.query ?? '').get('starting_after');
  const fromHeader = header === undefined || header === '' ? undefined : readSeq(header.trim(), 'Last-Event-ID');
  const fromQuery = query === null ? undefined : readSeq(query, 'starting_after');
  if (fromHeader !== undefined && fromQuery !== undefined && fromHeader !== fromQuery) {
    throw new QuantumChatError('invalid_value', `'Last-Event-ID' (${fromHeader}) and 'starting_after' (${fromQuery}) disagree; send one of them.`, { param: 'starting_after' });
  }
  return fromHeader ?? fromQuery ?? 0;
}

/** A stream's status as `cancel` answers it. */
function statusBody(id: string, status: string): string {
  return JSON.stringify({ id, object: 'chat.completion.stream', status });
}

/**
 * Resumable chat streams (decisions §4.7): starting them, and the three routes on them
 * (`…/{id}/stream`, `…/{id}`, `…/{id}/cancel`). Framework-neutral like the handler that
 * owns it, so every host serves them.
 */
export class ResumableStreams {
  readonly store: StreamStore;
  readonly resumableByDefault: boolean;
  readonly refuseReason: string | undefined;
  readonly #runs: LocalRuns;
  readonly #runTimeoutMs: number;
  readonly #keepAliveMs: number;
  readonly #stallTimeoutMs: number;
  readonly #now: () => number;
  readonly #report: (event: StreamEvent) => void;

  constructor(options: StreamsOptions, timing: { keepAliveMs: number; stallTimeoutMs: number; now: () => number }) {
    this.store = options.store ?? createMemoryStreamStore({ now: timing.now });
    this.resumableByDefault = options.resumableByDefault === true;
    this.refuseReason = options.refuseReason;
    this.#runs = new LocalRuns(options.maxDetachedPerOrganisation ?? 32);
    this.#runTimeoutMs = options.runTimeoutMs ?? 600_000;
    this.#keepAliveMs = timing.keepAliveMs;
    this.#stallTimeoutMs = timing.stallTimeoutMs;
    this.#now = timing.now;
    const onStreamEvent = options.onStreamEvent;
    this.#report = (event) => {
      try {
        onStreamEvent?.(event);
      } catch {
        // Reporting must never alter the response.
      }
    };
  }

  /** Resumable runs this instance produces right now. */
  get running(): number {
    return this.#runs.size;
  }

  /**
   * Starts a resumable stream: the run writes its frames to the store, its client reads them
   * back from there like any resume. A failure before the first frame is still a real HTTP error.
   */
  start(settings: RunSettings, principal: Principal, headers: Record<string, string>, wire?: StreamWire): Promise<ChatHttpResponse> {
    const client = settings.client;
    const id = wire?.id ?? settings.generateId('completion');
    const connection = new DetachableConnection(client);
    const kind = wire?.kind ?? `chat:${settings.streamFormat}`;
    // The run needs neither keep-alive nor stall guard: each follower has its own. Copied with
    // `Object.assign`: a literal that starts with a spread gets a hidden class per stream on Node 20.
    const run: RunSettings = Object.assign({}, settings, { completionId: id, client: connection, keepAliveIntervalMs: 0, stallTimeoutMs: 0 });
    const begin = (frames: AsyncIterator<string> | Promise<AsyncIterator<string>>, startNow: boolean): Promise<ChatHttpResponse> => {
      if (wire?.outlivesClient !== false) connection.detach();
      const runs = this.#runs;
      const producer = new StreamProducer(this.store, id, { owner: streamOwner(principal), kind, createdAt: this.#now() }, frames, (ended) => runs.remove(ended), this.#runTimeoutMs);
      runs.add(producer);
      runs.attach(producer);
      const created = producer.start();
      this.#report('started');
      const following = followStream({
        store: this.store,
        id,
        after: 0,
        kind,
        connection: client,
        keepAliveMs: this.#keepAliveMs,
        stallTimeoutMs: this.#stallTimeoutMs,
        onEnded: () => runs.release(producer),
        startNow,
      });
      const respond = (events: AsyncIterable<string>): ChatHttpResponse => ({ status: 200, headers: sseHeadersWith(headers, id), events });
      // A shared store first makes the stream known to every instance: a resume sent as soon as the id is seen finds it.
      return created === undefined ? following.then(respond) : Promise.all([following, created]).then(([events]) => respond(events));
    };
    const started = runToStream(run, wire?.makeFramer);
    const keepAliveMs = this.#keepAliveMs;
    if (!(keepAliveMs > 0 && keepAliveMs < Number.POSITIVE_INFINITY)) return started.then((frames) => begin(frames, false));
    // As a plain stream (decisions §4.6): an engine still silent after the keep-alive interval no
    // longer holds the response back; a failure after that is the stream's error frame.
    return new Promise((resolve, reject) => {
      let begun = false;
      const timer = setTimeout(() => {
        if (client.closed) return;
        begun = true;
        resolve(begin(started, true));
      }, keepAliveMs);
      started.then(
        (frames) => {
          if (begun) return;
          clearTimeout(timer);
          resolve(begin(frames, false));
        },
        (error: unknown) => {
          if (begun) return;
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  /**
   * Starts a run that nobody reads yet (a background response): its frames go to the store,
   * where any instance can follow or cancel it. Counted as a run without a reader (the
   * organisation's cap applies). Resolves once every instance can find it.
   */
  runDetached(settings: RunSettings, principal: Principal, wire: StreamWire): { created: void | Promise<void>; frames: Promise<AsyncIterator<string>> } {
    const connection = new DetachableConnection(settings.client);
    connection.detach();
    const run: RunSettings = Object.assign({}, settings, { client: connection, keepAliveIntervalMs: 0, stallTimeoutMs: 0 });
    const frames = runToStream(run, wire.makeFramer);
    const runs = this.#runs;
    const producer = new StreamProducer(this.store, wire.id, { owner: streamOwner(principal), kind: wire.kind, createdAt: this.#now() }, frames, (ended) => runs.remove(ended), this.#runTimeoutMs);
    runs.add(producer);
    const created = producer.start();
    this.#report('started');
    runs.attach(producer);
    runs.release(producer);
    return { created, frames };
  }

  /**
   * Follows a stream of another wire (`kind`) from after frame `after`: undefined when it is
   * unknown, expired, another owner's or of another kind.
   */
  async follow(request: ChatHttpRequest, principal: Principal, id: string, kind: string, after: number): Promise<AsyncIterableIterator<string> | undefined> {
    const info = await this.store.describe(id);
    if (info === undefined || info.meta.owner !== streamOwner(principal) || info.meta.kind !== kind) return undefined;
    this.#report('resumed');
    const runs = this.#runs;
    const producer = runs.get(id);
    if (producer !== undefined) runs.attach(producer);
    return followStream({
      store: this.store,
      id,
      after,
      kind,
      connection: request.connection,
      keepAliveMs: this.#keepAliveMs,
      stallTimeoutMs: this.#stallTimeoutMs,
      ...(producer !== undefined ? { onEnded: () => runs.release(producer) } : {}),
    });
  }

  /** Asks a stream's producer, wherever it runs, to stop (a local one at once). */
  async requestCancel(id: string): Promise<void> {
    const local = this.#runs.get(id);
    if (local !== undefined) local.cancel();
    else await this.store.requestCancel(id);
  }

  async #find(principal: Principal, id: string): Promise<StreamInfo> {
    const info = await this.store.describe(id);
    // Another organisation's stream is as unknown as a made-up id: ids must not leak.
    if (info === undefined || info.meta.owner !== streamOwner(principal) || !info.meta.kind.startsWith('chat:')) throw streamNotFound(id);
    return info;
  }

  /** `GET …/chat/completions/{id}/stream`: the frames after the client's last, then the live ones, to the end. */
  async resume(request: ChatHttpRequest, principal: Principal, id: string): Promise<ChatHttpResponse> {
    const after = resumePosition(request);
    const info = await this.#find(principal, id);
    this.#report('resumed');
    const runs = this.#runs;
    const producer = runs.get(id);
    if (producer !== undefined) runs.attach(producer);
    const events = await followStream({
      store: this.store,
      id,
      after,
      kind: info.meta.kind,
      connection: request.connection,
      keepAliveMs: this.#keepAliveMs,
      stallTimeoutMs: this.#stallTimeoutMs,
      ...(producer !== undefined ? { onEnded: () => runs.release(producer) } : {}),
    });
    return { status: 200, headers: sseHeadersWith({}, id), events };
  }

  /** `GET …/chat/completions/{id}`: the finished stream as a `chat.completion`; 409 while it runs. */
  async result(principal: Principal, id: string): Promise<ChatHttpResponse> {
    const info = await this.#find(principal, id);
    if (info.state === 'running') {
      throw new QuantumChatError('stream_in_progress', `The stream '${id}' is still running; its result is ready once it ends (follow it at .../${id}/stream).`, {
        headers: { 'retry-after': '1' },
      });
    }
    const frames = (await this.store.readAll(id)) ?? [];
    const result = completionFromFrames(frames);
    const json = { 'content-type': 'application/json; charset=utf-8', 'x-quantum-stream-id': id };
    if (result.kind === 'completion') return { status: 200, headers: json, body: result.body };
    // The status its code has anywhere (409 cancelled, 502 stream_lost, 504 upstream_timeout, ...).
    const code = result.envelope.error.code;
    const status = isErrorCode(code) ? describeErrorCode(code).status : 500;
    return { status, headers: json, body: JSON.stringify(result.envelope) };
  }

  /** `POST …/chat/completions/{id}/cancel`: stops the run (idempotent); answers the stream's status. */
  async cancel(principal: Principal, id: string): Promise<ChatHttpResponse> {
    const info = await this.#find(principal, id);
    const json = { 'content-type': 'application/json; charset=utf-8', 'x-quantum-stream-id': id };
    if (info.state === 'ended') {
      const frames = (await this.store.readAll(id)) ?? [];
      const last = frames.at(-1)?.frame ?? '';
      const status = last.includes('data: [DONE]') ? 'completed' : last.includes('"cancelled"') ? 'cancelled' : 'failed';
      return { status: 200, headers: json, body: statusBody(id, status) };
    }
    this.#report('cancelled');
    const local = this.#runs.get(id);
    if (local !== undefined) local.cancel();
    else await this.store.requestCancel(id);
    return { status: 200, headers: json, body: statusBody(id, 'cancelled') };
  }
}
