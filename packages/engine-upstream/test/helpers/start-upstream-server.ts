import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/** What the fake upstream saw of one request. */
export interface UpstreamRequestRecord {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** The client's port: the same for requests that reused one connection. */
  remotePort: number | undefined;
  /** `performance.now()` when the request's socket closed, once it has. */
  socketClosedAt?: number;
}

/** How the fake upstream answers one request. */
export type UpstreamScenario = (request: IncomingMessage, response: ServerResponse, record: UpstreamRequestRecord) => void | Promise<void>;

export interface UpstreamServer {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  requests: UpstreamRequestRecord[];
  /** TCP connections accepted so far (a reused connection counts once). */
  connectionsAccepted(): number;
  close(): Promise<void>;
}

/** A real node:http server on 127.0.0.1:0 that plays a scenario, recording every request. */
export async function startUpstreamServer(scenario: UpstreamScenario): Promise<UpstreamServer> {
  const requests: UpstreamRequestRecord[] = [];
  /** The records of each kept-alive socket, stamped when it closes (one listener per socket). */
  const recordsBySocket = new WeakMap<Socket, UpstreamRequestRecord[]>();
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const record: UpstreamRequestRecord = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: text === '' ? {} : JSON.parse(text), remotePort: request.socket.remotePort };
    requests.push(record);
    const socketRecords = recordsBySocket.get(request.socket);
    if (socketRecords) socketRecords.push(record);
    else {
      recordsBySocket.set(request.socket, [record]);
      request.socket.once('close', () => {
        const closedAt = performance.now();
        for (const each of recordsBySocket.get(request.socket) ?? []) each.socketClosedAt ??= closedAt;
      });
    }
    try {
      await scenario(request, response, record);
    } catch {
      response.destroy();
    }
  });
  let connections = 0;
  server.on('connection', () => connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    connectionsAccepted: () => connections,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

export const sseHeaders = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' };

/** The frames of a transcript, each with its blank line: `data: …\n\n`, `: keep-alive\n\n`. */
function transcriptFrames(text: string): string[] {
  return text.match(/[\s\S]*?(?:\r\n\r\n|\n\n|$)/g)!.filter((frame) => frame !== '');
}

export const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/**
 * Writes a transcript frame by frame, a pause between frames so each arrives in its own read;
 * with `cutAt`, the bytes are instead cut at those offsets (inside lines, tags and characters).
 */
export async function sendTranscript(response: ServerResponse, text: string, options: { pauseMs?: number; cutAt?: number[]; end?: boolean } = {}): Promise<void> {
  if (!response.headersSent) response.writeHead(200, sseHeaders);
  const bytes = Buffer.from(text, 'utf8');
  const pieces = options.cutAt
    ? [0, ...options.cutAt.filter((offset) => offset > 0 && offset < bytes.length).sort((a, b) => a - b), bytes.length].flatMap((start, index, all) =>
        index + 1 < all.length ? [bytes.subarray(start, all[index + 1])] : [],
      )
    : transcriptFrames(text).map((frame) => Buffer.from(frame, 'utf8'));
  for (const piece of pieces) {
    if (response.destroyed) return;
    response.write(piece);
    // Cut pieces only need separate writes; frames get a timer pause so each is its own read.
    if (options.cutAt) await new Promise(setImmediate);
    else await pause(options.pauseMs ?? 1);
  }
  if (options.end !== false) response.end();
}

/** A streamed chunk in the plainest OpenAI shape. */
export function contentChunk(text: string, finishReason: string | null = null): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1, model: 'up', choices: [{ index: 0, delta: { content: text }, finish_reason: finishReason }] })}\n\n`;
}
