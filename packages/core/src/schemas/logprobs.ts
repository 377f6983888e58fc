import * as z from 'zod';

/** One alternative token at a position, with its log probability. */
export const topLogprobSchema = z.object({
  token: z.string(),
  logprob: z.number(),
  /** The token's UTF-8 bytes; `null` when the token is not whole characters. */
  bytes: z.array(z.number().int()).nullable(),
});
export type TopLogprob = z.infer<typeof topLogprobSchema>;

/** The log probability of one generated token and of the most likely alternatives (`top_logprobs`). */
export const tokenLogprobSchema = topLogprobSchema.extend({
  top_logprobs: z.array(topLogprobSchema),
});
export type TokenLogprob = z.infer<typeof tokenLogprobSchema>;

/** `choices[].logprobs` of a completion or a chunk when the request set `logprobs: true`. */
export const choiceLogprobsSchema = z.looseObject({
  content: z.array(tokenLogprobSchema).nullable(),
  refusal: z.array(tokenLogprobSchema).nullish(),
});
export type ChoiceLogprobs = z.infer<typeof choiceLogprobsSchema>;
