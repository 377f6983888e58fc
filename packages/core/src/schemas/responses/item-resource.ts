import * as z from 'zod';

/**
 * An input item as `GET /responses/{id}/input_items` lists it (decisions §10): OpenAI's
 * `ItemResource` for the item types we take. Every item has its id and a `status`; a
 * message's content is parts, `input_text` for the user, system and developer roles (OpenAI's
 * `InputMessageResource`) and `output_text` for the assistant (its `OutputMessage`).
 */
const itemStatus = z.enum(['in_progress', 'completed', 'incomplete']);
export type ItemResourceStatus = z.infer<typeof itemStatus>;

const inputTextPart = z.strictObject({ type: z.literal('input_text'), text: z.string() });
/** Annotations and logprobs an assistant part was sent back with are listed as sent ([] when absent). */
const outputTextPart = z.strictObject({ type: z.literal('output_text'), text: z.string(), annotations: z.array(z.unknown()), logprobs: z.array(z.unknown()) });

const inputMessageResourceSchema = z.strictObject({
  type: z.literal('message'),
  id: z.string(),
  status: itemStatus,
  role: z.enum(['user', 'system', 'developer']),
  content: z.array(inputTextPart),
});

const outputMessageResourceSchema = z.strictObject({
  type: z.literal('message'),
  id: z.string(),
  status: itemStatus,
  role: z.literal('assistant'),
  content: z.array(outputTextPart),
});

const functionCallResourceSchema = z.strictObject({
  type: z.literal('function_call'),
  id: z.string(),
  status: itemStatus,
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
});

const functionCallOutputResourceSchema = z.strictObject({
  type: z.literal('function_call_output'),
  id: z.string(),
  status: itemStatus,
  call_id: z.string(),
  output: z.union([z.string(), z.array(inputTextPart)]),
});

const reasoningResourceSchema = z.strictObject({
  type: z.literal('reasoning'),
  id: z.string(),
  status: itemStatus,
  summary: z.array(z.strictObject({ type: z.literal('summary_text'), text: z.string() })),
  content: z.array(z.strictObject({ type: z.literal('reasoning_text'), text: z.string() })).optional(),
  encrypted_content: z.string().optional(),
});

export const itemResourceSchema = z.union([inputMessageResourceSchema, outputMessageResourceSchema, functionCallResourceSchema, functionCallOutputResourceSchema, reasoningResourceSchema]);
export type ItemResource = z.infer<typeof itemResourceSchema>;

/** A page of a stored response's input items: OpenAI's `ResponseItemList` (ids `null` on an empty page). */
export const responseItemListSchema = z.strictObject({
  object: z.literal('list'),
  data: z.array(itemResourceSchema),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
  has_more: z.boolean(),
});
export type ResponseItemList = z.infer<typeof responseItemListSchema>;
