import * as z from 'zod';
import { responseToolChoiceSchema } from './response-tool.js';
import { responseTextFormatSchema } from './response-text-format.js';

/**
 * The `Response` object as zod, for the OpenAPI document and for tests that hold our output to
 * it: the same shape as the `ResponseObject` type (decisions §10).
 */
const itemStatus = z.enum(['in_progress', 'completed', 'incomplete']);
const topLogprob = z.object({ token: z.string(), logprob: z.number(), bytes: z.array(z.number().int()).nullish() });

const outputTextPartSchema = z.object({
  type: z.literal('output_text'),
  text: z.string(),
  annotations: z.array(z.unknown()),
  logprobs: z.array(topLogprob.extend({ top_logprobs: z.array(topLogprob) })),
});

export const outputItemSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message'), id: z.string().regex(/^msg_/), status: itemStatus, role: z.literal('assistant'), content: z.array(outputTextPartSchema) }),
  z.object({
    type: z.literal('reasoning'),
    id: z.string().regex(/^rs_/),
    summary: z.array(z.object({ type: z.literal('summary_text'), text: z.string() })),
    status: itemStatus.optional(),
  }),
  z.object({
    type: z.literal('function_call'),
    id: z.string().regex(/^fc_/),
    call_id: z.string(),
    name: z.string(),
    arguments: z.string(),
    status: itemStatus,
  }),
]);

export const responseUsageSchema = z.object({
  input_tokens: z.number().int(),
  input_tokens_details: z.object({ cached_tokens: z.number().int() }),
  output_tokens: z.number().int(),
  output_tokens_details: z.object({ reasoning_tokens: z.number().int() }),
  total_tokens: z.number().int(),
});

export const responseObjectSchema = z.strictObject({
  id: z.string().regex(/^resp_/),
  object: z.literal('response'),
  created_at: z.number().int(),
  status: z.enum(['completed', 'incomplete', 'in_progress', 'queued', 'cancelled', 'failed']),
  completed_at: z.number().int().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  incomplete_details: z.object({ reason: z.enum(['max_output_tokens', 'content_filter']) }).nullable(),
  usage: responseUsageSchema.nullable(),
  background: z.boolean(),
  instructions: z.string().nullable(),
  max_output_tokens: z.number().int().nullable(),
  model: z.string(),
  parallel_tool_calls: z.boolean(),
  previous_response_id: z.string().nullable(),
  reasoning: z.object({ effort: z.enum(['low', 'medium', 'high']).nullable(), summary: z.enum(['auto', 'concise', 'detailed']).nullable() }),
  store: z.boolean(),
  temperature: z.number(),
  text: z.object({ format: responseTextFormatSchema, verbosity: z.enum(['low', 'medium', 'high']).optional() }),
  tool_choice: responseToolChoiceSchema,
  tools: z.array(z.object({ type: z.literal('function'), name: z.string(), description: z.string().nullable(), parameters: z.record(z.string(), z.unknown()).nullable(), strict: z.boolean().nullable() })),
  top_p: z.number(),
  top_logprobs: z.number().int().optional(),
  truncation: z.literal('disabled'),
  user: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  output: z.array(outputItemSchema),
});
