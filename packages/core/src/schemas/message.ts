import * as z from 'zod';
import { toolCallSchema } from './tool-call.js';

/** A text part of an array `content`. Other part types are refused with `unsupported_value`. */
export const textPartSchema = z.object({ type: z.literal('text'), text: z.string() });

/** `content` as a string or an array of text parts. */
export const messageContentSchema = z.union([z.string(), z.array(textPartSchema)]);
export type MessageContent = z.infer<typeof messageContentSchema>;

const name = z.string().nullish();

/** The roles a request may use; `developer` is read as `system`. */
export const messageRoles = ['system', 'developer', 'user', 'assistant', 'tool'] as const;
export type MessageRole = (typeof messageRoles)[number];

const systemMessageSchema = z.object({ role: z.enum(['system', 'developer']), content: messageContentSchema, name });
const userMessageSchema = z.object({ role: z.literal('user'), content: messageContentSchema, name });
const assistantMessageSchema = z.object({
  role: z.literal('assistant'),
  content: messageContentSchema.nullish(),
  tool_calls: z.array(toolCallSchema).nullish(),
  // Accepted from clients that echo a previous answer back; never an error (decisions §2).
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
  refusal: z.string().nullish(),
  name,
}).meta({
  // What `validateChatRequest` checks, for the OpenAPI document: content, or at least one tool call.
  anyOf: [
    { required: ['content'], properties: { content: { not: { type: 'null' } } } },
    { required: ['tool_calls'], properties: { tool_calls: { type: 'array', minItems: 1 } } },
  ],
  description: 'Needs `content` (not null) or at least one entry in `tool_calls`.',
});
const toolMessageSchema = z.object({ role: z.literal('tool'), content: messageContentSchema, tool_call_id: z.string() });

/** Schemas by role; the request parser picks one once `role` is known to be valid. */
export const messageSchemasByRole = {
  system: systemMessageSchema,
  developer: systemMessageSchema,
  user: userMessageSchema,
  assistant: assistantMessageSchema,
  tool: toolMessageSchema,
} as const;

/** A message of a request, any role (spec 2.4, decisions §2). */
export const messageSchema = z.union([systemMessageSchema, userMessageSchema, assistantMessageSchema, toolMessageSchema]);
export type Message = z.infer<typeof messageSchema>;
