import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the fixture server received. */
interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FixtureServer {
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

function pause(manyPieces: boolean): Promise<void> {
  // A real timer between few pieces keeps them in separate TCP segments; a macrotask is
  // enough (and fast) when writing one byte at a time.
  return new Promise((resolve) => (manyPieces ? setImmediate(resolve) : setTimeout(resolve, 1)));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function writePieces(response: ServerResponse, pieces: readonly Uint8Array[]): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  response.flushHeaders();
  response.socket?.setNoDelay(true);
  const manyPieces = pieces.length > 64;
  for (const piece of pieces) {
    if (response.destroyed) return;
    response.write(piece);
    await pause(manyPieces);
  }
  response.end();
}

/**
 * A 127.0.0.1 server that answers every request with one stream, written piece by piece as
 * given (so a client sees the cuts), and records what it was sent.
 */
export async function startFixtureServer(pieces: readonly Uint8Array[]): Promise<FixtureServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      await writePieces(response, pieces);
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
