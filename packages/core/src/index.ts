// @quantum-chat/core: the whole Quantum chat-completions protocol and no host.
// Adapters wrap `createChatHandler`; clients reuse the schemas, the SSE codec and the
// tool-call accumulator. What only hosts need (the request/response contract, shared
// plumbing) is on `@quantum-chat/core/host`; the Node bridge on `@quantum-chat/core/node`.

/** The framework-neutral handler. */
export { createChatHandler } from './http/create-chat-handler.js';
export type { ChatHandlerOptions } from './http/create-chat-handler.js';
export type { ChatRequestRecord, ChatRequestObserver, ChatRequestStart } from './http/chat-request-observer.js';
export type { ChatHandler, ChatHttpRequest, ChatHttpResponse } from './http/chat-http-types.js';
export type { StreamFormat } from './http/stream-frame-encoder.js';
export { validateChatRequest } from './http/validate-chat-request.js';
export type { ValidatedChatRequest } from './http/validate-chat-request.js';
export { defaultMaxBodyBytes } from './http/read-request-body.js';
export { maxJsonDepth } from './http/parse-json-body.js';

/** The engine interface a model runtime implements. */
export type {
  ChatEngine,
  ChatEngineContext,
  ChatEngineEvent,
  ChatEngineRequest,
  EngineMessage,
  EngineUsage,
} from './engine/chat-engine.js';
export { passThroughDeniedFields, passesThrough, selectPassedThrough, type PassThroughPolicy } from './engine/pass-through-policy.js';

/** Models: the four built-ins and the registry mapping each to an engine. */
export { builtinModels, defaultOwnedBy } from './models/builtin-models.js';
export type { ModelInfo } from './models/builtin-models.js';
export { createModelRegistry, planAllows } from './models/model-registry.js';
export type { ModelRegistry, ModelRegistryOptions, RegisteredModel } from './models/model-registry.js';

/** Wire schemas (zod) and their types. */
export { chatCompletionRequestSchema, defaultMaxTokens, defaultTemperature, maxTokensCeiling, maxTopLogprobs } from './schemas/chat-completion-request.js';
export type { ChatCompletionRequest } from './schemas/chat-completion-request.js';
export { messageSchema, messageContentSchema, textPartSchema, messageRoles } from './schemas/message.js';
export type { Message, MessageContent, MessageRole } from './schemas/message.js';
export { toolDefinitionSchema, toolChoiceSchema, toolNamePattern } from './schemas/tool-definition.js';
export type { ToolDefinition, ToolChoice } from './schemas/tool-definition.js';
export { toolCallSchema, toolCallDeltaSchema } from './schemas/tool-call.js';
export type { ToolCall, ToolCallDelta } from './schemas/tool-call.js';
export { responseFormatSchema } from './schemas/response-format.js';
export type { ResponseFormat, EngineResponseFormat } from './schemas/response-format.js';
export { choiceLogprobsSchema, tokenLogprobSchema, topLogprobSchema } from './schemas/logprobs.js';
export type { ChoiceLogprobs, TokenLogprob, TopLogprob } from './schemas/logprobs.js';
export { usageSchema } from './schemas/usage.js';
export type { Usage } from './schemas/usage.js';
export { chatCompletionSchema, choiceSchema, assistantResponseMessageSchema, finishReasonSchema } from './schemas/chat-completion.js';
export type { ChatCompletion, Choice, AssistantResponseMessage, FinishReason } from './schemas/chat-completion.js';
export { chatCompletionChunkSchema, chunkDeltaSchema } from './schemas/chat-completion-chunk.js';
export type { ChatCompletionChunk, ChunkDelta } from './schemas/chat-completion-chunk.js';
export { thoughtTraceChunkSchema } from './schemas/thought-trace-chunk.js';
export type { ThoughtTraceChunk } from './schemas/thought-trace-chunk.js';
export { modelSchema, modelListSchema, planSchema } from './schemas/model.js';
export type { Model, ModelList, Plan } from './schemas/model.js';
export { errorEnvelopeSchema, lenientErrorEnvelopeSchema } from './schemas/error-envelope.js';
export type { ErrorEnvelope, LenientErrorEnvelope } from './schemas/error-envelope.js';

/** Server-Sent Events: encoder, incremental decoder, and its TransformStream wrapper. */
export { encodeSseEvent, encodeSseComment } from './sse/encode-sse-event.js';
export type { SseEventInit } from './sse/encode-sse-event.js';
export { createSseDecoder, defaultMaxSseEventLength, SseEventTooLongError } from './sse/create-sse-decoder.js';
export type { SseDecoder, SseDecoderCallbacks, SseDecoderOptions, SseEvent } from './sse/create-sse-decoder.js';
export { SseDecoderStream } from './sse/sse-decoder-stream.js';
export type { SseDecoderStreamOptions } from './sse/sse-decoder-stream.js';

/** Tool calls: definition checks and the streaming accumulator. */
export { createToolCallAccumulator } from './tools/tool-call-accumulator.js';
export type { ToolCallAccumulator, ToolCallAccumulatorOptions } from './tools/tool-call-accumulator.js';
export { findToolSchemaProblem } from './tools/validate-tool-schema.js';

/** Errors: one class, one code table, one function to the envelope. */
export { QuantumChatError } from './errors/quantum-chat-error.js';
export type { QuantumChatErrorOptions, QuantumChatErrorTableOptions } from './errors/quantum-chat-error.js';
export { errorCodes, describeErrorCode, isErrorCode, extendErrorCodes } from './errors/error-codes.js';
export type { ErrorCode, ErrorType, ErrorCodeRow, ErrorCodeTable } from './errors/error-codes.js';
export { toErrorEnvelope } from './errors/to-error-envelope.js';
/** The status (499, `client_closed`) of a request whose client left before its answer: in records, never sent. */
export { clientClosedStatus } from './http/client-connection.js';

/** Keys, access control and request signatures. */
export { parseApiKey, generateApiKey, displayApiKey, defaultApiKeyPrefixes } from './auth/parse-api-key.js';
export type { ApiKeyKind, ApiKeyPrefixes, ParsedApiKey } from './auth/parse-api-key.js';
export { createFormatOnlyAccessControl } from './auth/access-control.js';
export { insecureAcceptAnyApiKey, staticApiKeys } from './auth/static-api-keys.js';
export type { StaticApiKey, StaticApiKeysOptions } from './auth/static-api-keys.js';
export type { AccessControl, Admission, AdmissionDemand, AdmissionOutcome, AdmissionProgress, Principal } from './auth/access-control.js';
export { verifySignature, findMatchingSignature, signRequestBody, parseSignatureHeader, defaultSignatureToleranceSeconds, maxSignatureValues } from './auth/verify-signature.js';
export { createMemoryReplayGuard, replayGuardFull } from './auth/signature-replay-guard.js';
export { signedContentClaim, type SignedContent } from './auth/signed-content-claim.js';
export type { SignatureReplayGuard } from './auth/signature-replay-guard.js';

/** The OpenAPI 3.1 document, generated from the schemas above. */
export { createOpenApiDocument } from './openapi/create-openapi-document.js';
export type { OpenApiDocumentOptions } from './openapi/create-openapi-document.js';

/** Identifiers. */
export { generateRandomId, createSequentialIdGenerator, randomBase62 } from './ids.js';
export type { GenerateId, IdKind } from './ids.js';

/** Resumable streams (decisions §4.7): the store interface, the memory store, and what a shared store needs. */
export { createMemoryStreamStore } from './streams/memory-stream-store.js';
export type { MemoryStreamStore, MemoryStreamStoreOptions } from './streams/memory-stream-store.js';
export { StreamLostError } from './streams/stream-store.js';
export type { StreamChunk, StreamFollowOptions, StreamFrame, StreamInfo, StreamMeta, StreamState, StreamStore } from './streams/stream-store.js';
export type { StreamEvent, StreamsOptions } from './streams/resumable-streams.js';
export { completionFromFrames } from './streams/completion-from-frames.js';
export type { StreamResult } from './streams/completion-from-frames.js';
