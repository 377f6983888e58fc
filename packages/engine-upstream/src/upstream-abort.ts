import { EventEmitter } from 'node:events';

/**
 * The abort of one upstream request, in the shape undici's `request` accepts as its `signal`
 * (an EventEmitter with `aborted` and `reason`). Why not an `AbortController`: Node makes each
 * one's signal by setting its prototype at run time, which cost about 2 µs per relayed request,
 * and nothing but undici and the attempt itself ever reads this one.
 */
export class UpstreamAbort extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }

  /** A real `AbortSignal` that follows this abort, for a `fetch` of the caller's. */
  toAbortSignal(): AbortSignal {
    const controller = new AbortController();
    if (this.aborted) controller.abort(this.reason);
    else this.once('abort', () => controller.abort(this.reason));
    return controller.signal;
  }
}
