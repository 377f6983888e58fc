import { QuantumChatError, type ChatEngineRequest, type ToolDefinition } from '@quantum-chat/core';
import type { Llama, LlamaGrammar } from 'node-llama-cpp';

/** What a request forces the model to write, when it forces anything. */
export type ForcedOutput =
  | { kind: 'text' }
  | { kind: 'json'; grammar: LlamaGrammar }
  /** One call of `name`: the model writes its arguments. */
  | { kind: 'named-call'; name: string; grammar: LlamaGrammar }
  /** `tool_choice: "required"`: the model writes `{"name": …, "arguments": …}` for one of the tools. */
  | { kind: 'any-call'; grammar: LlamaGrammar };

const emptyObject = { type: 'object', properties: {} };

function parametersOf(tool: ToolDefinition): Record<string, unknown> {
  return (tool.function.parameters as Record<string, unknown> | undefined) ?? emptyObject;
}

/** A JSON-schema grammar, or the client's fault in one sentence when llama.cpp's grammar cannot express it. */
async function schemaGrammar(llama: Llama, schema: unknown, code: 'invalid_tool_schema' | 'unsupported_value', param: string): Promise<LlamaGrammar> {
  try {
    // The client's schema, untyped: llama.cpp's grammar builder rejects what it cannot express.
    return await llama.createGrammarForJsonSchema(schema as Parameters<Llama['createGrammarForJsonSchema']>[0]);
  } catch (error) {
    throw new QuantumChatError(code, `This model cannot follow the JSON schema in '${param}': ${(error as Error).message}`, { param });
  }
}

/** What {@link forcedOutput} will force, without building its grammar (for counting the prompt). */
export type ForcedShape = { kind: 'text' | 'json' | 'any-call' } | { kind: 'named-call'; name: string };

export function forcedShape(request: ChatEngineRequest): ForcedShape {
  const choice = request.toolChoice;
  if (request.tools.length > 0 && typeof choice === 'object' && request.tools.some((tool) => tool.function.name === choice.function.name)) {
    return { kind: 'named-call', name: choice.function.name };
  }
  if (request.tools.length > 0 && choice === 'required') return { kind: 'any-call' };
  return { kind: request.responseFormat === undefined ? 'text' : 'json' };
}

/**
 * The grammar that constrains the answer: `response_format` (a JSON schema, or any JSON),
 * a forced tool call (`tool_choice` naming a tool, or `"required"`), or none. With
 * `tool_choice: "auto"` node-llama-cpp constrains the calls itself, once the model starts one.
 */
export async function forcedOutput(llama: Llama, request: ChatEngineRequest): Promise<ForcedOutput> {
  const choice = request.toolChoice;
  if (request.tools.length > 0 && typeof choice === 'object') {
    const tool = request.tools.find((candidate) => candidate.function.name === choice.function.name);
    if (tool !== undefined) return { kind: 'named-call', name: tool.function.name, grammar: await schemaGrammar(llama, parametersOf(tool), 'invalid_tool_schema', 'tools') };
  }
  if (request.tools.length > 0 && choice === 'required') {
    const oneOf = request.tools.map((tool) => ({
      type: 'object',
      properties: { name: { const: tool.function.name }, arguments: parametersOf(tool) },
      required: ['name', 'arguments'],
    }));
    return { kind: 'any-call', grammar: await schemaGrammar(llama, oneOf.length === 1 ? oneOf[0] : { oneOf }, 'invalid_tool_schema', 'tools') };
  }
  const format = request.responseFormat;
  if (format?.type === 'json_schema') return { kind: 'json', grammar: await schemaGrammar(llama, format.json_schema.schema, 'unsupported_value', 'response_format') };
  if (format?.type === 'json_object') return { kind: 'json', grammar: await llama.getGrammarFor('json') };
  return { kind: 'text' };
}
