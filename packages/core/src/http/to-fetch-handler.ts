import type { ChatHttpReadBody, ChatHttpRequest, ChatHttpResponse } from '../contract/chat-http-types.js';
import { connectionFromSignal } from '../contract/client-connection.js';

const encoder = new TextEncoder();

/** Web `Headers` as the Node-style record the core reads (lower-case names). */
function headersToRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

/** Reads a web body under a limit: past it, stops reading (nothing more is buffered) and reports `too-large`. */
async function readWebBody(request: Request, maxBodyBytes: number): Promise<ChatHttpReadBody> {
  if (request.body === null) return { kind: 'empty' };
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBodyBytes) {
    await request.body.cancel().catch(() => undefined);
    return { kind: 'rejected', reason: 'too-large' };
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBodyBytes) {
        await reader.cancel().catch(() => undefined);
        return { kind: 'rejected', reason: 'too-large' };
      }
      chunks.push(value);
    }
  } catch {
    return { kind: 'rejected', reason: 'unreadable' };
  }
  if (total === 0) return { kind: 'empty' };
  if (chunks.length === 1) return { kind: 'bytes', bytes: chunks[0]! };
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { kind: 'bytes', bytes };
}

/**
 * Turns the core's frames into a web stream that pulls one frame at a time. `stalled` is
 * wired to the stream's controller, so the core can close a stalled response.
 */
function framesToStream(events: AsyncIterable<string>, stalled: { close?: () => void }): ReadableStream<Uint8Array> {
  const iterator = events[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      stalled.close = () => controller.error(new Error('The stream was given up: its client stopped reading.'));
    },
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
 * first `/v1`, by default). The body is read under the handler's limit; the client is
 * watched through `request.signal`; a stalled stream is closed by erroring its body.
 */
export function toFetchHandler(handle: (request: ChatHttpRequest) => Promise<ChatHttpResponse>) {
  return async function fetchHandler(request: Request, basePath?: string): Promise<Response> {
    const url = new URL(request.url);
    const pathname = url.pathname;
    const mount = basePath ?? /^(.*?\/v1)(?=\/|$)/.exec(pathname)?.[1] ?? '';
    const path = pathname.startsWith(mount) ? pathname.slice(mount.length) || '/' : pathname;
    const stalled: { close?: () => void } = {};
    const response = await handle({
      method: request.method,
      path,
      query: url.search === '' ? undefined : url.search.slice(1),
      basePath: pathname.startsWith(mount) ? mount : '',
      headers: headersToRecord(request.headers),
      body: { kind: 'unread', read: (maxBodyBytes) => readWebBody(request, maxBodyBytes) },
      connection: connectionFromSignal(request.signal, () => stalled.close?.()),
    });
    const init = { status: response.status, headers: response.headers };
    if ('events' in response) return new Response(framesToStream(response.events, stalled), init);
    return new Response(request.method === 'HEAD' ? null : response.body, init);
  };
}
