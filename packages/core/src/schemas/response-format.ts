import * as z from 'zod';
import { jsonSchemaObject, toolNamePattern } from './tool-definition.js';

/**
 * `response_format` (decisions §2): plain text (the default), any JSON object, or JSON valid
 * against a schema. The schema is checked like a tool's `parameters`.
 */
export const responseFormatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string().regex(toolNamePattern, 'must match ^[a-zA-Z0-9_-]{1,64}$'),
      description: z.string().nullish(),
      schema: jsonSchemaObject,
      strict: z.boolean().nullish(),
    }),
  }),
]);
export type ResponseFormat = z.infer<typeof responseFormatSchema>;

/** The JSON formats as an engine receives them: `null`s dropped, `text` (the default) left out. */
export type EngineResponseFormat =
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; description?: string; schema: Record<string, unknown>; strict?: boolean } };
