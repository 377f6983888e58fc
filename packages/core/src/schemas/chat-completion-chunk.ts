import * as z from 'zod';
import { choiceLogprobsSchema } from './logprobs.js';
import { toolCallDeltaSchema } from './tool-call.js';
import { usageSchema } from './usage.js';

/**
 * The `delta` of a chunk, read leniently: other servers put reasoning in `reasoning` or
 * `reasoning_content`, send `content: null`, and add fields of their own.
 */
export const chunkDeltaSchema = z.looseObject({
  role: z.string().nullish(),
  content: z.string().nullish(),
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
  tool_calls: z.array(toolCallDeltaSchema).nullish(),
});
export type ChunkDelta = z.infer<typeof chunkDeltaSchema>;

/** A streaming chunk (spec 2.9, decisions §4): the data of a `message` event. */
export const chatCompletionChunkSchema = z.looseObject({
  id: z.string(),
  object: z.string().nullish(),
  created: z.number().nullish(),
  model: z.string().nullish(),
  system_fingerprint: z.string().nullish(),
  choices: z.array(
    z.looseObject({
      index: z.number().int().nonnegative().nullish(),
      delta: chunkDeltaSchema.nullish(),
      logprobs: choiceLogprobsSchema.nullish(),
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: usageSchema.nullish(),
});
export type ChatCompletionChunk = z.infer<typeof chatCompletionChunkSchema>;
