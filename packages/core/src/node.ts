// @quantum-chat/core/node: the bridge between Node's http objects and the core, plus the
// host contract of `@quantum-chat/core/host` (re-exported, so a Node host imports one entry).
// Typed structurally, except `FramesReadable`, which is Node's own `Readable` (the only `node:`
// import of the core).

export * from './host.js';

/** Read a Node request into the core's request (its body handed over unread). */
export { readChatRequest } from './node/read-chat-request.js';
export type { ReadChatRequestOptions } from './node/read-chat-request.js';
/** The core's request for a Node response, the response being its client connection. */
export { createNodeChatRequest } from './node/node-chat-request.js';
export type { ChatHttpRequestFields } from './node/node-chat-request.js';
/** Write the core's response to a Node response, honouring backpressure. */
export { writeChatResponse } from './node/write-chat-response.js';
export type { NodeIncomingMessageLike, NodeServerResponseLike } from './node/node-like.js';
/** Write SSE frames to any Node writable with backpressure (hosts that stream through their own Readable). */
export { writeFrames } from './node/write-frames.js';
export type { FrameDestinationLike } from './node/write-frames.js';
/** The same frames as a Node `Readable`, for hosts whose framework sends streams itself (Fastify's `reply.send`). */
export { FramesReadable } from './node/frames-readable.js';
/** The one options shape of every Node host adapter (Express, Fastify): handler options or `{ handler }`, plus `onBridgeError`. */
export type { HostOptions } from './node/host-options.js';
/** The request timeout on a Node server: 408 `request_timeout` in the envelope for headers or a body that trickle. */
export { applyRequestTimeout, requestTimedOut } from './node/apply-request-timeout.js';
export type { NodeHttpServerLike, NodeClientSocketLike } from './node/apply-request-timeout.js';
