import * as z from 'zod';
import { toolNamePattern } from '../tool-name-pattern.js';
import { jsonSchemaObject } from '../tool-definition.js';

/** The one tool type the Responses API serves here: hosted tools would make our server call out. */
export const responseToolTypes = ['function'] as const;

/** A function tool, flat as the Responses API has it: `{type:"function", name, description?, parameters?, strict?}`. */
export const responseFunctionToolSchema = z.object({
  type: z.literal('function'),
  name: z.string().regex(toolNamePattern, 'must match ^[a-zA-Z0-9_-]{1,64}$'),
  description: z.string().nullish(),
  parameters: jsonSchemaObject.nullish(),
  strict: z.boolean().nullish(),
});
export type ResponseFunctionTool = z.infer<typeof responseFunctionToolSchema>;

/** `"none" | "auto" | "required"` or `{type:"function", name}`. */
export const responseToolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  z.object({ type: z.literal('function'), name: z.string() }),
]);
export type ResponseToolChoice = z.infer<typeof responseToolChoiceSchema>;
