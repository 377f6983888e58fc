/** What `wait` settles with when the interval passed without an engine event. @internal */
export const keepAliveTick = Symbol('keep-alive');

/**
 * Keep-alive ticks for one stream from one lazy timer rather than a timer per engine event
 * (setting and clearing one per event cost more than encoding the event): `wait(next)`
 * settles with `next`, or with a tick once the engine has been silent for the interval. The
 * timer re-arms itself for the time left, and stays off while nobody waits.
 *
 * @internal
 */
export function createKeepAliveClock(intervalMs: number) {
  const enabled = intervalMs > 0 && intervalMs < Number.POSITIVE_INFINITY;
  let waitingSince = 0;
  let wake: ((tick: typeof keepAliveTick) => void) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = () => {
    timer = undefined;
    if (wake === undefined) return;
    const left = intervalMs - (Date.now() - waitingSince);
    if (left > 0) {
      timer = setTimeout(check, left);
      return;
    }
    const resolve = wake;
    wake = undefined;
    resolve(keepAliveTick);
  };
  return {
    wait<T>(next: Promise<T>): Promise<T | typeof keepAliveTick> {
      if (!enabled) return next;
      waitingSince = Date.now();
      timer ??= setTimeout(check, intervalMs);
      return new Promise((resolve, reject) => {
        const waker = (tick: typeof keepAliveTick) => resolve(tick);
        wake = waker;
        next.then(
          (value) => {
            if (wake === waker) wake = undefined;
            resolve(value);
          },
          (error: unknown) => {
            if (wake === waker) wake = undefined;
            reject(error);
          },
        );
      });
    },
    stop(): void {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      wake = undefined;
    },
  };
}
