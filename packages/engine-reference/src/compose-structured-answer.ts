import { QuantumChatError, type EngineResponseFormat } from '@quantum-chat/core';
import { buildToolArguments } from './build-tool-arguments.js';

/**
 * The answer as the JSON a `response_format` asks for. `json_object`: the text answer the
 * engine would have written, as `{"answer": …}`. `json_schema`: a value built by the same
 * generator as tool arguments (values taken from the user's message where the schema allows,
 * checked against the schema, the minimal value otherwise). A schema whose smallest valid value
 * does not fit the generation budget is a 400, before any event.
 *
 * @example
 * composeStructuredAnswer({ type: 'json_object' }, 'Hello.', 'hi'); // '{"answer":"Hello."}'
 * @internal
 */
export function composeStructuredAnswer(format: EngineResponseFormat, answer: string, focus: string): string {
  if (format.type === 'json_object') return JSON.stringify({ answer });
  const { name, schema } = format.json_schema;
  const value = buildToolArguments({ type: 'function', function: { name, parameters: schema } }, focus);
  if (value === undefined) {
    throw new QuantumChatError(
      'invalid_value',
      `The reference engine cannot build a value for the response format '${name}': the smallest value its schema allows is too large.`,
      { param: 'response_format.json_schema.schema' },
    );
  }
  return value;
}
