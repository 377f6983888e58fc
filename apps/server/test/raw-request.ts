import { connect, type Socket } from 'node:net';

/** A request whose head is sent in two parts, so it can straddle a moment (a SIGTERM). */
export interface SplitRequest {
  /** Sends the rest of the request and resolves with the raw response text once the socket closes. */
  finish(): Promise<string>;
}

/**
 * Opens a connection and sends a request head without its final blank line. Node counts the
 * connection as busy from its first byte, so a draining server neither closes it as idle nor
 * refuses it, and the request is then answered as one that arrived during the drain.
 *
 * @example
 * const request = await startSplitRequest(origin, 'GET', '/healthz');
 * process.kill(pid, 'SIGTERM');
 * const response = await request.finish(); // 'HTTP/1.1 503 ...'
 */
export async function startSplitRequest(origin: string, method: string, path: string, headers: Record<string, string> = {}, body = ''): Promise<SplitRequest> {
  const { hostname, port } = new URL(origin);
  const socket: Socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let received = '';
  socket.setEncoding('utf8').on('data', (text: string) => {
    received += text;
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const lines = [`${method} ${path} HTTP/1.1`, `host: ${hostname}:${port}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  if (body !== '') lines.push(`content-length: ${Buffer.byteLength(body)}`);
  socket.write(`${lines.join('\r\n')}\r\n`);
  return {
    async finish() {
      socket.write(`\r\n${body}`);
      await closed;
      return received;
    },
  };
}
