import type { ToolDefinition } from '@quantum-chat/core';
import { toolNamePattern } from '@quantum-chat/core/dialect';
import { isStandardSchema, type JsonSchemaObject, type RunnerTool, type ToolParameters } from './runner-tool.js';

/**
 * The JSON Schema of a tool's arguments. For zod 4 this is `z.toJSONSchema` reached through
 * the schema itself (Standard JSON Schema, or the `toJSONSchema()` method), so the client
 * needs no zod of its own. `$schema` is dropped: the server knows the dialect.
 *
 * @internal
 */
function toJsonSchema(parameters: ToolParameters): JsonSchemaObject {
  let schema: JsonSchemaObject;
  if (isStandardSchema(parameters)) {
    const converter = parameters['~standard'].jsonSchema;
    const method = (parameters as { toJSONSchema?: unknown }).toJSONSchema;
    if (converter !== undefined) schema = converter.input({ target: 'draft-2020-12' });
    else if (typeof method === 'function') schema = method.call(parameters) as JsonSchemaObject;
    else throw new TypeError(`The ${parameters['~standard'].vendor} schema cannot describe itself as JSON Schema; pass JSON Schema instead.`);
  } else {
    schema = parameters;
  }
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/**
 * The request's `tools[]` entry of a runner tool. Throws a `TypeError` for a name the API
 * would refuse, before anything is sent.
 *
 * @internal
 */
export function toToolDefinition(tool: RunnerTool): ToolDefinition {
  if (!toolNamePattern.test(tool.name)) throw new TypeError(`Tool name '${tool.name}' must match ${String(toolNamePattern)}.`);
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: toJsonSchema(tool.parameters),
    },
  };
}
