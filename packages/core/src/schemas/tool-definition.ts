import * as z from 'zod';
import { toolNamePattern } from './tool-name-pattern.js';

export { toolNamePattern };

/**
 * A JSON Schema whose root is an object (a function's `parameters`, a response format's
 * `schema`). The handler checks the rest (`findToolSchemaProblem`); `.meta` puts the root rule
 * in the OpenAPI document, where a validator can check it too.
 */
export const jsonSchemaObject = z.record(z.string(), z.unknown()).meta({
  properties: { type: { const: 'object' } },
  description: 'A JSON Schema (draft-07 or 2020-12) whose root, if it names a type, is of type "object"; no remote `$ref`, no backreferences or lookarounds in patterns.',
});

/** A function tool the model may call: `{type:"function", function:{name, description?, parameters?, strict?}}`. */
export const toolDefinitionSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().regex(toolNamePattern, 'must match ^[a-zA-Z0-9_-]{1,64}$'),
    description: z.string().nullish(),
    parameters: jsonSchemaObject.nullish(),
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
