// @quantum-chat/core/host: the host contract and the plumbing hosts share, for anyone who
// puts the handler behind a server of their own (the Express and Fastify adapters, the Node
// bridge, a custom runtime). Apps that only mount an adapter or call `handler.fetch` need none
// of it. Runtime-neutral: imports nothing from `node:`.

/** The contract: what a host hands `handler.handle` and gets back (see the core README). */
export type {
  ChatHandler,
  ChatHttpRequest,
  ChatHttpRequestBody,
  ChatHttpReadBody,
  ChatHttpResponse,
  ChatHttpBodyResponse,
  ChatHttpStreamResponse,
  ClientConnection,
} from './contract/chat-http-types.js';
export { connectionFromSignal } from './contract/client-connection.js';

/** The request id every response carries: a sane incoming `x-request-id`, or a new one. */
export { resolveRequestId } from './http/create-chat-handler.js';

/** Errors a host writes itself, in the core's envelope and wording. */
export { bodyRejectionError, hostStatusError, requestTimeoutError } from './request/read-request-body.js';
export { methodNotAllowedError, unknownUrlError } from './request/route-request.js';
export { toErrorResponseParts, toErrorHttpResponse } from './errors/to-error-envelope.js';
/** A zod issue as the core's 400, naming the field at fault the JavaScript way (`limits.tokens_per_day`). */
export { zodIssueToError, formatParamPath } from './request/zod-issue-to-error.js';
export type { ErrorResponseParts } from './errors/to-error-envelope.js';

/** The limits the core reads a body under: hosts that parse bodies themselves apply the same. */
export { defaultMaxBodyBytes } from './request/read-request-body.js';
export { maxJsonDepth } from './request/parse-json-body.js';

/**
 * Signature plumbing for a shared replay guard or a gateway of one's own: the header's parts,
 * the signature that matched, the claim a replay guard remembers, and its "full" error.
 */
export { findMatchingSignature, parseSignatureHeader, maxSignatureValues } from './auth/verify-signature.js';
export { replayGuardFull } from './auth/signature-replay-guard.js';
export { signedContentClaim, type SignedContent } from './auth/signed-content-claim.js';

/** Random base62 text (key secrets, usage ids): for stores that mint ids of their own. */
export { randomBase62 } from './ids.js';

/**
 * The encoder the handler writes every chat stream's frames with, for a host or relay that
 * writes chat-completion frames itself; the benchmarks measure this very code through it.
 */
export { createStreamFrameEncoder } from './wire/stream-frame-encoder.js';
export type { StreamEnvelope, StreamFormat } from './wire/stream-frame-encoder.js';
