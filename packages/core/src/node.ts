// @quantum-chat/core/node: the bridge adapters share between Node's http objects and the
// core. Typed structurally, so the core still imports nothing from `node:`.

/** Read a Node request into the core's plain request. */
export { readChatRequest } from './node/read-chat-request.js';
export type { ReadChatRequestOptions } from './node/read-chat-request.js';
/** The core's request for a Node response, its signal aborted when the client leaves. */
export { createNodeChatRequest } from './node/node-chat-request.js';
export type { ChatHttpRequestFields } from './node/node-chat-request.js';
/** Write the core's response to a Node response, honouring backpressure. */
export { writeChatResponse } from './node/write-chat-response.js';
export type { NodeIncomingMessageLike, NodeServerResponseLike } from './node/node-like.js';
/** Write SSE frames to any Node writable with backpressure (hosts that stream through their own Readable). */
export { writeFrames } from './node/write-frames.js';
export type { FrameDestinationLike } from './node/write-frames.js';
/** For hosts that stream through their own writer: close the connection of a stalled stream. */
export { onStreamStalled } from './http/stream-stall.js';
