// @quantum-chat/client: a typed client of the Quantum chat-completions API over `fetch`.
// No `node:*` imports here: this entry is bundled for browsers. The MCP bridge lives in
// the `@quantum-chat/client/mcp` entry.

/** The client and its options. */
export { createChatClient } from './create-chat-client.js';
export type { ChatClient, StreamStatus } from './create-chat-client.js';
export type { ChatClientOptions, RequestOptions, FetchFunction } from './client-options.js';
export type { ChatCompletionCreateParams } from './chat-request.js';
export type { ModelsApi } from './models-api.js';
export type { Sleep } from './http/sleep.js';

/** Streams: typed events and the collected message. */
export type { ChatCompletionStream } from './stream/chat-completion-stream.js';
export type { ChatStreamEvent } from './stream/chat-stream-event.js';
export type { CollectedCompletion } from './stream/collected-completion.js';

/** The Responses API: params, the stream of typed events, and the wire types (from the core's `/dialect`). */
export type { ResponsesApi } from './responses/responses-api.js';
export type { ResponseStream } from './responses/response-stream.js';
export type { ResponseCreateParams, ResponseDeleted, ResponseInputItemList, InputItemsPage } from './responses/response-params.js';
export type { ResponseObject, ResponseOutputItem, ResponseStreamEvent, ResponseStatus, ResponseUsage, InputItem } from '@quantum-chat/core/dialect';

/** Errors: one base, one class per status, and the errors without a status. */
export { QuantumChatApiError } from './errors/api-error.js';
export type { ApiErrorInit } from './errors/api-error.js';
export {
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  UnprocessableEntityError,
  RateLimitError,
  InternalServerError,
} from './errors/status-errors.js';
export { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError, APIResponseValidationError } from './errors/connection-errors.js';

/** The tool runner: tools with JSON Schema or zod arguments, run in a loop until the model answers. */
export { runTools } from './tools/run-tools.js';
export type { RunToolsOptions, RunToolsResult, RunToolsStep } from './tools/run-tools.js';
export { defineTool } from './tools/runner-tool.js';
export type { RunnerTool, ToolRunContext, ToolParameters, JsonSchemaObject, StandardSchemaLike, InferToolArgs } from './tools/runner-tool.js';
export type { ToolResult } from './tools/execute-tool-call.js';

/** Wire types, re-exported from the core for convenience. */
export type { ChatCompletion, ChatCompletionRequest, Message, ToolCall, ToolDefinition, ToolChoice, Usage, Model, ModelList } from '@quantum-chat/core';
