import { connect, type Socket } from 'node:net';

/** A request written on a raw socket, so a test can destroy (or never read) the connection at will. */
export interface RawExchange {
  socket: Socket;
  /** Everything read so far (nothing for a client that never reads). */
  received(): string;
  /** `performance.now()` of the first response byte. */
  firstByteAt(): number | undefined;
  /** The whole response arrived: `data: [DONE]`, or a body as long as its `content-length`. */
  complete(): boolean;
  /** Resolves when the socket is connected and the request written. */
  sent: Promise<void>;
}

export interface RawExchangeOptions {
  path?: string;
  headers?: Record<string, string>;
  body: string;
  /** Never read the response: the client's receive buffer fills and the server's writes block. */
  neverRead?: boolean;
}

export function openRawExchange(port: number, options: RawExchangeOptions): RawExchange {
  const socket = connect({ host: '127.0.0.1', port });
  const chunks: Buffer[] = [];
  let firstByte: number | undefined;
  let text: string | undefined;
  if (!options.neverRead) {
    socket.on('data', (chunk: Buffer) => {
      firstByte ??= performance.now();
      chunks.push(chunk);
      text = undefined;
    });
  }
  socket.on('error', () => undefined);
  const body = Buffer.from(options.body);
  const headers = { host: '127.0.0.1', 'content-type': 'application/json', 'content-length': String(body.byteLength), ...options.headers };
  const head = `POST ${options.path ?? '/v1/chat/completions'} HTTP/1.1\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
  const sent = new Promise<void>((resolve, reject) => {
    socket.once('connect', () => socket.write(Buffer.concat([Buffer.from(head), body]), (error) => (error ? reject(error) : resolve())));
    socket.once('error', reject);
  });
  const received = () => (text ??= Buffer.concat(chunks).toString('utf8'));
  return {
    socket,
    sent,
    received,
    firstByteAt: () => firstByte,
    complete() {
      const all = received();
      if (all.includes('data: [DONE]')) return true;
      const split = all.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/iu.exec(all.slice(0, split))?.[1];
      return split >= 0 && length !== undefined && Buffer.byteLength(all.slice(split + 4)) >= Number(length);
    },
  };
}
