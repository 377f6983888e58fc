import { once } from 'node:events';
import { createServer, request as httpRequest, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFrames } from '@quantum-chat/core/node';
import { afterEach, describe, expect, it } from 'vitest';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A node:http server whose one route writes `frames()` with writeFrames, counting the response's writes. */
async function serve(frames: () => AsyncIterator<string>) {
  const outcome: { writes: number; result?: boolean; error?: unknown } = { writes: 0 };
  const server = createServer((_request, response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const write = response.write.bind(response) as (chunk: string) => boolean;
    response.write = ((chunk: string) => {
      outcome.writes++;
      return write(chunk);
    }) as typeof response.write;
    writeFrames(response, frames()).then(
      (result) => {
        outcome.result = result;
        response.end();
      },
      (error: unknown) => {
        outcome.error = error;
        response.end();
      },
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(async () => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, outcome };
}

const frame = (index: number) => `data: ${index} ${'x'.repeat(60)}\n\n`;
const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('writeFrames', () => {
  it('should write the frames of one burst as one write, and every frame in order', async () => {
    async function* bursts() {
      for (let burst = 0; burst < 5; burst++) {
        await tick();
        for (let index = 0; index < 50; index++) yield frame(burst * 50 + index);
      }
    }
    const { url, outcome } = await serve(() => bursts());
    const text = await (await fetch(url)).text();
    expect(text).toBe(Array.from({ length: 250 }, (_, index) => frame(index)).join(''));
    expect(outcome.result).toBe(true);
    expect(outcome.writes).toBe(5);
  });

  it('should stop pulling frames while a slow reader has not drained what was written', async () => {
    let pulled = 0;
    async function* endless() {
      for (;;) {
        pulled++;
        if (pulled % 100 === 0) await tick();
        yield frame(pulled);
      }
    }
    const { url } = await serve(() => endless());
    const request = httpRequest(url);
    request.end();
    const [response] = (await once(request, 'response')) as [import('node:http').IncomingMessage];
    response.pause();
    // The reader reads nothing: pulling stops once the socket and its buffers are full.
    let before = -1;
    for (let round = 0; round < 200 && before !== pulled; round++) {
      before = pulled;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(before).toBe(pulled);
    expect(pulled).toBeLessThan(200_000);
    // Reading again lets it go on.
    response.resume();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pulled).toBeGreaterThan(before);
    request.destroy();
  });

  it('should write the frames it had before the frames failed, then reject', async () => {
    async function* failing() {
      yield frame(1);
      yield frame(2);
      throw new Error('engine broke');
    }
    const { url, outcome } = await serve(() => failing());
    const text = await (await fetch(url)).text();
    expect(text).toBe(frame(1) + frame(2));
    expect(outcome.error).toMatchObject({ message: 'engine broke' });
  });

  it('should resolve false when the reader went away', async () => {
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    async function* slow() {
      for (let index = 0; ; index++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (index === 3) stop();
        yield frame(index);
      }
    }
    const { url, outcome } = await serve(() => slow());
    const request = httpRequest(url);
    request.end();
    await once(request, 'response');
    await stopped;
    request.destroy();
    for (let round = 0; round < 400 && outcome.result === undefined; round++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(outcome.result).toBe(false);
  });
});
