import { performance } from 'node:perf_hooks';
import { contentChunk, pause, sseHeaders, startUpstreamServer, type UpstreamRequestRecord, type UpstreamServer } from './start-upstream-server.js';

export interface EndlessUpstream extends UpstreamServer {
  /** Chunks written so far, per request (by its index in `requests`). */
  written: number[];
}

/** An upstream whose answer never ends: a token every 10 ms until the socket goes away. */
export async function startEndlessUpstream(): Promise<EndlessUpstream> {
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
