import * as z from 'zod';

/** The error envelope of every failure (decisions §5). `code` is always a string on our side. */
export const errorEnvelopeSchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    param: z.string().nullable(),
    code: z.string(),
  }),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

/** What other OpenAI-style servers send: every field but `message` may be missing. */
export const lenientErrorEnvelopeSchema = z.object({
  error: z.looseObject({
    message: z.string().catch('Unknown error'),
    type: z.string().nullish(),
    param: z.string().nullish(),
    code: z.union([z.string(), z.number()]).nullish(),
  }),
});
export type LenientErrorEnvelope = z.infer<typeof lenientErrorEnvelopeSchema>;
