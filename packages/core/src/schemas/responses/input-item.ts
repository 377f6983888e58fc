import * as z from 'zod';

/**
 * The input items of a create-response request (decisions §10): messages, function calls and
 * their outputs, reasoning sent back, and references to stored items. Other item types (hosted
 * tool calls, computer use, MCP) are refused by name before these schemas run.
 */

/** The roles a message item may have; `developer` is read as `system`, as in chat. */
export const inputMessageRoles = ['user', 'system', 'developer', 'assistant'] as const;
export type InputMessageRole = (typeof inputMessageRoles)[number];

/** The content part types a message item may hold; any other is 400 `unsupported_value`. */
export const inputContentPartTypes = ['input_text', 'output_text'] as const;

export const inputTextPartSchema = z.object({ type: z.literal('input_text'), text: z.string() });
/** A part of an earlier answer sent back; its annotations and logprobs are accepted, not read. */
const outputTextPartSchema = z.object({
  type: z.literal('output_text'),
  text: z.string(),
  annotations: z.array(z.unknown()).nullish(),
  logprobs: z.array(z.unknown()).nullish(),
});
export const inputContentPartSchema = z.discriminatedUnion('type', [inputTextPartSchema, outputTextPartSchema]);

export const messageItemSchema = z.object({
  type: z.literal('message').nullish(),
  id: z.string().max(256).nullish(),
  role: z.enum(inputMessageRoles),
  content: z.union([z.string(), z.array(inputContentPartSchema)]),
  status: z.string().nullish(),
});
export type MessageItem = z.infer<typeof messageItemSchema>;

export const functionCallItemSchema = z.object({
  type: z.literal('function_call'),
  id: z.string().max(256).nullish(),
  call_id: z.string().min(1).max(256),
  name: z.string(),
  arguments: z.string(),
  status: z.string().nullish(),
});
export type FunctionCallItem = z.infer<typeof functionCallItemSchema>;

export const functionCallOutputItemSchema = z.object({
  type: z.literal('function_call_output'),
  id: z.string().max(256).nullish(),
  call_id: z.string().min(1).max(256),
  output: z.union([z.string(), z.array(inputTextPartSchema)]),
  status: z.string().nullish(),
});
export type FunctionCallOutputItem = z.infer<typeof functionCallOutputItemSchema>;

const summaryTextSchema = z.object({ type: z.literal('summary_text'), text: z.string() });
const reasoningTextSchema = z.object({ type: z.literal('reasoning_text'), text: z.string() });

/** A reasoning item sent back: its summary (our trace) is read; encrypted content is never ours to read. */
export const reasoningItemSchema = z.object({
  type: z.literal('reasoning'),
  id: z.string().max(256).nullish(),
  summary: z.array(summaryTextSchema),
  content: z.array(reasoningTextSchema).nullish(),
  encrypted_content: z.string().nullish(),
  status: z.string().nullish(),
});
export type ReasoningItem = z.infer<typeof reasoningItemSchema>;

export const itemReferenceSchema = z.object({
  type: z.literal('item_reference').nullish(),
  id: z.string().min(1).max(256),
});
export type ItemReference = z.infer<typeof itemReferenceSchema>;

/** Schemas by item type; the validator picks one once `type` is known to be supported. */
export const inputItemSchemasByType = {
  message: messageItemSchema,
  function_call: functionCallItemSchema,
  function_call_output: functionCallOutputItemSchema,
  reasoning: reasoningItemSchema,
  item_reference: itemReferenceSchema,
} as const;
export type InputItemType = keyof typeof inputItemSchemasByType;

/** An input item as validated, `type` always set (a typeless item with a `role` is a message). */
export type InputItem =
  | (MessageItem & { type: 'message' })
  | FunctionCallItem
  | FunctionCallOutputItem
  | ReasoningItem
  | (ItemReference & { type: 'item_reference' });

/** An item the conversation holds once references are resolved: anything but a reference. */
export type ConversationItem = Exclude<InputItem, { type: 'item_reference' }>;

/** Any input item, for the OpenAPI document. */
export const inputItemSchema = z.union([messageItemSchema, functionCallItemSchema, functionCallOutputItemSchema, reasoningItemSchema, itemReferenceSchema]);
