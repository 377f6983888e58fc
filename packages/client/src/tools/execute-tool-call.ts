import type { Message, ToolCall } from '@quantum-chat/core';
import { parseToolArguments } from './parse-tool-arguments.js';
import type { RunnerTool } from './runner-tool.js';

/** What one tool call produced: the `tool` message content and whether it is an error result. */
export interface ToolResult {
  toolCallId: string;
  name: string;
  /** The arguments as the model sent them. */
  arguments: string;
  /** The `tool` message content sent back: the result, or `{"error":"…"}`. */
  content: string;
  isError: boolean;
}

/** The error result the model sees: JSON, so that it reads as data rather than as an answer. */
function errorResult(message: string): string {
  return JSON.stringify({ error: message });
}

/**
 * Runs one tool call and never throws: an unknown tool, unparseable or schema-invalid
 * arguments and an error thrown by the tool all become an error result the model can react to.
 *
 * @internal
 */
export async function executeToolCall(call: ToolCall, tools: ReadonlyMap<string, RunnerTool>, context: { signal: AbortSignal | undefined; messages: readonly Message[] }): Promise<ToolResult> {
  const base = { toolCallId: call.id, name: call.function.name, arguments: call.function.arguments };
  const tool = tools.get(call.function.name);
  if (tool === undefined) {
    return { ...base, content: errorResult(`Unknown tool '${call.function.name}'. Available tools: ${[...tools.keys()].join(', ')}.`), isError: true };
  }
  const parsed = await parseToolArguments(tool.parameters, call.function.arguments);
  if (!parsed.ok) return { ...base, content: errorResult(parsed.error), isError: true };
  try {
    const output = await tool.run(parsed.value, { toolCallId: call.id, signal: context.signal, messages: context.messages });
    return { ...base, content: serializeResult(output), isError: false };
  } catch (error) {
    return { ...base, content: errorResult(error instanceof Error ? error.message : String(error)), isError: true };
  }
}

function serializeResult(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  return JSON.stringify(output) ?? String(output);
}
