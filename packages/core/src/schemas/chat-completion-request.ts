import * as z from 'zod';
import { messageSchema } from './message.js';
import { responseFormatSchema } from './response-format.js';
import { toolChoiceSchema, toolDefinitionSchema } from './tool-definition.js';

/** The upper bound of `max_tokens` (spec §8). */
export const maxTokensCeiling = 8192;
/** The default of `max_tokens` (spec §4.1). */
export const defaultMaxTokens = 4096;
/** The default of `temperature` (spec §4.1). */
export const defaultTemperature = 0.7;
/** The most alternatives `top_logprobs` may ask for. */
export const maxTopLogprobs = 20;
/** The most entries `metadata` may hold (decisions §2). */
export const maxMetadataEntries = 16;
/** The most tokens `logit_bias` may bias: a bound on the work one request can ask for. */
export const maxLogitBiasEntries = 1024;

const penalty = z.number().min(-2).max(2);

/**
 * The body of `POST /chat/completions` as the handler validates it (after `null` was read as
 * absent). Unknown top-level fields are not part of it: they are ignored and reported.
 */
export const chatCompletionRequestSchema = z.object({
  model: z.string(),
  messages: z.array(messageSchema).min(1),
  stream: z.boolean().optional(),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().min(1).max(maxTokensCeiling).optional(),
  max_completion_tokens: z.number().int().min(1).max(maxTokensCeiling).optional(),
  top_p: z.number().min(0).max(1).optional(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).optional(),
  seed: z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER).optional(),
  user: z.string().max(256).optional(),
  // `.meta` adds to the OpenAPI document what `validateChatRequest` checks after parsing (with
  // its own codes: `n` other than 1 is `unsupported_value`), so the document is as strict as the handler.
  metadata: z.record(z.string().max(64), z.string().max(512)).meta({ maxProperties: maxMetadataEntries }).optional(),
  n: z.number().int().meta({ const: 1 }).optional(),
  parallel_tool_calls: z.boolean().optional(),
  stream_options: z
    .object({
      include_usage: z.boolean().nullish(),
      /** Keep the stream in the stream store, resumable after a dropped connection (decisions §4.7). */
      resumable: z.boolean().nullish(),
    })
    .optional(),
  tools: z.array(toolDefinitionSchema).max(128).optional(),
  tool_choice: toolChoiceSchema.optional(),
  response_format: responseFormatSchema.optional(),
  logprobs: z.boolean().optional(),
  top_logprobs: z.number().int().min(0).max(maxTopLogprobs).optional(),
  presence_penalty: penalty.optional(),
  frequency_penalty: penalty.optional(),
  // Token ids of the model's tokenizer, as strings, to a bias from -100 to 100.
  logit_bias: z
    .record(z.string().regex(/^(?:0|[1-9]\d{0,9})$/, 'keys must be token ids'), z.number().min(-100).max(100))
    .meta({ maxProperties: maxLogitBiasEntries })
    .optional(),
  reasoning_effort: z.enum(['low', 'medium', 'high']).optional(),
}).meta({
  // `top_logprobs` needs `logprobs: true` (checked by `validateChatRequest` after parsing).
  if: { required: ['top_logprobs'], properties: { top_logprobs: { type: 'integer' } } },
  then: { required: ['logprobs'], properties: { logprobs: { const: true } } },
});
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;

/** The top-level fields the request understands; the rest are ignored and named in a header. */
export const knownRequestFields: ReadonlySet<string> = new Set(Object.keys(chatCompletionRequestSchema.shape));
