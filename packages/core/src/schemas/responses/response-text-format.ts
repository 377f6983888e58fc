import * as z from 'zod';
import { toolNamePattern } from '../tool-name-pattern.js';
import { jsonSchemaObject } from '../tool-definition.js';

/** `text.format`: plain text (the default), any JSON object, or JSON valid against a schema, flat as the Responses API has it. */
export const responseTextFormatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    name: z.string().regex(toolNamePattern, 'must match ^[a-zA-Z0-9_-]{1,64}$'),
    description: z.string().nullish(),
    schema: jsonSchemaObject,
    strict: z.boolean().nullish(),
  }),
]);
export type ResponseTextFormat = z.infer<typeof responseTextFormatSchema>;

/** `text`: the format, and a verbosity that is echoed but does not reach an engine. */
export const responseTextSchema = z.object({
  format: responseTextFormatSchema.nullish(),
  verbosity: z.enum(['low', 'medium', 'high']).nullish(),
});
