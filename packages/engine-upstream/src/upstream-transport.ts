import { pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { readNodeText } from './read-node-text.js';
import type { UpstreamAbort } from './upstream-abort.js';

/** As many redirects as `fetch` follows. */
const maxRedirections = 20;

/** Reads a response body chunk by chunk; the shape of a WHATWG stream reader. */
export interface UpstreamBodyReader {
  read(): Promise<{ done?: boolean | undefined; value?: Uint8Array | undefined }>;
  /** Stops reading and lets go of the body; an unfinished body closes its connection. */
  cancel(): Promise<void>;
  /** The whole body as text, as `readCappedText` reads it, where the reader has a cheaper way. */
  readText?(maxBytes: number, truncate: boolean): Promise<string>;
}

/** The part of a response the engine uses, whatever made the request. */
interface UpstreamResponse {
  ok: boolean;
  status: number;
  headers: { get(name: string): string | null };
  /** A reader of the (decoded) body; taken once. */
  body(): UpstreamBodyReader | null;
}

interface UpstreamRequestInit {
  headers: Record<string, string>;
  body: string;
  abort: UpstreamAbort;
}

/** Sends the chat request to the upstream. */
export type SendUpstream = (init: UpstreamRequestInit) => Promise<UpstreamResponse>;

type FetchFunction = (url: string, init: RequestInit & { dispatcher?: Dispatcher }) => Promise<Response>;

/** Through a fetch of the caller's (tests, proxies): WHATWG streams, as fetch gives them. */
export function fetchTransport(url: string, fetchUpstream: FetchFunction, dispatcher: Dispatcher | undefined): SendUpstream {
  return async ({ headers, body, abort }) => {
    const response = await fetchUpstream(url, { method: 'POST', headers, body, signal: abort.toAbortSignal(), ...(dispatcher ? { dispatcher } : {}) });
    return {
      ok: response.ok,
      status: response.status,
      headers: response.headers,
      body: () => response.body?.getReader() ?? null,
    };
  };
}

/** A reader over a Node stream; cancelling destroys it, and undici then closes the socket. */
function nodeBodyReader(stream: Readable): UpstreamBodyReader {
  // Made on the first read: a body read whole (`readText`) never needs it.
  let iterator: AsyncIterator<Uint8Array> | undefined;
  return {
    read: () => (iterator ??= stream[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>).next(),
    readText: (maxBytes, truncate) => readNodeText(stream, maxBytes, truncate),
    cancel: async () => {
      stream.destroy();
    },
  };
}

/** What `fetch` would have done with a compressed body (undici's `request` leaves it as sent). */
function decoded(body: Readable, encoding: string | undefined): Readable {
  const coding = encoding?.trim().toLowerCase();
  const decoder =
    coding === 'gzip' || coding === 'x-gzip' ? createGunzip() : coding === 'deflate' ? createInflate() : coding === 'br' ? createBrotliDecompress() : undefined;
  if (decoder === undefined) return body;
  return pipeline(body, decoder, () => undefined);
}

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  const credentials = new Set(['authorization', 'proxy-authorization', 'cookie']);
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !credentials.has(name.toLowerCase())));
}

/** `fetch`'s `Headers.get` over Node's header object (repeated headers joined by `, `). */
function headerReader(headers: Record<string, string | string[] | undefined>): UpstreamResponse['headers'] {
  return {
    get(name) {
      const value = headers[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/**
 * Waits for the end of this turn of the event loop. undici hands a kept-alive connection back
 * to its pool only a turn after its response ended (`setImmediate`, so a server that closes
 * anyway is noticed first); a request sent before then finds every connection busy and opens a
 * new one. Under steady load that is most requests that follow another one in the same turn:
 * the pool outgrows the load, and its surplus idles out and is opened again, over and over.
 * Sent after the turn, the request finds the connection it can reuse.
 */
const afterFreedConnections = () => new Promise<void>((resolve) => setImmediate(resolve));

const pathOf = (url: URL): string => url.pathname + url.search;

const textEncoder = new TextEncoder();

/**
 * The body as bytes in a buffer of its own size. Given a string, undici keeps it for the whole
 * request (its handler holds what it was given) beside the bytes it makes of it, which come from
 * Node's shared 8 KiB pool and keep that pool alive with them: a waiting stream held both.
 */
const bodyBytesOfItsOwn = (body: string): Uint8Array => textEncoder.encode(body);

/**
 * Through undici's `request` on our dispatcher: Node streams, no WHATWG Request/Response/stream
 * objects per request, so far less CPU and garbage than undici's `fetch` (about 1 ms of CPU per
 * request on a small machine). 307 and 308 redirects are followed, as `fetch` follows them.
 */
export function undiciTransport(url: string, dispatcher: Dispatcher): SendUpstream {
  // Parsed once per deployment: undici's top-level `request` parses its URL on every call.
  const endpoint = new URL(url);
  const { origin } = endpoint;
  const path = pathOf(endpoint);
  return async ({ headers, body: text, abort: signal }) => {
    let target = endpoint;
    let sent = headers;
    const body = bodyBytesOfItsOwn(text);
    await afterFreedConnections();
    let response = await dispatcher.request({ origin, path, method: 'POST', headers, body, signal });
    // Only 307 and 308 keep a POST and its body (fetch turns others into a GET without one, which
    // no chat endpoint answers): followed here, not by undici's redirect interceptor, which
    // would wrap every request's handlers.
    for (let hops = 0; (response.statusCode === 307 || response.statusCode === 308) && hops < maxRedirections; hops++) {
      const location = headerReader(response.headers).get('location');
      if (location === null) break;
      await response.body.dump();
      const next = new URL(location, target);
      // As fetch does: credentials never follow a redirect to another origin.
      if (next.origin !== target.origin) sent = withoutCredentials(sent);
      target = next;
      response = await dispatcher.request({ origin: target.origin, path: pathOf(target), method: 'POST', headers: sent, body, signal });
    }
    const responseHeaders = headerReader(response.headers);
    return {
      ok: response.statusCode >= 200 && response.statusCode < 300,
      status: response.statusCode,
      headers: responseHeaders,
      body: () => nodeBodyReader(decoded(response.body, responseHeaders.get('content-encoding') ?? undefined)),
    };
  };
}
