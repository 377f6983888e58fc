import { isStreamStalledError, onStreamStalled } from '../http/stream-stall.js';
import type { ChatHttpResponse } from '../http/chat-http-types.js';
import type { NodeServerResponseLike } from './node-like.js';
import { writeFrames } from './write-frames.js';

/** Node's `ServerResponse.destroy()`, which closes the socket (not in the structural type). */
type DestroyableResponse = NodeServerResponseLike & { destroy?(error?: Error): unknown };

/**
 * Writes the core's response to a Node response. Streams are written frame by frame: the
 * writer waits for `drain` when the socket is full (so a slow reader stops the engine
 * rather than filling memory) and calls `flush()` after each frame, because `compression`
 * would otherwise hold SSE frames back. A stream ends with `end()`; one the core gave up on
 * (its client stopped reading past `stallTimeoutMs`) or that failed closes the connection
 * instead, since it cannot be ended truthfully. It never rejects for a stalled stream.
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
  const destroy = (error?: Error) => (res as DestroyableResponse).destroy?.(error);
  // The writer may be parked on `drain` that never comes: the core tells us to close instead.
  const unsubscribe = onStreamStalled(response.events, () => destroy());
  res.writeHead(response.status);
  res.flush?.();
  const iterator = response.events[Symbol.asyncIterator]();
  let failed = false;
  try {
    await writeFrames(res, iterator);
  } catch (error) {
    failed = true;
    destroy();
    if (!isStreamStalledError(error)) throw error;
  } finally {
    unsubscribe();
    // Stops the engine when the loop ended early (client gone); a no-op after a normal end.
    await iterator.return?.();
    if (!failed && !res.writableEnded && !res.destroyed) res.end();
  }
}
