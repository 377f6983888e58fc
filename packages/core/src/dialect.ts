// @quantum-chat/core/dialect: the one reader of the OpenAI-style wire, without zod: chunks of
// every dialect (ours, OpenAI, DeepSeek, vLLM, Ollama, OpenRouter, llama.cpp), tool calls,
// reasoning and error payloads. The client and the upstream engine both read with it.

/** The stream reader. */
export { createDialectReader } from './dialect/create-dialect-reader.js';
export type { DialectReader, DialectReaderOptions, DialectSink, WireUsage } from './dialect/create-dialect-reader.js';

/** Tool calls: the one tracker, and the accumulator of whole calls built on it. */
export { createToolCallTracker } from './dialect/tool-call-tracker.js';
export type { ToolCallTracker, TrackedToolCall } from './dialect/tool-call-tracker.js';
export { createToolCallAccumulator } from './tools/tool-call-accumulator.js';
export type { ToolCallAccumulator, ToolCallAccumulatorOptions } from './tools/tool-call-accumulator.js';

/** Reasoning, `<think>` blocks and error payloads, in every dialect. */
export { findReasoning } from './dialect/find-reasoning.js';
export { createThinkTagSplitter } from './dialect/think-tag-splitter.js';
export type { ThinkTagPiece, ThinkTagSplitter } from './dialect/think-tag-splitter.js';
export { readErrorPayload } from './dialect/read-error-payload.js';
export type { WireError } from './dialect/read-error-payload.js';

/** The rule a tool name follows on the wire (decisions §2), for checks made without zod. */
export { toolNamePattern } from './schemas/tool-name-pattern.js';

/** The Responses API's streams (decisions §10): the event reader and the accumulator of the final `Response`. */
export { createResponseEventReader, parseResponseEvent, readResponseStream } from './dialect/responses/read-response-events.js';
export type { ResponseEventReader } from './dialect/responses/read-response-events.js';
export { ResponseAccumulator, ResponseStreamFailedError, ResponseStreamProtocolError } from './dialect/responses/accumulate-response.js';
export type {
  ResponseObject,
  ResponseOutputItem,
  OutputMessageItem,
  OutputReasoningItem,
  OutputFunctionCallItem,
  OutputTextPart,
  ResponseStatus,
  ResponseUsage,
} from './schemas/responses/response-object.js';
export type { ResponseStreamEvent, ResponseStreamEventType } from './schemas/responses/response-stream-event.js';
/** The request's types, for clients that build one without zod. */
export type { CreateResponseRequest } from './schemas/responses/create-response-request.js';
export type { InputItem } from './schemas/responses/input-item.js';
/** Token log probabilities read off the wire (`{content: [...]}`), odd entries left out. */
export { readTokenLogprobs } from './dialect/read-token-logprobs.js';
