import type { ChatHttpReadBody, ChatHttpRequest } from '../contract/chat-http-types.js';
import { requestTimedOut } from './apply-request-timeout.js';
import { createNodeChatRequest } from './node-chat-request.js';
import type { NodeIncomingMessageLike, NodeServerResponseLike } from './node-like.js';

export interface ReadChatRequestOptions {
  /** The path below the mount point; defaults to the request URL's path. */
  path?: string;
  /** Where the API is mounted ("/v1"): error messages then name the full path. */
  basePath?: string;
  /** A body a host parser already consumed (`req.body` after `express.json()`). */
  parsedBody?: unknown;
  /**
   * Read the body now, under this limit, instead of handing it over unread (the core then
   * reads it under the handler's `maxBodyBytes`, which is what you want unless your host has
   * a stricter limit of its own).
   */
  maxBodyBytes?: number;
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Reads the body as bytes under a limit; past it, stops reading and reports `too-large`. */
function readBody(req: NodeIncomingMessageLike, maxBodyBytes: number): Promise<ChatHttpReadBody> {
  if (req.readableEnded) return Promise.resolve({ kind: 'empty' });
  // The client left before the core asked for the body: its 'close' has fired already.
  if (req.destroyed === true) return Promise.resolve({ kind: 'rejected', reason: requestTimedOut(req) ? 'timed-out' : 'unreadable' });
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    let total = 0;
    let done = false;
    const finish = (body: ChatHttpReadBody) => {
      if (done) return;
      done = true;
      resolve(body);
    };
    req.on('data', (chunk) => {
      if (done) return;
      total += chunk.byteLength;
      if (total > maxBodyBytes) {
        // Keep draining (without storing) so the 413 can still be written on this socket.
        finish({ kind: 'rejected', reason: 'too-large' });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => finish(total === 0 ? { kind: 'empty' } : { kind: 'bytes', bytes: concat(chunks, total) }));
    // A body cut by the server's request timeout is that timeout's 408, not an unreadable body.
    const cut = () => finish({ kind: 'rejected', reason: requestTimedOut(req) ? 'timed-out' : 'unreadable' });
    req.on('error', cut);
    req.on('close', cut);
  });
}

/**
 * Turns a Node request into the core's request: headers as they are, the body handed over
 * unread (the core reads it as raw bytes under the handler's limit, and only on routes that
 * take one), and the response as the client connection.
 *
 * @example
 * const request = await readChatRequest(req, res, { path: '/chat/completions', basePath: '/v1' });
 */
export async function readChatRequest(
  req: NodeIncomingMessageLike,
  res: NodeServerResponseLike,
  options: ReadChatRequestOptions = {},
): Promise<ChatHttpRequest> {
  const url = req.url ?? '/';
  const path = options.path ?? url.split('?', 1)[0]!;
  const queryAt = url.indexOf('?');
  // Made first, so the client leaving while the body is read is seen.
  const request = createNodeChatRequest(res, {
    method: req.method ?? 'GET',
    path,
    query: queryAt === -1 ? undefined : url.slice(queryAt + 1),
    ...(options.basePath !== undefined ? { basePath: options.basePath } : {}),
    headers: req.headers,
    body: { kind: 'empty' },
  });
  if (options.parsedBody !== undefined) request.body = { kind: 'parsed', value: options.parsedBody };
  else if (options.maxBodyBytes !== undefined) request.body = await readBody(req, options.maxBodyBytes);
  else request.body = { kind: 'unread', read: (maxBodyBytes) => readBody(req, maxBodyBytes) };
  return request;
}
