// @quantum-chat/core/responses: the OpenAI Responses API (decisions §10) as apps and clients use
// it: the request and `Response` zod schemas and types, the validation and translation into the
// chat engine request, the stream event encoder, the stream reader and accumulator, and the
// response store (its interface and the in-memory store the handler uses by default). The
// handler (`createChatHandler`) serves the routes itself; nothing here is needed to serve them.

/** Requests: schemas, types and the checks the handler runs. */
export { createResponseRequestSchema, includeOutputTextLogprobs, maxResponseTools } from './schemas/responses/create-response-request.js';
export type { CreateResponseRequest } from './schemas/responses/create-response-request.js';
export {
  inputItemSchema,
  inputContentPartSchema,
  inputTextPartSchema,
  messageItemSchema,
  functionCallItemSchema,
  functionCallOutputItemSchema,
  reasoningItemSchema,
  itemReferenceSchema,
  inputMessageRoles,
} from './schemas/responses/input-item.js';
export type {
  InputItem,
  InputItemType,
  InputMessageRole,
  ConversationItem,
  MessageItem,
  FunctionCallItem,
  FunctionCallOutputItem,
  ReasoningItem,
  ItemReference,
} from './schemas/responses/input-item.js';
export { responseFunctionToolSchema, responseToolChoiceSchema } from './schemas/responses/response-tool.js';
export type { ResponseFunctionTool, ResponseToolChoice } from './schemas/responses/response-tool.js';
export { responseTextFormatSchema, responseTextSchema } from './schemas/responses/response-text-format.js';
export type { ResponseTextFormat } from './schemas/responses/response-text-format.js';
export { validateCreateResponse } from './request/responses/validate-create-response.js';
export type { ValidatedResponseRequest } from './request/responses/validate-create-response.js';
export { toEngineRequest, referencedItemIds, resolveInputItems, toEngineResponseFormat } from './request/responses/to-engine-request.js';
export type { LoadedConversation } from './request/responses/to-engine-request.js';

/** The `Response` object and its stream events. */
export { responseObjectSchema, outputItemSchema, responseUsageSchema } from './schemas/responses/response-object-schema.js';
export type {
  ResponseObject,
  ResponseOutputItem,
  ResponseStatus,
  ResponseUsage,
  ResponseItemStatus,
  ResponseLogprob,
  OutputMessageItem,
  OutputReasoningItem,
  OutputFunctionCallItem,
  OutputTextPart,
  EchoedFunctionTool,
} from './schemas/responses/response-object.js';
export type { ResponseStreamEvent, ResponseStreamEventType } from './schemas/responses/response-stream-event.js';
export { itemResourceSchema, responseItemListSchema } from './schemas/responses/item-resource.js';
export type { ItemResource, ItemResourceStatus, ResponseItemList } from './schemas/responses/item-resource.js';

/** Writing: the response shell, the output builder and the stream event encoder. */
export { createResponseShell } from './run/responses/response-shell.js';
export type { ResponseShell, ResponseState, ResponseIdentity } from './run/responses/response-shell.js';
export { buildResponse } from './run/responses/build-response.js';
export { generateRandomResponseId, createSequentialResponseIdGenerator } from './run/responses/response-ids.js';
export type { GenerateResponseId, ResponseIdKind } from './run/responses/response-ids.js';
export { createResponseEventEncoder } from './run/responses/response-event-encoder.js';
export type { ResponseEventEncoder, ResponseEventEncoderOptions, ResponseStreamError } from './run/responses/response-event-encoder.js';

/** Reading: the stream reader and accumulator (also on `@quantum-chat/core/dialect`). */
export { createResponseEventReader, parseResponseEvent, readResponseStream } from './dialect/responses/read-response-events.js';
export type { ResponseEventReader } from './dialect/responses/read-response-events.js';
export { ResponseAccumulator, ResponseStreamFailedError, ResponseStreamProtocolError } from './dialect/responses/accumulate-response.js';

/** Stored responses: the store interface and the in-memory store (the handler's default). */
export type { ResponseStore, StoredResponse, StoredInputItem, InputItemPage, InputItemPageRequest } from './contract/response-store.js';
export { createMemoryResponseStore, outputItemToConversationItem } from './streams/responses/memory-response-store.js';
export type { MemoryResponseStoreOptions } from './streams/responses/memory-response-store.js';
export { defaultResponseRetentionSeconds } from './http/create-chat-handler.js';
export { maxResponseChain } from './http/responses/responses-api.js';
