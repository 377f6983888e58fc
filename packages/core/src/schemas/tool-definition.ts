import * as z from 'zod';
import { toolNamePattern } from './tool-name-pattern.js';

export { toolNamePattern };

/** A function tool the model may call: `{type:"function", function:{name, description?, parameters?, strict?}}`. */
export const toolDefinitionSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().regex(toolNamePattern, 'must match ^[a-zA-Z0-9_-]{1,64}$'),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  }),
});
export type ToolDefinition = z.infer<typeof toolDefinitionSchema>;

/** `"none" | "auto" | "required"` or a named function. */
export const toolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) }),
]);
export type ToolChoice = z.infer<typeof toolChoiceSchema>;
