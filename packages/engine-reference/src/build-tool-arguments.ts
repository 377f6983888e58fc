import { buildArgumentHints } from './argument-hints.js';
import { generateFromSchema } from './generate-from-schema.js';
import { isJsonObject } from './resolve-schema.js';
import { getSchemaValidator } from './schema-validator-cache.js';
import type { ToolDefinition } from './select-tools.js';

/**
 * The JSON arguments string for a call of `tool` prompted by `text`. Values come from the
 * message where the schema allows (see `generateFromSchema`); the result is checked with
 * Ajv, and if it does not validate the minimal object (required properties, defaults,
 * lower bounds) is used instead. A tool without `parameters` gets `{}`.
 *
 * @example
 * buildToolArguments(weatherTool, 'What is the weather in Paris?'); // '{"location":"Paris"}'
 * @internal
 */
export function buildToolArguments(tool: ToolDefinition, text: string): string {
  const parameters = tool.function.parameters;
  if (!isJsonObject(parameters)) return '{}';
  const validate = getSchemaValidator(parameters);
  const generated = generateFromSchema(parameters, buildArgumentHints(text));
  if (!validate || validate(generated)) return JSON.stringify(generated) ?? '{}';
  // The minimal object may still fail (a pattern we cannot satisfy); it is the best we have.
  return JSON.stringify(generateFromSchema(parameters, undefined)) ?? '{}';
}
