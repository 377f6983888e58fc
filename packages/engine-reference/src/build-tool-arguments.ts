import { buildArgumentHints } from './argument-hints.js';
import { generateFromSchema } from './generate-from-schema.js';
import { isJsonObject } from './resolve-schema.js';
import { getSchemaValidator } from '@quantum-chat/core/json-schema';
import type { ToolDefinition } from './select-tools.js';

/**
 * The JSON arguments string for a call of `tool` prompted by `text`. Values come from the
 * message where the schema allows (see `generateFromSchema`); the result is checked with
 * the core's JSON Schema validator (no code generation, linear-time patterns), and if it does not validate (or does not fit the generation budget) the minimal
 * object (required properties, defaults, lower bounds) is used instead. A tool without
 * `parameters` gets `{}`. `undefined` when even the minimal object does not fit the budget
 * (a schema that requires itself, huge `minItems`/`minLength`): the tool is not called then.
 *
 * @example
 * buildToolArguments(weatherTool, 'What is the weather in Paris?'); // '{"location":"Paris"}'
 * @internal
 */
export function buildToolArguments(tool: ToolDefinition, text: string): string | undefined {
  const parameters = tool.function.parameters;
  if (!isJsonObject(parameters)) return '{}';
  const generated = generateFromSchema(parameters, buildArgumentHints(text));
  if (generated && getSchemaValidator(parameters).validate(generated.value).length === 0) return JSON.stringify(generated.value) ?? '{}';
  // The minimal object may still fail (a pattern we cannot satisfy); it is the best we have.
  const minimal = generateFromSchema(parameters, undefined);
  return minimal ? (JSON.stringify(minimal.value) ?? '{}') : undefined;
}
