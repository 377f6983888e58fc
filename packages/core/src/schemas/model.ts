import * as z from 'zod';

/** The plans a model may require. */
export const planSchema = z.enum(['free', 'elite']);
export type Plan = z.infer<typeof planSchema>;

/** A model object (spec 2.2); `available` is added when the caller sent a valid key (decisions §6). */
export const modelSchema = z.object({
  id: z.string(),
  object: z.literal('model'),
  created: z.number().int(),
  owned_by: z.string(),
  requires_plan: z.literal('elite').nullable(),
  available: z.boolean().optional(),
});
export type Model = z.infer<typeof modelSchema>;

/** The model list (spec 2.3). */
export const modelListSchema = z.object({ object: z.literal('list'), data: z.array(modelSchema) });
export type ModelList = z.infer<typeof modelListSchema>;
