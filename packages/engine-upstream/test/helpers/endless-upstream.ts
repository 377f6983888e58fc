import { performance } from 'node:perf_hooks';
import { createModelRegistry, insecureAcceptAnyApiKey } from '@quantum-chat/core';
import { afterAll, beforeAll } from 'vitest';
import { createUpstreamEngine } from '../../src/index.js';
import { startFrontServer, type AdapterKind, type FrontServer } from './start-front-server.js';
import { contentChunk, pause, sseHeaders, startUpstreamServer, type UpstreamRequestRecord, type UpstreamServer } from './start-upstream-server.js';

export interface EndlessUpstream extends UpstreamServer {
  /** Chunks written so far, per request (by its index in `requests`). */
  written: number[];
}

/** An upstream whose answer never ends: a token every 10 ms until the socket goes away. */
async function startEndlessUpstream(): Promise<EndlessUpstream> {
  const written: number[] = [];
  const upstream = await startUpstreamServer(async (_request, response) => {
    const index = upstream.requests.length - 1;
    written[index] = 0;
    response.writeHead(200, sseHeaders);
    while (!response.destroyed) {
      response.write(contentChunk('token '));
      written[index]!++;
      await pause(10);
    }
  });
  return Object.assign(upstream, { written });
}

/** When the upstream saw the socket close (stamped by its listener; polled without timers). */
export async function closedAt(record: UpstreamRequestRecord): Promise<number> {
  const giveUp = performance.now() + 2000;
  while (record.socketClosedAt === undefined && performance.now() < giveUp) await new Promise(setImmediate);
  return record.socketClosedAt ?? Number.POSITIVE_INFINITY;
}

/**
 * For a suite about leaving an answer that never ends: the upstream engine over an endless
 * upstream, behind our handler through `kind`. Started before the suite's tests, closed after.
 */
export function endlessAnswerThrough(kind: AdapterKind): { readonly upstream: EndlessUpstream; readonly front: FrontServer } {
  const servers = {} as { upstream: EndlessUpstream; front: FrontServer };
  beforeAll(async () => {
    servers.upstream = await startEndlessUpstream();
    const engine = createUpstreamEngine({ baseUrl: servers.upstream.baseUrl, model: 'm' });
    servers.front = await startFrontServer(kind, { accessControl: insecureAcceptAnyApiKey(), registry: createModelRegistry({ engine }) });
  });
  afterAll(async () => {
    await servers.front.close();
    await servers.upstream.close();
  });
  return servers;
}
