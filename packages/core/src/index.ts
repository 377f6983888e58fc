// @quantum-chat/core: the whole Quantum chat-completions protocol and no host. This entry is
// what an app uses: the handler, the engine interface, models, keys and access control, errors,
// tool calls, resumable streams and the wire's types. Each codec has a subpath of its own: the
// zod schemas on `@quantum-chat/core/schemas`, the SSE codec on `@quantum-chat/core/sse`, the
// stream reader on `@quantum-chat/core/dialect`. What only hosts need (the request/response
// contract, shared plumbing) is on `@quantum-chat/core/host`; the Node bridge on `/node`.

/** The framework-neutral handler. */
export { createChatHandler } from './http/create-chat-handler.js';
export type { ChatHandlerOptions } from './http/create-chat-handler.js';
export type { ChatRequestRecord, ChatRequestObserver, ChatRequestStart } from './run/chat-request-observer.js';
export type { ChatHandler, ChatHttpRequest, ChatHttpResponse } from './contract/chat-http-types.js';
export type { StreamFormat } from './wire/stream-frame-encoder.js';
export { validateChatRequest } from './request/validate-chat-request.js';
export type { ValidatedChatRequest } from './request/validate-chat-request.js';

/** The engine interface a model runtime implements. */
export type {
  ChatEngine,
  ChatEngineContext,
  ChatEngineEvent,
  ChatEngineRequest,
  EngineMessage,
  EngineUsage,
  PromptMeasure,
} from './engine/chat-engine.js';
export { countPromptAtOnceBelow } from './engine/measured-prompt.js';
export { eventsInBatches, hasReadyEvents, type ReadyEvents } from './engine/events-in-batches.js';
export { isRunAborted, listenForAbort, stopListeningForAbort, type RunAbort } from './engine/engine-abort.js';
export { passThroughDeniedFields, passesThrough, selectPassedThrough, type PassThroughPolicy } from './engine/pass-through-policy.js';

/** Models: the four built-ins and the registry mapping each to an engine. */
export { builtinModels, defaultOwnedBy } from './models/builtin-models.js';
export type { ModelInfo } from './models/builtin-models.js';
export { createModelRegistry, planAllows } from './models/model-registry.js';
export type { ModelRegistry, ModelRegistryOptions, RegisteredModel } from './models/model-registry.js';

/** The wire's types; their zod schemas are on `@quantum-chat/core/schemas`. */
export type { ChatCompletionRequest } from './schemas/chat-completion-request.js';
export type { Message, MessageContent, MessageRole } from './schemas/message.js';
export type { ToolDefinition, ToolChoice } from './schemas/tool-definition.js';
export type { ToolCall, ToolCallDelta } from './schemas/tool-call.js';
export type { ResponseFormat, EngineResponseFormat } from './schemas/response-format.js';
export type { ChoiceLogprobs, TokenLogprob, TopLogprob } from './schemas/logprobs.js';
export type { Usage } from './schemas/usage.js';
export type { ChatCompletion, Choice, AssistantResponseMessage, FinishReason } from './schemas/chat-completion.js';
export type { ChatCompletionChunk, ChunkDelta } from './schemas/chat-completion-chunk.js';
export type { ThoughtTraceChunk } from './schemas/thought-trace-chunk.js';
export type { Model, ModelList, Plan } from './schemas/model.js';
export type { ErrorEnvelope, LenientErrorEnvelope } from './schemas/error-envelope.js';

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
export { clientClosedStatus } from './contract/client-connection.js';

/** Keys, access control and request signatures. */
export { parseApiKey, generateApiKey, displayApiKey, defaultApiKeyPrefixes } from './auth/parse-api-key.js';
export type { ApiKeyKind, ApiKeyPrefixes, ParsedApiKey } from './auth/parse-api-key.js';
export { createFormatOnlyAccessControl } from './auth/static-api-keys.js';
export { insecureAcceptAnyApiKey, staticApiKeys } from './auth/static-api-keys.js';
export type { StaticApiKey, StaticApiKeysOptions } from './auth/static-api-keys.js';
export type { AccessControl, Admission, AdmissionDemand, AdmissionOutcome, AdmissionProgress, Principal } from './auth/access-control.js';
export { verifySignature, signRequestBody, defaultSignatureToleranceSeconds } from './auth/verify-signature.js';
export { createMemoryReplayGuard } from './auth/signature-replay-guard.js';
export type { SignatureReplayGuard } from './auth/signature-replay-guard.js';

/** The OpenAPI 3.1 document, generated from the schemas above. */
export { createOpenApiDocument } from './openapi/create-openapi-document.js';
export type { OpenApiDocumentOptions } from './openapi/create-openapi-document.js';

/** Identifiers. */
export { generateRandomId, createSequentialIdGenerator } from './ids.js';
export type { GenerateId, IdKind } from './ids.js';

/** Resumable streams (decisions §4.7): the store interface, the memory store, and what a shared store needs. */
export { createMemoryStreamStore } from './streams/memory-stream-store.js';
export type { MemoryStreamStore, MemoryStreamStoreOptions } from './streams/memory-stream-store.js';
export { StreamLostError } from './streams/stream-store.js';
export type { StreamChunk, StreamFollowOptions, StreamFrame, StreamInfo, StreamMeta, StreamState, StreamStore } from './streams/stream-store.js';
export type { StreamEvent, StreamsOptions } from './streams/resumable-streams.js';

/** The Responses API's store (decisions §10); the rest of the Responses API is on `@quantum-chat/core/responses`. */
export { createMemoryResponseStore } from './streams/responses/memory-response-store.js';
export type { MemoryResponseStoreOptions } from './streams/responses/memory-response-store.js';
export type { ResponseStore, StoredResponse, StoredInputItem, InputItemPage, InputItemPageRequest } from './contract/response-store.js';
export { completionFromFrames } from './streams/completion-from-frames.js';
export type { StreamResult } from './streams/completion-from-frames.js';
