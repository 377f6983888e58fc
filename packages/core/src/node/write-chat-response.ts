import type { ChatHttpResponse } from '../contract/chat-http-types.js';
import type { NodeServerResponseLike } from './node-like.js';
import { writeFrames } from './write-frames.js';

/**
 * Writes the core's response to a Node response. Streams are written frame by frame: the
 * writer waits for `drain` when the socket is full (so a slow reader stops the engine
 * rather than filling memory) and calls `flush()` after each frame, because `compression`
 * would otherwise hold SSE frames back. A stream ends with `end()`. One the core gave up on
 * (its client stopped reading past `stallTimeoutMs`) was already closed through the request's
 * connection; one that fails while writing closes the connection, since it cannot be ended
 * truthfully, and rejects.
 *
 * @example
 * await writeChatResponse(res, await handler.handle(request));
 */
export async function writeChatResponse(res: NodeServerResponseLike, response: ChatHttpResponse): Promise<void> {
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  res.statusCode = response.status;
  if (!('events' in response)) {
    res.end(response.body);
    return;
  }
  res.writeHead(response.status);
  res.flush?.();
  const iterator = response.events[Symbol.asyncIterator]();
  let failed = false;
  try {
    await writeFrames(res, iterator);
  } catch (error) {
    failed = true;
    // Already destroyed: the core gave up on a stalled stream, or the client left.
    const gone = res.destroyed === true;
    res.destroy?.();
    if (!gone) throw error;
  } finally {
    // Stops the engine when the loop ended early (client gone); a no-op after a normal end.
    await iterator.return?.();
    if (!failed && !res.writableEnded && !res.destroyed) res.end();
  }
}
