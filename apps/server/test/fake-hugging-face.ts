import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for Hugging Face's file host (`HF_ENDPOINT`): serves `bytes` at any
 * `/<user>/<repo>/resolve/<revision>/<file>.gguf`, with range requests as a downloader makes them.
 */
export async function startFakeHuggingFace(bytes: Uint8Array): Promise<{ endpoint: string; downloads: () => number; close(): Promise<void> }> {
  const body = Buffer.from(bytes);
  let downloads = 0;
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (!/^\/[^/]+\/[^/]+\/resolve\/[^/]+\/.+\.gguf$/.test(path)) {
      response.writeHead(request.method === 'HEAD' && path === '/' ? 200 : 404).end();
      return;
    }
    const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    const end = range?.[2] ? Number(range[2]) : body.length - 1;
    if (request.method === 'GET') downloads++;
    response.writeHead(range ? 206 : 200, {
      'content-type': 'application/octet-stream',
      'accept-ranges': 'bytes',
      'content-length': String(end - start + 1),
      ...(range ? { 'content-range': `bytes ${start}-${end}/${body.length}` } : {}),
    });
    response.end(request.method === 'HEAD' ? undefined : body.subarray(start, end + 1));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    downloads: () => downloads,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
