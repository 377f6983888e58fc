// @quantum-chat/core/schemas: the wire schemas (zod) and their types, without the handler.

export { chatCompletionRequestSchema, defaultMaxTokens, defaultTemperature, maxTokensCeiling, maxTopLogprobs } from './schemas/chat-completion-request.js';
export type { ChatCompletionRequest } from './schemas/chat-completion-request.js';
export { responseFormatSchema } from './schemas/response-format.js';
export type { ResponseFormat, EngineResponseFormat } from './schemas/response-format.js';
export { choiceLogprobsSchema, tokenLogprobSchema, topLogprobSchema } from './schemas/logprobs.js';
export type { ChoiceLogprobs, TokenLogprob, TopLogprob } from './schemas/logprobs.js';
export { messageSchema, messageContentSchema, textPartSchema, messageRoles } from './schemas/message.js';
export type { Message, MessageContent, MessageRole } from './schemas/message.js';
export { toolDefinitionSchema, toolChoiceSchema, toolNamePattern } from './schemas/tool-definition.js';
export type { ToolDefinition, ToolChoice } from './schemas/tool-definition.js';
export { toolCallSchema, toolCallDeltaSchema } from './schemas/tool-call.js';
export type { ToolCall, ToolCallDelta } from './schemas/tool-call.js';
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
