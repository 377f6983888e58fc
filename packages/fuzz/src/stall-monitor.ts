/**
 * Measures the longest time the event loop went without running a 1 ms interval: the worst
 * stall while it ran. Unlike `monitorEventLoopDelay` it also sees a stall that starts right
 * after it is started and ends right before it is stopped.
 */
export function startStallMonitor(): { stop(): Promise<number> } {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  return {
    async stop() {
      await new Promise((resolve) => setTimeout(resolve, 2));
      clearInterval(timer);
      return Math.max(longest, performance.now() - last);
    },
  };
}
