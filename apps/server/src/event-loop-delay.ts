import { monitorEventLoopDelay } from 'node:perf_hooks';

/** The histogram's clock: it ticks every 10 ms while the loop is free. */
const resolutionMs = 10;

/** The event loop's recent delay, refreshed every sampling interval. */
export interface EventLoopDelay {
  /** The mean delay of the last interval, in milliseconds. */
  readonly delayMs: number;
  stop(): void;
}

/**
 * Samples the event loop's delay every `intervalMs`: the mean of the ticks the interval saw.
 * An interval that saw no tick is not an infinite delay (`@fastify/under-pressure` reads it
 * so, and then shed requests on an idle server whose interval was under three ticks): the
 * first tick after a reset only restarts the histogram's clock. It is measured instead by how
 * late this sampler's own timer fired.
 *
 * @example
 * const loop = sampleEventLoopDelay(1000);
 * if (loop.delayMs > 200) refuse();
 */
export function sampleEventLoopDelay(intervalMs: number): EventLoopDelay {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  let delayMs = 0;
  let sampledAt = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    delayMs = Math.max(0, histogram.count > 0 ? histogram.mean / 1e6 - resolutionMs : now - sampledAt - intervalMs);
    sampledAt = now;
    histogram.reset();
  }, intervalMs);
  timer.unref();
  return {
    get delayMs() {
      return delayMs;
    },
    stop() {
      clearInterval(timer);
      histogram.disable();
    },
  };
}
