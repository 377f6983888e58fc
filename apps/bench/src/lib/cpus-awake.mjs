// Idle CPUs held polling while the benchmarks run (Linux PM QoS: a CPU latency request of 0 µs).
import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * Asks the kernel to keep idle CPUs polling instead of halting, for as long as this process
 * lives (the request holds while its file stays open). Why: on a virtual machine, waking a
 * halted vCPU costs the host a round trip, and it is charged to the process whose bytes wake it.
 * A server that leaves its load generator idle between answers then pays about 10 µs an answer
 * in the kernel (`sock_def_readable` → `try_to_wake_up`) that a faster one does not, and the
 * slower side of a comparison looks slower still. A polling CPU is woken without that. Needs
 * root (else the run goes on without it, and the report says so).
 */
export function holdCpusAwake() {
  try {
    const fd = openSync('/dev/cpu_dma_latency', 'w');
    writeSync(fd, Buffer.from(new Int32Array([0]).buffer));
    return { held: true, release: () => closeSync(fd) };
  } catch (error) {
    return { held: false, reason: error?.code ?? String(error), release: () => undefined };
  }
}
