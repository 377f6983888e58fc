import pino from 'pino';

/** Where pino writes: one JSON line per call. */
export interface LogDestination {
  write(line: string): void;
  /** Hands the held lines to the writer now (they are written asynchronously). */
  flush(): void;
  /** Flushes, then writes every later line at once: for the last lines of a closing server. */
  close(): void;
}

export interface LogDestinationOptions {
  /** The file descriptor; stdout by default. */
  fd?: number;
  /** Held lines are written once the next would not fit in this many bytes; 65536 by default. */
  bufferSize?: number;
  /** ...or this long after the first held line; 200 ms by default. */
  flushDelayMs?: number;
}

/** Destinations still holding lines: flushed synchronously if the process exits. */
const open = new Set<{ flush(): void; stream: { flushSync(): void } }>();
let exitHookInstalled = false;

function flushAllOnExit(): void {
  for (const destination of open) {
    try {
      destination.flush();
      destination.stream.flushSync();
    } catch {
      // Exiting: nothing left to report to.
    }
  }
}

/**
 * The ready server's log destination: stdout, in batches. pino's default destination starts one
 * asynchronous write (a thread-pool round trip, two thread wake-ups) per line, three per chat
 * request; this one holds lines until `bufferSize` bytes have gathered or `flushDelayMs` has
 * passed since the first held one, then hands them to the same asynchronous writer (pino's
 * sonic-boom) in one piece. The lines are unchanged, in order. A busy server writes 64 KiB at a
 * time; a quiet one still shows each line within `flushDelayMs`. Held lines are written
 * synchronously if the process exits (not if it is killed with SIGKILL).
 *
 * @example
 * const app = Fastify({ logger: { level: 'info', stream: createLogDestination() } });
 */
export function createLogDestination(options: LogDestinationOptions = {}): LogDestination {
  // 64 KiB: each write is a thread-pool round trip (two thread wake-ups on the server's core);
  // at 16 KiB a busy server still paid one every twenty requests.
  const { fd = 1, bufferSize = 65_536, flushDelayMs = 200 } = options;
  const stream = byteDestination(fd);
  const held = utf8LineBuffer(bufferSize);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let direct = false;

  function flush(): void {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    const lines = held.take();
    if (lines !== undefined) stream.write(lines);
  }

  const entry = { flush, stream };
  open.add(entry);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', flushAllOnExit);
  }

  return {
    write(line) {
      if (direct) {
        stream.write(Buffer.from(line));
        return;
      }
      if (!held.fits(line)) {
        flush();
        // A line longer than the whole buffer goes on its own, after the held ones.
        if (!held.fits(line)) {
          stream.write(Buffer.from(line));
          return;
        }
      }
      held.append(line);
      if (timer === undefined) {
        timer = setTimeout(flush, flushDelayMs);
        timer.unref();
      }
    },
    flush,
    close() {
      flush();
      direct = true;
      // From now on lines go straight to sonic-boom, which pino flushes itself at exit.
      open.delete(entry);
    },
  };
}

/** sonic-boom as it is in `contentMode: 'buffer'` (its types know only text). */
interface ByteWriter {
  write(bytes: Buffer): boolean;
  flushSync(): void;
}

/** pino's asynchronous writer, given bytes: given a string, it measured and encoded it twice per write. */
function byteDestination(fd: number): ByteWriter {
  return pino.destination({ dest: fd, sync: false, contentMode: 'buffer' }) as unknown as ByteWriter;
}

/**
 * Lines encoded one by one into a buffer of `size` bytes. Why not one string of them: a single
 * line with a character beyond Latin-1 (a key's display has `…`) made the whole joined string
 * two bytes a character, and every line in it paid the slow encoding.
 */
function utf8LineBuffer(size: number) {
  let bytes = Buffer.allocUnsafe(size);
  let used = 0;
  return {
    fits(line: string): boolean {
      // UTF-8 takes at most 3 bytes per UTF-16 unit: the exact length only when that bound fails.
      return line.length * 3 <= size - used || Buffer.byteLength(line) <= size - used;
    },
    append(line: string): void {
      used += bytes.write(line, used);
    },
    /** The held bytes, or undefined if there are none; a new buffer takes their place. */
    take(): Buffer | undefined {
      if (used === 0) return undefined;
      const lines = bytes.subarray(0, used);
      bytes = Buffer.allocUnsafe(size);
      used = 0;
      return lines;
    },
  };
}
