import { connect } from 'node:net';

/** Which part of the request never finishes arriving. */
export type TricklePhase = 'headers' | 'body';

export interface TrickleRequestOptions {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The request path, with its mount point: `/v1/chat/completions`. */
  path: string;
  headers?: Record<string, string>;
  /**
   * `headers`: the head never ends (a header line every `intervalMs`); `body`: the head ends,
   * and the body (a 1,000-byte `content-length`) comes one byte every `intervalMs`, never all.
   */
  phase: TricklePhase;
  /** Between two trickled pieces; 25 ms by default. */
  intervalMs?: number;
  /** When the helper stops waiting for the server and closes the socket itself. */
  giveUpAfterMs: number;
}

/** What a trickling client saw. */
export interface TrickleOutcome {
  /** Everything the server wrote. */
  raw: string;
  /** The status of the response, if one came. */
  status: number | undefined;
  headers: Record<string, string>;
  /** The response body (without chunked framing: our errors have a `content-length`). */
  body: string;
  /** The server closed the connection (false: the helper gave up after `giveUpAfterMs`). */
  closedByServer: boolean;
  /** Milliseconds from the first byte sent to the end: printed by tests, never asserted on. */
  heldMs: number;
}

function parseResponse(raw: string): Pick<TrickleOutcome, 'status' | 'headers' | 'body'> {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) return { status: undefined, headers: {}, body: '' };
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1]), headers, body: raw.slice(end + 4) };
}

/**
 * A slow client over a real socket: it sends a request whose head or body never finishes,
 * a piece at a time, and reports what the server answered and whether it closed the
 * connection. For proving a request timeout without waiting out the default one.
 *
 * @example
 * const outcome = await trickleRequest({ origin, path: '/v1/chat/completions', phase: 'body', giveUpAfterMs: 5000 });
 * expect(outcome.status).toBe(408);
 */
export function trickleRequest(options: TrickleRequestOptions): Promise<TrickleOutcome> {
  const { hostname, port } = new URL(options.origin);
  const intervalMs = options.intervalMs ?? 25;
  const socket = connect({ host: hostname, port: Number(port) });
  const started = performance.now();
  let raw = '';
  let closedByServer = true;
  let sent = 0;
  socket.setEncoding('utf8').on('data', (text: string) => {
    raw += text;
  });
  socket.on('error', () => undefined);
  const head = [`POST ${options.path} HTTP/1.1`, `host: ${hostname}:${port}`, ...Object.entries(options.headers ?? {}).map(([name, value]) => `${name}: ${value}`)];
  socket.once('connect', () => {
    if (options.phase === 'body') socket.write(`${[...head, 'content-type: application/json', 'content-length: 1000'].join('\r\n')}\r\n\r\n{`);
    else socket.write(`${head.join('\r\n')}\r\n`);
  });
  const trickle = setInterval(() => {
    if (socket.destroyed || !socket.writable) return;
    sent++;
    socket.write(options.phase === 'body' ? ' ' : `x-trickle-${sent}: ${sent}\r\n`);
  }, intervalMs);
  const giveUp = setTimeout(() => {
    closedByServer = false;
    socket.destroy();
  }, options.giveUpAfterMs);
  return new Promise((resolve) => {
    socket.once('close', () => {
      clearInterval(trickle);
      clearTimeout(giveUp);
      resolve({ raw, ...parseResponse(raw), closedByServer, heldMs: performance.now() - started });
    });
  });
}
