/** The longest stretch without a turn of the event loop while a monitor ran. */
export interface Stall {
  /**
   * CPU time this process spent in it: the work that held the event loop. Unlike elapsed time
   * it does not grow when the machine is busy and the process waits for a core.
   */
  cpuMs: number;
  /** Elapsed time of the longest stretch, for the figures. */
  elapsedMs: number;
}

function cpuMsNow(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/**
 * Measures the longest time the event loop went without running a 1 ms interval: the worst
 * stall while it ran, in CPU time and in elapsed time. Unlike `monitorEventLoopDelay` it also
 * sees a stall that starts right after it is started and ends right before it is stopped.
 */
export function startStallMonitor(): { stop(): Promise<Stall> } {
  let last = performance.now();
  let lastCpu = cpuMsNow();
  const longest: Stall = { cpuMs: 0, elapsedMs: 0 };
  const tick = () => {
    const now = performance.now();
    const cpu = cpuMsNow();
    longest.elapsedMs = Math.max(longest.elapsedMs, now - last);
    longest.cpuMs = Math.max(longest.cpuMs, cpu - lastCpu);
    last = now;
    lastCpu = cpu;
  };
  const timer = setInterval(tick, 1);
  return {
    async stop() {
      await new Promise((resolve) => setTimeout(resolve, 2));
      clearInterval(timer);
      tick();
      return longest;
    },
  };
}
