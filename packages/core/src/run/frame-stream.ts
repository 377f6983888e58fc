import { hasReadyEvents, type ReadyEvents } from '../engine/events-in-batches.js';
import { StreamStalledError } from './stream-stall.js';

/** What a frame stream asks of its owner. @internal */
export interface FrameStreamHooks<Event> {
  /** The frames of one event as one string ('' for none). */
  encode(event: Event): string;
  /** Whether the event is the engine's last (its frames end the stream). */
  isLast(event: Event): boolean;
  /**
   * Called with the last event before its frames are encoded; a promise holds them back until
   * it resolves (its rejection ends the stream with the failure frame instead).
   */
  beforeLast?: ((event: Event) => void | Promise<void>) | undefined;
  /** The first frame of an event (not a keep-alive) is handed to the consumer: the time to first token. */
  onFirstFrame?: (() => void) | undefined;
  /** The engine finished: called as its last frames are handed out. */
  onFinished(): void;
  /** The frame telling the client how the stream failed, or `undefined` when nobody can read one. */
  failure(error: unknown): string | undefined;
  /** The consumer stopped pulling for longer than the stall timeout: stop the engine, close the connection. */
  onStalled(error: Error): void;
  /** The stream ended, however it ended (runs once). */
  onEnded(): void;
}

export interface FrameStreamOptions {
  /** Engine silence before a keep-alive frame; 0 for never. */
  keepAliveMs: number;
  keepAliveFrame: string;
  /** How long a handed-out frame may stay without the next pull before the stream is given up; 0 for never. */
  stallTimeoutMs: number;
  /** An engine error for a source that ended without its last event. */
  endedEarly(): Error;
}

const done: IteratorResult<string> = { done: true, value: undefined };
/** Past this many characters, the frames gathered from one burst of events are handed out without waiting for the rest. */
const maxGatheredCharacters = 64 * 1024;
const usable = (milliseconds: number) => milliseconds > 0 && milliseconds < Number.POSITIVE_INFINITY;

/**
 * A stream's SSE frames, pulled from the engine one event per pull, written by hand rather
 * than as async generators: each frame costs the engine's own promise and one more, where a
 * generator, a keep-alive race and a stall guard stacked on each other cost five or six
 * (the largest part of the adapters' per-chunk cost). One lazy timer per stream serves both
 * the keep-alive (the engine is silent while the consumer waits) and the stall guard (the
 * consumer stops pulling: its socket is full); nothing is armed or cleared per frame.
 *
 * @internal
 */
export class FrameStream<Event> implements AsyncIterableIterator<string> {
  readonly #source: AsyncIterator<Event>;
  /** The source, when it hands over the events it already holds (see `eventsInBatches`). */
  readonly #readySource: ReadyEvents<Event> | undefined;
  readonly #hooks: FrameStreamHooks<Event>;
  readonly #options: FrameStreamOptions;
  /** The engine's next event, not encoded yet (it arrived with nobody waiting, or it is the last one, held). */
  #next: Event | undefined = undefined;
  /** The engine's iterator ended (after `#next`, if any). */
  #sourceDone = false;
  #failed: { error: unknown } | undefined;
  /** An engine `next()` is pending. */
  #inflight = false;
  /** Resolves the pull the consumer waits on. */
  #waiter: ((step: IteratorResult<string>) => void) | undefined;
  /** The promise of the pull the waiter belongs to. */
  #pull: Promise<IteratorResult<string>> | undefined;
  /** A frame handed out before anything else: the keep-alive of a stream started before its first event. */
  #leading: string | undefined;
  /** The last frames were handed out: the next pull ends the stream. */
  #closing = false;
  /** A frame of an event was handed out (keep-alives do not count). */
  #started = false;
  /** `beforeLast` ran for the last event. */
  #lastReleased = false;
  /** `beforeLast`'s promise holds the last event's frames back. */
  #holding = false;
  #ended = false;
  #stalled: Error | undefined;
  /** When the consumer started waiting for the engine (keep-alive). */
  #silentSince = 0;
  /** When the consumer was last handed a frame (stall). */
  #idleSince = Date.now();
  #timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * `first` is the engine's first step, or its pending `next()` when the stream starts before
   * the engine spoke: the keep-alive interval passed, so the first frame is a keep-alive.
   */
  constructor(source: AsyncIterator<Event>, first: IteratorResult<Event> | Promise<IteratorResult<Event>>, hooks: FrameStreamHooks<Event>, options: FrameStreamOptions) {
    this.#source = source;
    this.#readySource = hasReadyEvents(source) ? source : undefined;
    this.#hooks = hooks;
    this.#options = options;
    if (first instanceof Promise) {
      this.#inflight = true;
      this.#leading = options.keepAliveFrame;
      first.then(this.#onStep, this.#onError);
    } else {
      this.#keep(first);
    }
    const { keepAliveMs, stallTimeoutMs } = options;
    if (usable(keepAliveMs) || usable(stallTimeoutMs)) this.#arm(Date.now());
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<string>> {
    if (this.#stalled !== undefined) return Promise.reject(this.#stalled);
    if (this.#ended) return Promise.resolve(done);
    if (this.#closing) {
      this.#end();
      return Promise.resolve(done);
    }
    // A pull while another waits is served after it, in order, as an async generator would.
    if (this.#waiter !== undefined) return this.#pull!.then(this.#pullAgain, this.#pullAgain);
    if (this.#leading !== undefined) {
      const frame = this.#leading;
      this.#leading = undefined;
      this.#idleSince = Date.now();
      return Promise.resolve({ done: false, value: frame });
    }
    // One executor for every pull (no closure or holder object per frame).
    const pull = new Promise(this.#capture);
    this.#pull = pull;
    this.#silentSince = Date.now();
    this.#advance();
    return pull;
  }

  readonly #capture = (resolve: (step: IteratorResult<string>) => void): void => {
    this.#waiter = resolve;
  };

  readonly #pullAgain = (): Promise<IteratorResult<string>> => this.next();

  return(): Promise<IteratorResult<string>> {
    this.#end();
    return Promise.resolve(done);
  }

  /**
   * Serves the waiting consumer from what is at hand, or asks the engine for its next event.
   * The events the engine already holds are encoded together and handed out as one pull (the
   * last event's frames in a pull of their own: `beforeLast` may hold them back).
   */
  #advance(): void {
    let gathered = '';
    while (this.#waiter !== undefined && !this.#ended) {
      if (this.#failed !== undefined) {
        const { error } = this.#failed;
        this.#failed = undefined;
        this.#fail(error, gathered);
        return;
      }
      if (this.#holding) return;
      const event = this.#next ?? this.#readySource?.takeReady();
      if (event === undefined) {
        if (gathered !== '') this.#deliver(gathered);
        else if (this.#sourceDone) {
          this.#sourceDone = false;
          this.#fail(this.#options.endedEarly(), '');
        } else if (!this.#inflight) {
          this.#inflight = true;
          this.#source.next().then(this.#onStep, this.#onError);
        }
        return;
      }
      this.#next = event;
      if (gathered !== '' && this.#isLast(event)) {
        this.#deliver(gathered);
        return;
      }
      if (!this.#lastReleased && this.#hooks.beforeLast !== undefined && this.#holdLast(event)) return;
      this.#next = undefined;
      let frame: string;
      let last: boolean;
      try {
        frame = this.#hooks.encode(event);
        last = this.#hooks.isLast(event);
        if (last) this.#hooks.onFinished();
      } catch (error) {
        this.#fail(error, gathered);
        return;
      }
      if (frame !== '' && !this.#started) {
        this.#started = true;
        this.#hooks.onFirstFrame?.();
      }
      gathered += frame;
      if (last) {
        this.#closing = true;
        if (gathered === '') this.#settleWaiter(done, true);
        else this.#deliver(gathered);
        return;
      }
      if (gathered.length >= maxGatheredCharacters) {
        this.#deliver(gathered);
        return;
      }
    }
  }

  /** `isLast`, a throw counted as last: the frames gathered go out first, and the next pull meets the failure. */
  #isLast(event: Event): boolean {
    try {
      return this.#hooks.isLast(event);
    } catch {
      return true;
    }
  }

  /** Keeps a step of the engine's for the next pull. */
  #keep(step: IteratorResult<Event>): void {
    if (step.done === true) this.#sourceDone = true;
    else this.#next = step.value;
  }

  /**
   * Runs `beforeLast` for the last event (kept in `#next`); true when the stream must wait:
   * its promise holds the frames back, or it threw.
   */
  #holdLast(event: Event): boolean {
    let held: void | Promise<void>;
    try {
      if (!this.#hooks.isLast(event)) return false;
      this.#lastReleased = true;
      held = this.#hooks.beforeLast!(event);
    } catch (error) {
      this.#next = undefined;
      this.#fail(error, '');
      return true;
    }
    if (held === undefined) return false;
    // Counted as the engine's silence: a long wait still gets its keep-alives.
    this.#holding = true;
    this.#inflight = true;
    held.then(
      () => {
        this.#holding = false;
        this.#inflight = false;
        if (!this.#ended) this.#advance();
      },
      (error: unknown) => {
        this.#holding = false;
        this.#next = undefined;
        this.#onError(error);
      },
    );
    return true;
  }

  readonly #onStep = (step: IteratorResult<Event>): void => {
    this.#inflight = false;
    if (this.#ended) return;
    this.#keep(step);
    this.#advance();
  };

  readonly #onError = (error: unknown): void => {
    this.#inflight = false;
    if (this.#ended) return;
    this.#failed = { error };
    this.#advance();
  };

  /** Ends the stream with the failure frame, after `gathered` (the frames of the events before it). */
  #fail(error: unknown, gathered: string): void {
    const frame = this.#hooks.failure(error);
    // The failure frame is the last one: the stream ends as the consumer gets it.
    const last = frame === undefined ? gathered : gathered + frame;
    this.#settleWaiter(last === '' ? done : { done: false, value: last }, true);
  }

  #deliver(frame: string): void {
    this.#settleWaiter({ done: false, value: frame }, false);
  }

  #settleWaiter(step: IteratorResult<string>, ending: boolean): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    this.#idleSince = Date.now();
    if (ending) this.#end();
    waiter?.(step);
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#hooks.onEnded();
    // A consumer still waiting (the stream was returned or failed under it) is told it ended.
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.(done);
  }

  /**
   * Arms the timer for the next moment something could be due: while the consumer waits, its
   * keep-alive; while it does not, its stall; and never later than the other interval from
   * now, in case the consumer changes state before then.
   */
  #arm(now: number): void {
    const { keepAliveMs, stallTimeoutMs } = this.#options;
    const keepAlive = usable(keepAliveMs);
    const stall = usable(stallTimeoutMs);
    let due: number;
    if (this.#waiter !== undefined) due = Math.min(keepAlive ? this.#silentSince + keepAliveMs : Infinity, stall ? now + stallTimeoutMs : Infinity);
    else due = Math.min(stall ? this.#idleSince + stallTimeoutMs : Infinity, keepAlive ? now + keepAliveMs : Infinity);
    this.#timer = setTimeout(this.#tick, Math.max(1, due - now));
  }

  readonly #tick = (): void => {
    this.#timer = undefined;
    if (this.#ended) return;
    const now = Date.now();
    const { keepAliveMs, keepAliveFrame, stallTimeoutMs } = this.#options;
    if (this.#waiter === undefined) {
      if (usable(stallTimeoutMs) && now - this.#idleSince >= stallTimeoutMs) {
        this.#stall();
        return;
      }
    } else if (usable(keepAliveMs) && this.#inflight && now - this.#silentSince >= keepAliveMs) {
      this.#deliver(keepAliveFrame);
    }
    this.#arm(now);
  };

  #stall(): void {
    const error = new StreamStalledError(this.#options.stallTimeoutMs);
    this.#stalled = error;
    this.#hooks.onStalled(error);
    this.#end();
  }
}
