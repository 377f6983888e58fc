import * as z from 'zod';

/** Token counts (spec 2.7 plus `completion_tokens_details.reasoning_tokens`). */
export const usageSchema = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: z.number().int().nonnegative().nullish() }).nullish(),
});
export type Usage = z.infer<typeof usageSchema>;
