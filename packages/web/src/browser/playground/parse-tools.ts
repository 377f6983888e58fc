import type { ToolDefinition } from '@quantum-chat/client';

export type ParsedTools = { ok: true; tools: ToolDefinition[] | undefined } | { ok: false; message: string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `{ name, parameters }` is accepted as shorthand for `{ type: 'function', function: { name, parameters } }`. */
function toDefinition(value: unknown, index: number): ToolDefinition | string {
  if (!isObject(value)) return `Tool ${index + 1} is not an object.`;
  const definition = isObject(value.function) ? value : { type: 'function', function: value };
  const name = (definition.function as Record<string, unknown>).name;
  if (typeof name !== 'string' || name === '') return `Tool ${index + 1} has no function name.`;
  return definition as unknown as ToolDefinition;
}

/**
 * Reads the tool definitions textarea: empty means no tools; otherwise a JSON array (or one
 * object) of function tools. Only the shape needed to send them is checked here: the server
 * validates the rest and names the field at fault (`tools[1].function.parameters`).
 *
 * @example
 * parseToolDefinitions('[{"name":"get_weather"}]'); // { ok: true, tools: [{ type: 'function', function: { name: 'get_weather' } }] }
 */
export function parseToolDefinitions(text: string): ParsedTools {
  if (text.trim() === '') return { ok: true, tools: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `The tool definitions are not valid JSON: ${(error as Error).message}` };
  }
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) return { ok: true, tools: undefined };
  const tools: ToolDefinition[] = [];
  for (const [index, item] of list.entries()) {
    const definition = toDefinition(item, index);
    if (typeof definition === 'string') return { ok: false, message: definition };
    tools.push(definition);
  }
  return { ok: true, tools };
}

/** What "Insert an example" puts in the textarea: a tool the reference engine calls for weather questions. */
export const exampleTools = `[
  {
    "type": "function",
    "function": {
      "name": "get_weather",
      "description": "Current weather for a city",
      "parameters": {
        "type": "object",
        "properties": {
          "location": { "type": "string", "description": "City name" },
          "unit": { "type": "string", "enum": ["celsius", "fahrenheit"] }
        },
        "required": ["location"]
      }
    }
  }
]`;
