import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach } from 'vitest';
import { contentChunk, pause, sseHeaders } from './start-upstream-server.js';

/** How a stand-in replica answers: see {@link startReplica}. */
export type ReplicaMode =
  | { kind: 'ok'; chunks?: number; pauseMs?: number }
  | { kind: 'status'; status: number; retryAfterMs?: number }
  | { kind: 'hang' }
  /** Answers 200 and some chunks, then drops the connection. */
  | { kind: 'break-after'; chunks: number }
  /** Answers as `then` a request whose body `matches` (a poison prompt, a huge one), as `otherwise` the rest. */
  | { kind: 'when'; matches: (body: string) => boolean; then: ReplicaMode; otherwise: ReplicaMode };

/** An OpenAI-compatible stand-in on 127.0.0.1 that can be switched, killed and started again on its port. */
export interface Replica {
  name: string;
  /** `http://127.0.0.1:<port>/v1` (the same after a restart). */
  baseUrl: string;
  mode: ReplicaMode;
  /** Requests it received, and answers it finished (`[DONE]` written). */
  received: number;
  completed: number;
  /** Stops listening and drops every connection: connections are refused until `start()`. */
  kill(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

async function answer(replica: Replica, response: ServerResponse, body: string, mode = replica.mode): Promise<void> {
  switch (mode.kind) {
    case 'when':
      return answer(replica, response, body, mode.matches(body) ? mode.then : mode.otherwise);
    case 'hang':
      return; // headers never come: the engine's first-token timer decides
    case 'status':
      response.writeHead(mode.status, {
        'content-type': 'application/json',
        ...(mode.retryAfterMs !== undefined ? { 'retry-after-ms': String(mode.retryAfterMs) } : {}),
      });
      response.end(JSON.stringify({ error: { message: `stand-in ${replica.name} says ${mode.status}`, type: 'server_error' } }));
      return;
    case 'break-after':
    case 'ok': {
      response.writeHead(200, sseHeaders);
      const chunks = mode.chunks ?? 3;
      for (let index = 0; index < chunks; index++) {
        if (response.destroyed) return;
        response.write(contentChunk(`${replica.name}${index} `));
        await pause(mode.kind === 'ok' ? (mode.pauseMs ?? 1) : 1);
      }
      if (mode.kind === 'break-after') {
        response.destroy();
        return;
      }
      response.write(contentChunk('', 'stop'));
      response.end('data: [DONE]\n\n');
      replica.completed++;
    }
  }
}

/**
 * A stand-in replica: a real node:http server whose behaviour (`mode`) tests switch while load
 * runs, and which can be killed (port closed, connections dropped) and brought back.
 */
export async function startReplica(name: string, mode: ReplicaMode = { kind: 'ok' }): Promise<Replica> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const replica: Replica = {
    name,
    baseUrl: '',
    mode,
    received: 0,
    completed: 0,
    async kill() {
      if (server === undefined) return;
      const closing = server;
      server = undefined;
      closing.close();
      for (const socket of sockets) socket.destroy();
      await once(closing, 'close');
    },
    async start() {
      const next = createServer((request, response) => {
        replica.received++;
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.once('end', () => void answer(replica, response, Buffer.concat(chunks).toString('utf8')).catch(() => response.destroy()));
      });
      next.on('connection', (socket) => {
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
      });
      next.listen(port, '127.0.0.1');
      await once(next, 'listening');
      port = (next.address() as AddressInfo).port;
      replica.baseUrl = `http://127.0.0.1:${port}/v1`;
      server = next;
    },
    close: () => replica.kill(),
  };
  await replica.start();
  return replica;
}

/**
 * For a test file whose tests each start their own replicas: `replicasOf(...modes)` starts one
 * per mode, named a, b, c…, and adds them to `replicas`; all are closed after each test.
 */
export function replicasClosedAfterEach(): { replicas: Replica[]; replicasOf(...modes: ReplicaMode[]): Promise<Replica[]> } {
  const replicas: Replica[] = [];
  afterEach(async () => {
    await Promise.all(replicas.splice(0).map((replica) => replica.close()));
  });
  return {
    replicas,
    async replicasOf(...modes) {
      const started = await Promise.all(modes.map((mode, index) => startReplica(String.fromCharCode(97 + index), mode)));
      replicas.push(...started);
      return started;
    },
  };
}
