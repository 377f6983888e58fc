import * as z from 'zod';
import { maxMetadataEntries, maxTokensCeiling, maxTopLogprobs } from '../chat-completion-request.js';
import { inputItemSchema } from './input-item.js';
import { responseFunctionToolSchema, responseToolChoiceSchema } from './response-tool.js';
import { responseTextSchema } from './response-text-format.js';

/** The most tools a request may declare, as in chat. */
export const maxResponseTools = 128;
/** The `include` value that asks for the log probabilities of the answer's tokens. */
export const includeOutputTextLogprobs = 'message.output_text.logprobs';

/**
 * The body of `POST /v1/responses` as the validator reads it (after `null` was read as absent).
 * `input` and `tools` are checked item by item first (so that a refused item or tool type is
 * named), then with these schemas. Unknown top-level fields are ignored and reported.
 */
export const createResponseRequestSchema = z.object({
  model: z.string(),
  input: z.union([z.string(), z.array(inputItemSchema)]).optional(),
  instructions: z.string().optional(),
  tools: z.array(responseFunctionToolSchema).max(maxResponseTools).optional(),
  tool_choice: responseToolChoiceSchema.optional(),
  parallel_tool_calls: z.boolean().optional(),
  text: responseTextSchema.optional(),
  reasoning: z
    .object({
      effort: z.enum(['low', 'medium', 'high']).nullish(),
      // Echoed; the summary we give is the model's whole trace whatever is asked.
      summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
    })
    .optional(),
  max_output_tokens: z.number().int().min(1).max(maxTokensCeiling).optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_logprobs: z.number().int().min(0).max(maxTopLogprobs).optional(),
  include: z.array(z.string().max(128)).max(16).optional(),
  stream: z.boolean().optional(),
  store: z.boolean().optional(),
  previous_response_id: z.string().min(1).max(256).optional(),
  background: z.boolean().optional(),
  metadata: z.record(z.string().max(64), z.string().max(512)).meta({ maxProperties: maxMetadataEntries }).optional(),
  user: z.string().max(256).optional(),
});
export type CreateResponseRequest = z.infer<typeof createResponseRequestSchema>;

/** The top-level fields a create-response request understands; the rest are ignored and named in a header. */
export const knownCreateResponseFields: ReadonlySet<string> = new Set(Object.keys(createResponseRequestSchema.shape));
