import { isRunAborted, listenForAbort, stopListeningForAbort, type ChatEngineEvent, type ReadyEvents, type RunAbort } from '@quantum-chat/core';

/** How fast the reference engine hands out its events. Both default to 0: no timers at all. */
export interface PacingOptions {
  /** Wait this long before the first event, like a model's time to first token. */
  firstTokenDelayMs?: number;
  /** Hand out at most this many pieces per second after the first (each piece is about one token). */
  tokensPerSecond?: number;
}

type Step = IteratorResult<ChatEngineEvent, undefined>;

/** The events of one answer; each iterator also hands over what is at hand (`takeReady`), unpaced. */
interface PacedEvents extends AsyncIterable<ChatEngineEvent> {
  [Symbol.asyncIterator](): AsyncIterator<ChatEngineEvent, undefined> & ReadyEvents<ChatEngineEvent>;
}

const done: Step = { done: true, value: undefined };

/**
 * Plays a list of events as an async iterable, optionally paced with timers.
 *
 * It is a hand-written iterator rather than an `async function*` for one reason: an async
 * generator queues `return()` behind a pending `next()`, so a consumer that leaves during a
 * delay would wait it out. Here `return()` clears the timer and ends at once, and an abort
 * clears it and rejects the pending `next()` with `signal.reason`. Each `for await` gets its
 * own iterator, and `produce` runs on the first `next()` of each. The run's abort is read
 * through the context (`isRunAborted`), and listened to only while pacing can make it wait:
 * an unpaced answer makes no `AbortSignal`.
 *
 * @example
 * for await (const event of createPacedIterable(() => events, { tokensPerSecond: 20 }, context)) {}
 * @internal
 */
export function createPacedIterable(
  produce: () => ChatEngineEvent[],
  pacing: PacingOptions,
  context: RunAbort,
  /** Work to await before `produce` (counting a long prompt in turns), or nothing. */
  prepare?: () => Promise<unknown> | undefined,
): PacedEvents {
  const firstDelay = Math.max(0, pacing.firstTokenDelayMs ?? 0);
  const pieceDelay = pacing.tokensPerSecond && pacing.tokensPerSecond > 0 ? 1000 / pacing.tokensPerSecond : 0;
  const paced = firstDelay > 0 || pieceDelay > 0;
  return {
    [Symbol.asyncIterator](): AsyncIterator<ChatEngineEvent, undefined> & ReadyEvents<ChatEngineEvent> {
      let events: ChatEngineEvent[] | undefined;
      let position = 0;
      let finished = false;
      let pending: { timer: ReturnType<typeof setTimeout>; resolve: () => void; reject: (reason: unknown) => void } | undefined;
      let chain: Promise<unknown> = Promise.resolve();

      // Between pieces there is nothing to cancel: the next `step` sees the abort.
      const onAbort = (): void => {
        const waiting = pending;
        if (!waiting) return;
        finish();
        waiting.reject(context.signal.reason);
      };
      let listening = false;
      const finish = (): void => {
        finished = true;
        if (listening) stopListeningForAbort(context, onAbort);
        listening = false;
        if (pending) clearTimeout(pending.timer);
        pending = undefined;
      };
      const wait = (milliseconds: number): Promise<void> =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            pending = undefined;
            resolve();
          }, milliseconds);
          pending = { timer, resolve, reject };
        });

      const step = async (): Promise<Step> => {
        if (finished) return done;
        if (isRunAborted(context)) {
          finish();
          throw context.signal.reason;
        }
        if (!events) {
          const ready = prepare?.();
          if (ready !== undefined) {
            await ready;
            if (finished) return done; // return() was called meanwhile
            if (isRunAborted(context)) {
              finish();
              throw context.signal.reason;
            }
          }
          events = produce();
          if (paced) {
            listening = true;
            listenForAbort(context, onAbort);
          }
        }
        const event = events[position];
        if (!event) {
          finish();
          return done;
        }
        const delay = position === 0 ? firstDelay : event.type === 'finish' ? 0 : pieceDelay;
        if (delay > 0) await wait(delay);
        if (finished) return done; // return() was called during the wait
        position++;
        if (position === events.length) finish();
        return { done: false, value: event };
      };

      /** `next()` calls not settled yet: `takeReady` must not overtake them. */
      let waiting = 0;
      const settled = (): void => {
        waiting--;
      };

      return {
        next() {
          // Serialise overlapping next() calls, as an async generator would.
          waiting++;
          const result = chain.then(step);
          chain = result.then(settled, settled);
          return result;
        },
        // Unpaced, every event is at hand once planned: the core takes the rest after the first
        // without a promise each (see `eventsInBatches` in the core), a token-sized piece each.
        takeReady(): ChatEngineEvent | undefined {
          if (paced || events === undefined || finished || waiting > 0 || isRunAborted(context)) return undefined;
          const event = events[position];
          if (event === undefined) return undefined;
          position++;
          if (position === events.length) finish();
          return event;
        },
        async return() {
          const waiting = pending;
          finish();
          waiting?.resolve();
          return done;
        },
      };
    },
  };
}
