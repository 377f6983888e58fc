import * as z from 'zod';

const count = z.number().int().nonnegative();

/**
 * Token counts (spec 2.7 plus `completion_tokens_details.reasoning_tokens`), and the details a
 * model reported in OpenAI's fields (decisions §3): cached and audio prompt tokens, accepted,
 * rejected and audio completion tokens.
 */
export const usageSchema = z.object({
  prompt_tokens: count,
  completion_tokens: count,
  total_tokens: count,
  prompt_tokens_details: z.looseObject({ cached_tokens: count.nullish(), audio_tokens: count.nullish() }).nullish(),
  completion_tokens_details: z
    .looseObject({
      reasoning_tokens: count.nullish(),
      accepted_prediction_tokens: count.nullish(),
      rejected_prediction_tokens: count.nullish(),
      audio_tokens: count.nullish(),
    })
    .nullish(),
});
export type Usage = z.infer<typeof usageSchema>;
