import type { ChatHttpRequest, ChatHttpResponse } from './chat-http-types.js';

const encoder = new TextEncoder();

/** Web `Headers` as the Node-style record the core reads (lower-case names). */
function headersToRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

/** Turns the core's frames into a web stream that pulls one frame at a time. */
function framesToStream(events: AsyncIterable<string>): ReadableStream<Uint8Array> {
  const iterator = events[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const step = await iterator.next();
      if (step.done) controller.close();
      else controller.enqueue(encoder.encode(step.value));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/**
 * The handler behind a web-standard face, for fetch runtimes and in-process tests. The path
 * handed to the core is the URL's path below `basePath` (the part up to and including the
 * first `/v1`, by default).
 */
export function toFetchHandler(handle: (request: ChatHttpRequest) => Promise<ChatHttpResponse>) {
  return async function fetchHandler(request: Request, basePath?: string): Promise<Response> {
    const pathname = new URL(request.url).pathname;
    const mount = basePath ?? /^(.*?\/v1)(?=\/|$)/.exec(pathname)?.[1] ?? '';
    const path = pathname.startsWith(mount) ? pathname.slice(mount.length) || '/' : pathname;
    const bytes = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
    const response = await handle({
      method: request.method,
      path,
      basePath: pathname.startsWith(mount) ? mount : '',
      headers: headersToRecord(request.headers),
      body: bytes === undefined || bytes.byteLength === 0 ? { kind: 'empty' } : { kind: 'bytes', bytes },
      signal: request.signal,
    });
    const init = { status: response.status, headers: response.headers };
    if ('events' in response) return new Response(framesToStream(response.events), init);
    return new Response(request.method === 'HEAD' ? null : response.body, init);
  };
}
