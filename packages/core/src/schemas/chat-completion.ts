import * as z from 'zod';
import { choiceLogprobsSchema } from './logprobs.js';
import { toolCallSchema } from './tool-call.js';
import { usageSchema } from './usage.js';

/** Why generation stopped (decisions §3). Readers also accept what other servers send. */
export const finishReasonSchema = z.enum(['stop', 'length', 'tool_calls']);
export type FinishReason = z.infer<typeof finishReasonSchema>;

/**
 * The assistant message of a response; `reasoning_content` comes before `content` (spec 2.6).
 * `refusal` is always there, `null` (OpenAI's schema requires it; decisions §3).
 */
export const assistantResponseMessageSchema = z.object({
  role: z.literal('assistant'),
  reasoning_content: z.string().optional(),
  content: z.string().nullable(),
  tool_calls: z.array(toolCallSchema).optional(),
  refusal: z.string().nullable(),
});
export type AssistantResponseMessage = z.infer<typeof assistantResponseMessageSchema>;

/** One choice of a completion (spec 2.6). */
export const choiceSchema = z.object({
  index: z.number().int().nonnegative(),
  message: assistantResponseMessageSchema,
  finish_reason: finishReasonSchema,
  /** `null` unless the request set `logprobs: true`. */
  logprobs: choiceLogprobsSchema.nullable(),
});
export type Choice = z.infer<typeof choiceSchema>;

/** The non-streaming response (spec 2.5, decisions §3). */
export const chatCompletionSchema = z.object({
  id: z.string().regex(/^chatcmpl-[0-9A-Za-z]{24,}$/),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(choiceSchema),
  usage: usageSchema,
  /** The model's own fingerprint, when it reported one (an upstream that does; decisions §3). */
  system_fingerprint: z.string().optional(),
});
export type ChatCompletion = z.infer<typeof chatCompletionSchema>;
